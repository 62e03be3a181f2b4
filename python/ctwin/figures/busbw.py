"""busbw against message size, nccl-tests style: one curve per node count (or per prediction),
measured points as dots."""

from __future__ import annotations

from typing import Mapping, Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .style import from_zero, legend_outside, new_figure, thin_byte_ticks


def draw_busbw(ax: Axes, curves: Sequence[Mapping]) -> None:
    """curves: dicts of label, size_bytes, busbw_GBps and optionally measured (dots, no line)."""
    lo, hi = float("inf"), 0.0
    for c in curves:
        sizes = [float(s) for s in c["size_bytes"]]
        style = dict(linestyle="none", marker="o", markersize=3.5, color="black") if c.get("measured") else \
            dict(marker=".", markersize=4)
        ax.plot(sizes, list(c["busbw_GBps"]), label=c["label"], **style)
        lo, hi = min(lo, min(sizes, default=lo)), max(hi, max(sizes, default=hi))
    ax.set_xscale("log", base=2)
    if hi > 0:
        thin_byte_ticks(ax, lo, hi)
    ax.set_xlabel("message size (bytes, powers of 2)")
    ax.set_ylabel("busbw (GB/s)")
    from_zero(ax, "y")
    legend_outside(ax)


def busbw_curves(curves: Sequence[Mapping], title: str = "") -> Figure:
    """busbw against size, one line per curve (see draw_busbw)."""
    fig, (ax,) = new_figure(7.0, 3.8)
    draw_busbw(ax, curves)
    ax.set_title(title or "busbw against message size")
    return fig
