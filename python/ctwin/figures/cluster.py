"""Cluster GPU utilisation against fragmentation, one line per placement policy (the fragmentation
study of docs/cluster.md, from `ctwin cluster --compare-policies` rows)."""

from __future__ import annotations

from collections import defaultdict
from typing import Mapping, Sequence

from matplotlib.figure import Figure

from .style import from_zero, legend_outside, new_figure, reference


def utilisation_curves(rows: Sequence[Mapping], threshold: float | None = None, title: str = "") -> Figure:
    """rows: dicts of panel (a label: one axes each), policy, fragmentation and utilisation (fractions),
    one per map; each policy's line is the mean over the rows of a level.
    threshold (a fraction): a reference line, e.g. a claim to compare with."""
    panels: dict[str, dict[str, dict[float, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in rows:
        panels[r["panel"]][r["policy"]][float(r["fragmentation"])].append(100 * float(r["utilisation"]))
    fig, axes = new_figure(4.2 * len(panels) + 1.6, 3.4, 1, len(panels), sharey=True)
    for ax, (panel, policies) in zip(axes, panels.items()):
        for policy, levels in policies.items():
            xs = sorted(levels)
            ax.plot([100 * x for x in xs], [sum(levels[x]) / len(levels[x]) for x in xs], marker="o", label=policy)
        if threshold is not None:
            reference(ax.axhline(100 * threshold, color="grey", linestyle=":", linewidth=1.0,
                                 label=f"{100 * threshold:g} % (claim)"))
        ax.set_title(panel)
        ax.set_xlabel("busy nodes (% of the build)")
        ax.set_ylim(0, 105)
        from_zero(ax, "x")
    axes[0].set_ylabel("GPU utilisation (% of free GPUs)")
    legend_outside(axes[-1])
    if title:
        fig.suptitle(title)
    return fig
