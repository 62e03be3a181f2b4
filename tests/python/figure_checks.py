"""What a reader checks in a figure, as code: one kind of plot per axes, a unit on every axis,
no legend over data, quantities from zero unless the label says otherwise, no offset or 4×10²
labels, plurals that agree; and a 32×24 grey thumbnail to see an accidental change.

Used by test_figures.py on every kind and by test_notebooks.py on every figure a notebook saves.
"""

from __future__ import annotations

import functools
import io
import re

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.collections import BrokenBarHCollection, PathCollection, PolyCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.ticker import FixedFormatter  # noqa: E402
import matplotlib.image  # noqa: E402
import matplotlib.text  # noqa: E402

REFERENCE = "reference"  # ctwin.figures.style.REFERENCE: lines and bands that frame the data
ZOOMED = "not 0"  # what ctwin.figures.style.zoomed() writes into a label
_BAD_PLURAL = re.compile(r"(?<![\d.,])1 (?:[a-z]{2,}s)\b")
_UNIT = re.compile(r"\([^()]+\)")


def _categorical(axis) -> bool:
    """Ticks that name things (stage 0, tp 4, an option) rather than measure them."""
    formatter = axis.get_major_formatter()
    # set_ticks(positions, labels) wraps the labels in a partial of Axis._format_with_dict.
    named = isinstance(getattr(formatter, "func", None), functools.partial)
    return named or isinstance(formatter, FixedFormatter) or type(formatter).__name__ == "StrCategoryFormatter"


def _label(ax, letter: str) -> str:
    """An axis label, or that of an axes sharing the axis (side-by-side panels label it once)."""
    shared = ax.get_shared_x_axes() if letter == "x" else ax.get_shared_y_axes()
    for other in [ax, *shared.get_siblings(ax)]:
        text = (other.xaxis if letter == "x" else other.yaxis).get_label_text()
        if text:
            return text
    return ""


def _data(artist) -> bool:
    return artist.get_gid() != REFERENCE and artist.get_visible()


def plot_kinds(ax) -> set[str]:
    """The kinds of plot an axes holds: bars, xy (lines and points), intervals, image, area."""
    kinds = set()
    if any(isinstance(p, Rectangle) and _data(p) and p.get_width() * p.get_height() != 0 for p in ax.patches):
        kinds.add("bars")
    if any(isinstance(line, Line2D) and _data(line) for line in ax.lines):
        kinds.add("xy")
    for c in ax.collections:
        if not _data(c):
            continue
        if isinstance(c, BrokenBarHCollection):
            kinds.add("intervals")
        elif isinstance(c, PathCollection):
            kinds.add("xy")
        elif isinstance(c, PolyCollection):
            kinds.add("area")
    if any(isinstance(i, AxesImage) for i in ax.images):
        kinds.add("image")
    return kinds


def _data_boxes(ax):
    """Display-space boxes (x0, y0, x1, y1) of every data mark of an axes: points are tiny boxes."""
    boxes = []
    for line in ax.lines:
        if _data(line) and line.get_xydata().size:
            for x, y in line.get_transform().transform(line.get_xydata()):
                boxes.append((x, y, x, y))
    for c in ax.collections:
        if not _data(c):
            continue
        if isinstance(c, PathCollection) and len(c.get_offsets()):
            for x, y in c.get_offset_transform().transform(c.get_offsets()):
                boxes.append((x, y, x, y))
        elif isinstance(c, (BrokenBarHCollection, PolyCollection)):
            for path in c.get_paths():
                e = path.transformed(c.get_transform()).get_extents()
                boxes.append((e.x0, e.y0, e.x1, e.y1))
    for p in ax.patches:
        if isinstance(p, Rectangle) and _data(p) and p.get_width() * p.get_height() != 0:
            e = p.get_window_extent()
            boxes.append((e.x0, e.y0, e.x1, e.y1))
    return boxes


