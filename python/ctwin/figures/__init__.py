"""Figures of ctwin's results, each kind drawn by one function, for notebooks and for
`ctwin <command> --figure FILE` alike (docs/figures.md shows every kind).

Every function takes plain data (report dicts as the commands print them with --format json, or
mappings and sequences) and returns a matplotlib Figure; `save(fig, path)` writes it the same way
every time. Nothing here calls the compiled module: a saved report is enough.
"""

from .acceptance import acceptance_expected, shortfall
from .bars import breakdown_bars, stacked_bars, step_parts
from .busbw import busbw_curves
from .cluster import utilisation_curves
from .goodput import ettr_interval, ettr_size
from .plans import best_per_cell, plan_heatmap, rank_agreement
from .reports import KINDS
from .routing import routing_bars
from .scaling import linearity_mfu
from .sizing import TIE_RELATIVE, cost_throughput, options_from_report, tie_groups
from .style import plural, save
from .timeline import pipeline_timeline
from .validation import error_bars, predicted_vs_measured
from .waterfall import waterfall


def from_report(kind: str, report: dict):
    """The figure `ctwin <kind> --figure` draws from that command's JSON report."""
    if kind not in KINDS:
        raise ValueError(f"no figure kind '{kind}' (one of {', '.join(KINDS)})")
    return KINDS[kind](report)


__all__ = [
    "KINDS", "TIE_RELATIVE", "acceptance_expected", "best_per_cell", "breakdown_bars", "busbw_curves",
    "cost_throughput", "error_bars", "ettr_interval", "ettr_size", "from_report", "linearity_mfu",
    "options_from_report", "pipeline_timeline", "plan_heatmap", "plural", "predicted_vs_measured", "rank_agreement",
    "routing_bars", "save", "shortfall", "stacked_bars", "step_parts", "tie_groups", "utilisation_curves", "waterfall",
]
