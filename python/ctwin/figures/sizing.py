"""Build options of `ctwin size`: capex and IT power against the workload's throughput, the
Pareto front, and options whose throughput is the same (ties) shown as ties."""

from __future__ import annotations

import textwrap
from typing import Mapping, Sequence

from matplotlib.figure import Figure

from .style import legend_outside, new_figure, zoomed

#: Throughputs closer than this (relative) are one throughput: the twin cannot tell them apart,
#: and a plot must not draw their difference as a trend.
TIE_RELATIVE = 1e-4
_TIE_COLOURS = ["tab:blue", "tab:green", "tab:purple", "tab:olive", "tab:cyan", "tab:brown"] * 10


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= TIE_RELATIVE * max(abs(a), abs(b))


def tie_groups(options: Sequence[Mapping]) -> list[list[int]]:
    """Groups (indices, two or more) of options with the same throughput: from each option's
    `tie_group` (what `ctwin size` reports: the model's resolution decides) or `tied_with`
    (indices or names), else within TIE_RELATIVE."""
    if options and all("tie_group" in o for o in options):
        by_group: dict[int, list[int]] = {}
        for i, o in enumerate(options):
            if o["tie_group"] is not None and o["tie_group"] >= 0:
                by_group.setdefault(int(o["tie_group"]), []).append(i)
        return [g for _, g in sorted(by_group.items()) if len(g) > 1]
    names = [o["name"] for o in options]
    parent = list(range(len(options)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, o in enumerate(options):
        if "tied_with" in o:
            partners = [names.index(t) if isinstance(t, str) else int(t) for t in o["tied_with"]]
        else:
            partners = [j for j, p in enumerate(options) if j != i and _same(p["tokens_per_s"], o["tokens_per_s"])]
        for j in partners:
            parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(options)):
        groups.setdefault(root(i), []).append(i)
    return [sorted(g) for g in groups.values() if len(g) > 1]


def _tie_rule(tolerance: float, seeds: int) -> str:
    if seeds > 1:
        return f"mean tokens/s within {100 * tolerance:g} %,\nor ranges over {seeds} hash seeds overlap"
    return f"same tokens/s within {100 * tolerance:g} %"


def cost_throughput(options: Sequence[Mapping], currency: str = "", workload: str = "", title: str = "",
                    tolerance: float = TIE_RELATIVE, seeds: int = 1) -> Figure:
    """options: dicts of name, capex, power_kW, tokens_per_s and pareto (and tie_group or
    tied_with). Left capex, right IT power, both against tokens/s (millions); the Pareto front in
    red; tied options joined by a dotted line at their group's throughput. `tolerance`: the
    relative gap below which options tie, and `seeds` the ECMP hash seeds whose overlapping
    ranges also tie them (`ctwin size`), as the legend states it."""
    fig, axes = new_figure(11.0, 4.2, 1, 2, sharey=True)
    ties = tie_groups(options)
    y = [o["tokens_per_s"] / 1e6 for o in options]
    for ax, key, scale, label in ((axes[0], "capex", 1e6, f"capex (millions of {currency or 'money'})"),
                                  (axes[1], "power_kW", 1e3, "IT power (MW, sum of parts' maximum)")):
        x = [o[key] / scale for o in options]
        pareto = [o.get("pareto", False) for o in options]
        ax.scatter([a for a, p in zip(x, pareto) if not p], [b for b, p in zip(y, pareto) if not p], color="tab:gray",
                   s=30, label="option")
        ax.scatter([a for a, p in zip(x, pareto) if p], [b for b, p in zip(y, pareto) if p], color="tab:red", s=30,
                   label="Pareto front")
        tied = {i for g in ties for i in g}
        for group, colour in zip(ties, _TIE_COLOURS):
            xs = sorted(x[i] for i in group)
            # The names go to the legend: a reader must not tell these options apart by throughput.
            names = textwrap.fill("; ".join(options[i]["name"] for i in group), 44)
            ax.plot(xs, [max(y[i] for i in group)] * len(xs), color=colour, linestyle=":", lw=1.2, marker="o",
                    markersize=9, markerfacecolor="none",
                    label=f"tied ({_tie_rule(tolerance, seeds)}):\n{names}")
        for i, o in enumerate(options):
            if i not in tied:
                ax.annotate(o["name"], (x[i], y[i]), fontsize=6, xytext=(-4, -10), textcoords="offset points",
                            ha="right")
        ax.set_xlabel(label)
        ax.set_ylim(0, 1.1 * max(y, default=1.0))
        # Options differ by a few per cent of a capex that servers dominate: from zero they would
        # be one dot, so the x axis shows their range and its label says so.
        lo, hi = min(x, default=0.0), max(x, default=1.0)
        pad = 0.15 * (hi - lo or 0.1 * hi or 1.0)
        zoomed(ax, "x", max(0.0, lo - pad), hi + pad)
    axes[0].set_ylabel(f"{workload + ' ' if workload else ''}tokens/s (millions)")
    legend_outside(axes[1])
    fig.suptitle(title or "cost and power against throughput")
    return fig


def options_from_report(report: Mapping) -> list[dict]:
    """The options of `ctwin size --format json` as cost_throughput() takes them: named by the
    varied fields, throughput of the first workload at its largest size."""
    fields = [a["field"] for a in report["axes"]]
    # A report may say which options tie, per option (tied_with) or as groups (ties): then it wins.
    partners: dict[int, list] = {}
    for group in report.get("ties", []):
        for member in group:
            partners.setdefault(int(member) if not isinstance(member, str) else member, []).extend(
                m for m in group if m != member)
    out = []
    for o in report["options"]:
        name = ", ".join(f"{f.split('.')[-1]}={o[f]}" for f in fields) or report["cluster"]
        points = o["workloads"][0]["points"] if o.get("workloads") else []
        index = len(out)
        tied = o.get("tied_with", partners.get(index, []) + partners.get(name, []))
        bill = o["bill"]
        out.append({"name": name, "capex": bill["capex"]["total"],
                    "power_kW": sum(c["power_kW"] for k, c in bill["capex"].items() if isinstance(c, dict)),
                    # What the tie groups and the front compare: the mean over ECMP seeds where measured.
                    "tokens_per_s": o.get("tokens_per_s_mean", points[-1]["tokens_per_s"] if points else 0.0),
                    "pareto": o.get("pareto", False),
                    **({"tie_group": o.get("tie_group", -1)} if "tie_group" in o or "tie_tolerance" in report else {}),
                    **({"tied_with": tied} if "tied_with" in o or report.get("ties") is not None else {})})
    return out
