"""What the split planner found: the best throughput over TP x PP, and whether the analytical and
flow networks rank the splits the same way (`ctwin plan`)."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .style import new_figure, reference, zoomed


def best_per_cell(results: Sequence[Mapping]) -> dict[tuple[int, int], float]:
    """The best tokens/s per (tp, pp) over a plan's results (its `flow` figures where replayed)."""
    best: dict[tuple[int, int], float] = {}
    for r in results:
        figures = r.get("flow") or r["analytical"]
        key = (r["split"]["tp"], r["split"]["pp"])
        best[key] = max(best.get(key, 0.0), figures["tokens_per_s"])
    return best


def plan_heatmap(best: Mapping[tuple[int, int], float], tps: Sequence[int], pps: Sequence[int],
                 marks: Mapping[tuple[int, int], str] | None = None, title: str = "") -> Figure:
    """Best tokens/s (millions) per cell; a cell without a split shows its mark (OOM, batch) or '-'."""
    fig, (ax,) = new_figure(6.5, 1.6 + 0.55 * len(tps))
    draw_heatmap(fig, ax, best, tps, pps, marks, title)
    return fig


def draw_heatmap(fig: Figure, ax: Axes, best: Mapping[tuple[int, int], float], tps: Sequence[int], pps: Sequence[int],
                 marks: Mapping[tuple[int, int], str] | None = None, title: str = "") -> None:
    """plan_heatmap() into ax (its colour bar beside it)."""
    marks = marks or {}
    grid = [[best.get((tp, pp), math.nan) / 1e6 for pp in pps] for tp in tps]
    image = ax.imshow(grid, cmap="viridis", origin="lower", aspect="auto")
    ax.set_xticks(range(len(pps)), [str(p) for p in pps])
    ax.set_yticks(range(len(tps)), [str(t) for t in tps])
    ax.set_xlabel("pipeline parallel, pp (stages)")
    ax.set_ylabel("tensor parallel, tp (GPUs)")
    for i, tp in enumerate(tps):
        for j, pp in enumerate(pps):
            value = grid[i][j]
            text = f"{value:.2f}" if not math.isnan(value) else (marks.get((tp, pp)) or "-")
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if not math.isnan(value) else "black")
    fig.colorbar(image, ax=ax, label="best tokens/s (millions)")
    ax.set_title(title or "best tokens/s per (tp, pp)")


def rank_agreement(results: Sequence[Mapping], title: str = "") -> Figure:
    """Each split replayed on both networks: analytical against flow tokens/s (millions), y = x
    where they agree; the title carries Spearman's rho when given."""
    fig, (ax,) = new_figure(6.0, 4.2)
    draw_rank_agreement(ax, results, title)
    return fig


def draw_rank_agreement(ax: Axes, results: Sequence[Mapping], title: str = "") -> None:
    """rank_agreement() into ax."""
    both = [r for r in results if r.get("flow")]
    x = [r["analytical"]["tokens_per_s"] / 1e6 for r in both]
    y = [r["flow"]["tokens_per_s"] / 1e6 for r in both]
    ax.scatter(x, y, s=18, label="split")
    for r, a, f in zip(both, x, y):
        s = r["split"]
        ax.annotate(f"tp{s['tp']} pp{s['pp']} vpp{s['vpp']}", (a, f), fontsize=6, xytext=(3, 2),
                    textcoords="offset points")
    values = x + y
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    pad = 0.05 * (hi - lo or hi or 1.0)
    reference(ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="gray", lw=0.8))
    ax.set_xlabel("analytical network, tokens/s (millions)")
    ax.set_ylabel("flow network, tokens/s (millions)")
    # Agreement is about order, so both axes show the range the splits span; the labels say so.
    zoomed(ax, "x", lo - pad, hi + pad)
    zoomed(ax, "y", lo - pad, hi + pad)
    ax.set_title(title or "analytical against flow ranking (gray: y = x)")
