"""What every ctwin figure shares: a deterministic look, plain tick labels, units and plurals.

A figure is trusted when two renders of the same data are the same picture (fixed DPI, font,
size and SVG ids), when its numbers read as numbers (no offset, no 4×10² on a log axis) and when
a reader can tell what was zoomed. The helpers here are the only place those rules are written.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import matplotlib

matplotlib.use("Agg")  # no display: figures are files, in notebooks and from the command line alike

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

DPI = 100
#: The artist id of lines and bands that frame the data (y = x, zero, a threshold): not data.
REFERENCE = "reference"
#: What an axis label says when its linear axis does not start at zero.
ZOOMED_NOTE = "axis from {}, not 0"

_RC = {
    "font.family": "DejaVu Sans",  # bundled with matplotlib, so every machine draws the same glyphs
    "font.size": 9,
    "axes.titlesize": 10,
    "legend.fontsize": 8,
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "axes.formatter.useoffset": False,
    "axes.formatter.limits": (-6, 9),
    "svg.hashsalt": "ctwin",
    "svg.fonttype": "none",
    "path.simplify": True,
}


@contextmanager
def _style() -> Iterator[None]:
    with plt.rc_context(_RC):
        yield


def new_figure(width: float, height: float, rows: int = 1, cols: int = 1, **kwargs) -> tuple[Figure, list[Axes]]:
    """A figure of width x height inches with the ctwin style, and its axes as a flat list."""
    with _style():
        fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False, **kwargs)
    fig._ctwin_rc = dict(_RC)  # kept so that save() draws with the style the figure was made with
    return fig, [ax for row in axes for ax in row]


def save(fig: Figure, path: str | Path) -> Path:
    """Writes fig to path (.png or .svg) the same way every time: fixed DPI, no timestamps."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"{path}: a figure is written as .png or .svg, not '{path.suffix}'")
    metadata = {"Software": None} if suffix == ".png" else {"Date": None, "Creator": None}
    with plt.rc_context(getattr(fig, "_ctwin_rc", _RC)):
        fig.savefig(path, dpi=DPI, metadata=metadata)
    return path


def plural(count: float, one: str, many: str | None = None) -> str:
    """'1 node', '2 nodes', '1,024 GPUs': the count with its noun in the right number."""
    many = many or one + "s"
    shown = f"{count:,}" if float(count).is_integer() else f"{count:,.2f}"
    return f"{shown} {one if count == 1 else many}"


def plain_number(value: float) -> str:
    """A tick label without exponents: 60, 300, 1,000, 0.5, 2M."""
    if value == 0:
        return "0"
    magnitude = abs(value)
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M")):
        if magnitude >= scale:
            return f"{value / scale:g}{suffix}"
    if magnitude >= 1:
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.3g}"
    return f"{value:.3g}"


def plain_bytes(value: float) -> str:
    """A size tick label: 8 B, 1 KiB, 64 MiB, 8 GiB (powers of 1,024, as nccl-tests sizes go)."""
    for scale, unit in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if value >= scale:
            return f"{value / scale:g} {unit}"
    return f"{value:g} B"


def log_axis(ax: Axes, which: str = "x", base: int = 10, bytes_: bool = False, dense: bool = False) -> None:
    """A log axis whose labels are plain numbers (300, 1,000; or 1 KiB) and whose minor ticks are
    unlabelled, so that no 4×10² appears. dense: 1, 2 and 5 of each decade labelled (for data
    within a decade or two)."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log", base=base)
    formatter = plain_bytes if bytes_ else plain_number
    axis.set_major_locator(LogLocator(base=base, subs=(1.0, 2.0, 5.0) if dense else (1.0,), numticks=12))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: formatter(v)))
    axis.set_minor_formatter(NullFormatter())


def thin_byte_ticks(ax: Axes, lo: float, hi: float) -> None:
    """At most about six size labels over [lo, hi] on a base-2 axis: every 2nd, 4th ... power."""
    span = max(1, int(math.log2(max(hi, 2)) - math.log2(max(lo, 1))))
    step = max(1, math.ceil(span / 6))
    ticks = [2.0**e for e in range(int(math.log2(max(lo, 1))), int(math.log2(max(hi, 2))) + 1, step)]
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: plain_bytes(v)))
    ax.xaxis.set_minor_formatter(NullFormatter())


def legend_outside(ax: Axes, **kwargs) -> None:
    """The legend to the right of the axes, where it cannot hide data."""
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))  # one entry per label, first artist
    ax.legend(unique.values(), unique.keys(), loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
              **kwargs)


def zoomed(ax: Axes, which: str, lo: float, hi: float) -> None:
    """Shows [lo, hi] of a linear quantity axis instead of [0, hi], and says so in the axis label
    (call after setting it), so that a small difference is not read as a large one."""
    (ax.set_ylim if which == "y" else ax.set_xlim)(lo, hi)
    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_label_text(f"{axis.get_label_text()}\n{ZOOMED_NOTE.format(plain_number(lo))}")


def from_zero(ax: Axes, which: str = "y") -> None:
    """A linear quantity axis that starts at zero (or ends there, for negative data)."""
    lo, hi = ax.get_ylim() if which == "y" else ax.get_xlim()
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    (ax.set_ylim if which == "y" else ax.set_xlim)(lo, hi)


def reference(artist):
    """Marks a line or band as framing the data (y = x, zero, a threshold) rather than data."""
    for a in artist if isinstance(artist, (list, tuple)) else [artist]:
        a.set_gid(REFERENCE)
    return artist
