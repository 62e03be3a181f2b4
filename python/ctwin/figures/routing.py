"""ECMP against adaptive routing: for each measure (a collective's busbw, a step's tokens/s), one
pair of bars per case (oversubscription and network model), so the collision loss of hashing and
what spreading wins back read side by side."""

from __future__ import annotations

from typing import Mapping, Sequence

from matplotlib.figure import Figure

from .style import from_zero, legend_outside, new_figure, plural

#: The policies in the order a reader compares them, with their bar colours.
POLICIES = (("ecmp", "tab:gray"), ("adaptive", "tab:blue"))


def routing_bars(rows: Sequence[Mapping], title: str = "") -> Figure:
    """rows: dicts of measure (an axis label with its unit), case, ecmp and adaptive. One panel per
    measure, in the order the rows first name them; in each, one pair of horizontal bars per case."""
    measures = list(dict.fromkeys(r["measure"] for r in rows))
    cases = {m: [r for r in rows if r["measure"] == m] for m in measures}
    height = 1.2 + 0.55 * max((len(c) for c in cases.values()), default=1)
    fig, axes = new_figure(4.2 * len(measures) + 1.4, height, 1, len(measures))
    for ax, measure in zip(axes, measures):
        names = [r["case"] for r in cases[measure]]
        for offset, (policy, colour) in zip((-0.2, 0.2), POLICIES):
            ax.barh([i + offset for i in range(len(names))], [r[policy] for r in cases[measure]], height=0.38,
                    color=colour, label=policy)
        ax.set_yticks(range(len(names)), names)
        ax.set_ylim(len(names) - 0.5, -0.5)  # the first case on top, as the table reads
        ax.set_xlabel(measure)
        from_zero(ax, "x")
    axes[0].set_ylabel("oversubscription, network")
    legend_outside(axes[-1])
    fig.suptitle(title or "ECMP against adaptive routing")
    return fig


def routing_figure(report: Mapping) -> Figure:
    """The report scripts/make-figures.py measures: cluster, gpus and rows (see routing_bars)."""
    return routing_bars(report["rows"], f"{report['cluster']}, {plural(report['gpus'], 'GPU')}: "
                                        "ECMP hashing against adaptive spreading")
