"""ctwin.explain: the waterfall from one setup to another, factor by factor (docs/explain.md)."""

from __future__ import annotations

import os

import pandas as pd

from . import _args, _core
from .build import _context
from .context import EvalContext


def explain(chain: str | os.PathLike, reverse: bool = False, context: EvalContext | None = None) -> pd.DataFrame:
    """One row per link of ``chain`` (a chain file: a base scenario and the factors changed one at
    a time), as ``ctwin explain`` computes it: label, factor, step_time_s, tokens_per_s, mfu,
    comm_ratio, exposed_io_s, bubble_s, fits_memory, gpu_utilisation, linearity (weak scaling
    from one node; None where the split cannot run there), linearity_from_gpus, and for chains
    with goodput settings goodput and ettr; throughput (tokens/s, times goodput when the chain
    has it), gain (throughput over the link above), cumulative_gain, share (log(gain) / log(whole
    gain); the shares add to 1) and set (the assignments that make the link). ``reverse``: also
    replay the factors last to first, in columns gain_reversed and share_reversed.
    ``frame.attrs["report"]`` is the whole JSON report."""
    options = _args.options(_core.ExplainOptions, reverse=_args.flag("reverse", reverse))
    report = _core.explain(_args.path("chain", chain), options, _context(context)._core).to_dict()
    frame = pd.DataFrame(report["links"])
    if "goodput" in frame:
        frame["ettr"] = [link["goodput"]["ettr"] for link in report["links"]]
        frame["goodput"] = [link["goodput"]["goodput"] for link in report["links"]]
    if "reversed" in report:
        frame["gain_reversed"] = [link["gain"] for link in report["reversed"]]
        frame["share_reversed"] = [link["share"] for link in report["reversed"]]
    frame.attrs["report"] = report
    frame.attrs["total_gain"] = report["total_gain"]
    return frame
