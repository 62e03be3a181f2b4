"""Predicted against measured, with the band inside which the twin is called right, and the
error of each case as bars (`ctwin validate`, the calibration notebook)."""

from __future__ import annotations

from typing import Mapping, Sequence

from matplotlib.figure import Figure

from .style import legend_outside, log_axis, new_figure, reference


def predicted_vs_measured(groups: Mapping[str, tuple[Sequence[float], Sequence[float]]], quantity: str, unit: str,
                          band: float = 0.10, title: str = "", panels: Mapping[str, Mapping] | None = None) -> Figure:
    """groups: label -> (measured, predicted). Log-log (the values span decades), y = x and the
    ±band around it shaded. With panels (title -> groups) one axes per panel, same scales."""
    panels = panels or {title: groups}
    fig, axes = new_figure(5.0 * len(panels) + 1.5, 4.2, 1, len(panels), sharex=True, sharey=True)
    every = [v for p in panels.values() for m, q in p.values() for v in list(m) + list(q) if v > 0]
    lo, hi = (min(every), max(every)) if every else (1.0, 10.0)
    lo, hi = lo / 1.5, hi * 1.5
    for ax, (name, data) in zip(axes, panels.items()):
        line = [lo, hi]
        reference(ax.fill_between(line, [v * (1 - band) for v in line], [v * (1 + band) for v in line], color="0.9",
                                  label=f"within ±{100 * band:g} %"))
        reference(ax.plot(line, line, color="gray", lw=0.8, label="predicted = measured"))
        for label, (measured, predicted) in data.items():
            ax.scatter(list(measured), list(predicted), s=10, label=label)
        log_axis(ax, "x")
        log_axis(ax, "y")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel(f"measured {quantity} ({unit})")
        ax.set_title(name)
    axes[0].set_ylabel(f"predicted {quantity} ({unit})")
    legend_outside(axes[-1])
    if len(panels) > 1 and title:
        fig.suptitle(title)
    return fig


def error_bars(errors: Mapping[str, Mapping[str, float]], band: float = 0.10, title: str = "") -> Figure:
    """errors: case -> {series: predicted/measured - 1}; one group of horizontal bars per case, in %."""
    cases = list(errors)
    series = list(dict.fromkeys(s for e in errors.values() for s in e))
    fig, (ax,) = new_figure(8.0, 1.4 + 0.28 * len(cases) * max(1, len(series)) ** 0.5)
    height = 0.8 / max(1, len(series))
    reference(ax.axvspan(-100 * band, 100 * band, color="0.92", label=f"within ±{100 * band:g} %"))
    for k, s in enumerate(series):
        ax.barh([i + (k - (len(series) - 1) / 2) * height for i in range(len(cases))],
                [100 * errors[c].get(s, float("nan")) for c in cases], height=height, label=s)
    reference(ax.axvline(0, color="black", lw=0.8))
    ax.set_yticks(range(len(cases)), cases)
    ax.invert_yaxis()
    ax.set_ylabel("case")
    ax.set_xlabel("predicted / measured - 1 (%)")
    ax.set_title(title or "error per case")
    legend_outside(ax)
    return fig
