"""Effective training time ratio (ETTR) against the checkpoint interval and against cluster size
(`ctwin goodput`)."""

from __future__ import annotations

from typing import Mapping, Sequence

from matplotlib.figure import Figure

from .style import legend_outside, log_axis, new_figure, reference, zoomed


def _ettr_range(values: Sequence[float]) -> tuple[float, float]:
    # ETTR lives between 80 and 100 %: from zero the optimum would be a flat line, so the axis
    # shows whole 5 % steps around the data and its label says where it starts.
    lo = max(0.0, 5 * int(min(values) / 5) - 5)
    return lo, min(100.0, 5 * int(max(values) / 5) + 5)


def _ettr_figure(curves: Sequence[Mapping], x_key: str, x_scale: float, xlabel: str, title: str) -> Figure:
    """ETTR (%) of each curve against curve[x_key] / x_scale on a log axis; a curve's young_daly_s
    is a dotted vertical line in its colour."""
    fig, (ax,) = new_figure(7.0, 3.8)
    values = []
    for c in curves:
        ettr = [100 * e for e in c["ettr"]]
        values += ettr
        (line,) = ax.plot([x / x_scale for x in c[x_key]], ettr, marker="o", markersize=3, label=c["label"])
        if c.get("young_daly_s"):
            reference(ax.axvline(c["young_daly_s"] / x_scale, color=line.get_color(), linestyle=":",
                                 label=f"Young/Daly, {c['label']}"))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("ETTR (%)")
    zoomed(ax, "y", *_ettr_range(values))
    ax.set_title(title)
    legend_outside(ax)
    return fig


def ettr_interval(curves: Sequence[Mapping], title: str = "") -> Figure:
    """curves: dicts of label, interval_s, ettr (fractions) and optionally young_daly_s (dotted)."""
    fig = _ettr_figure(curves, "interval_s", 60.0, "checkpoint interval (min)",
                       title or "ETTR against the checkpoint interval")
    log_axis(fig.axes[0], "x", dense=True)
    return fig


def ettr_size(curves: Sequence[Mapping], title: str = "") -> Figure:
    """curves: dicts of label, gpus and ettr (fractions), one point per cluster size."""
    fig = _ettr_figure(curves, "gpus", 1.0, "cluster size (GPUs)", title or "ETTR against cluster size")
    log_axis(fig.axes[0], "x", base=2)
    fig.axes[0].set_xticks(sorted({g for c in curves for g in c["gpus"]}))
    return fig