def legend_covers(ax, renderer) -> int:
    """How many data marks the axes' legend lies on."""
    legend = ax.get_legend()
    if legend is None:
        return 0
    b = legend.get_window_extent(renderer)
    return sum(1 for x0, y0, x1, y1 in _data_boxes(ax) if x0 <= b.x1 and x1 >= b.x0 and y0 <= b.y1 and y1 >= b.y0)


def _texts(fig: Figure):
    for text in fig.findobj(matplotlib.text.Text):
        if text.get_visible() and text.get_text():
            yield text.get_text()


def problems(fig: Figure, name: str = "figure") -> list[str]:
    """Everything a careful reader would object to in fig, one line each (empty: none)."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        where = f"{name}: axes '{ax.get_title() or ax.get_label()}'"
        if hasattr(ax, "_colorbar"):
            axis = ax.yaxis if ax.get_ylabel() else ax.xaxis
            if not _UNIT.search(axis.get_label_text()):
                found.append(f"{where}: colour bar label '{axis.get_label_text()}' has no unit")
            continue
        kinds = plot_kinds(ax)
        if len(kinds) > 1:
            found.append(f"{where}: holds {len(kinds)} kinds of plot ({', '.join(sorted(kinds))})")
        if not kinds:
            continue
        for letter, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            label = _label(ax, letter)
            categorical = _categorical(axis)
            if not categorical and not _UNIT.search(label):
                found.append(f"{where}: {letter} label '{label}' has no unit in parentheses")
            if axis.get_offset_text().get_text():
                found.append(f"{where}: {letter} axis uses offset notation '{axis.get_offset_text().get_text()}'")
            if axis.get_scale() == "linear" and not categorical:
                lo, hi = sorted(axis.get_view_interval())
                if (lo > 0 or hi < 0) and ZOOMED not in label:
                    found.append(f"{where}: {letter} axis of a quantity runs {lo:g} to {hi:g}, not from 0, unmarked")
            if axis.get_scale() == "log":
                for tick in axis.get_ticklabels(which="both"):
                    text = tick.get_text()
                    if text and ("^" in text or "times" in text):
                        found.append(f"{where}: {letter} log axis label '{text}' is not a plain number")
                        break
        covered = legend_covers(ax, renderer)
        if covered:
            found.append(f"{where}: legend lies on {covered} data marks")
    for text in _texts(fig):
        match = _BAD_PLURAL.search(text)
        if match:
            found.append(f"{name}: '{match.group(0)}' in '{text}'")
    return found


def thumbnail(source) -> np.ndarray:
    """A 24×32 grey picture (0-255) of a figure or of a PNG file: what stays when detail is gone."""
    if isinstance(source, Figure):
        buffer = io.BytesIO()
        source.savefig(buffer, format="png", dpi=100)
        buffer.seek(0)
        source = buffer
    image = matplotlib.image.imread(source, format="png")[..., :3]
    grey = image.mean(axis=2)
    rows = [block.mean(axis=0) for block in np.array_split(grey, 24, axis=0)]
    cells = [[part.mean() for part in np.array_split(row, 32)] for row in rows]
    return np.round(255 * np.array(cells))


def thumbnail_difference(a: np.ndarray, b: np.ndarray) -> float:
    """The mean absolute difference of two thumbnails, in grey levels (0-255)."""
    return float(np.abs(a - b).mean())


PROBLEMS: list[str] = []


def watch_savefig() -> None:
    """From now on every figure saved in this process is checked first; what is wrong goes to
    PROBLEMS (the notebook test asserts it stays empty)."""
    original = Figure.savefig
    if getattr(original, "_ctwin_watched", False):
        return

    def checked(self, fname, *args, **kwargs):
        PROBLEMS.extend(problems(self, str(getattr(fname, "name", fname)).rsplit("/", 1)[-1]))
        return original(self, fname, *args, **kwargs)

    checked._ctwin_watched = True
    Figure.savefig = checked
