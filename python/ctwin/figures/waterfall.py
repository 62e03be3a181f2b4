"""The waterfall of `ctwin explain`: tokens/s from the base to the end of a chain, one floating
bar per factor (what it bought, or cost), each labelled with its gain and share."""

from __future__ import annotations

from typing import Mapping, Sequence

from matplotlib.figure import Figure

from .style import log_axis, new_figure


def waterfall(links: Sequence[Mapping], title: str = "") -> Figure:
    """links: dicts of label and tokens_per_s or throughput (tokens/s times goodput; used when
    present) and share, the base first, as `ctwin explain --format json` lists them. On a log
    axis, each factor is a bar from the throughput before it to after it, green when it gains and
    red when it loses; the base and the end are full bars from the axis' floor."""
    fig, (ax,) = new_figure(max(6.0, 1.5 + 0.9 * (len(links) + 1)), 4.6)
    tokens = [float(link.get("throughput", link["tokens_per_s"])) / 1e6 for link in links]
    names = [link["label"] for link in links] + ["end"]
    # A log axis, so that equal gains look equal whatever the throughput they start from.
    floor = min(tokens) / 2
    log_axis(ax, "y", dense=True)
    ax.bar(0, tokens[0] - floor, bottom=floor, color="tab:gray")
    for i in range(1, len(links)):
        low, high = sorted((tokens[i - 1], tokens[i]))
        colour = "tab:green" if tokens[i] >= tokens[i - 1] else "tab:red"
        ax.bar(i, max(high - low, 1e-3 * low), bottom=low, color=colour)
        share = links[i].get("share")
        label = f"{tokens[i] / tokens[i - 1]:.2f}x" + (f"\n{100 * share:.0f} %" if share is not None else "")
        ax.annotate(label, (i, high), ha="center", va="bottom", fontsize=8)
    ax.bar(len(links), tokens[-1] - floor, bottom=floor, color="tab:blue")
    ax.set_ylim(floor, max(tokens) * 2)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([n if len(n) <= 24 else n[:23] + "…" for n in names], rotation=30, ha="right", fontsize=8)
    goodput = any("goodput" in link for link in links)
    ax.set_ylabel("tokens/s x goodput (millions)" if goodput else "tokens/s (millions)")
    ax.set_title(title)
    return fig
