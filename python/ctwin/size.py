"""Build options of a cluster compared on cost, power and throughput (``ctwin size``)."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Sequence

import pandas as pd

from . import _args, _core
from .build import _changes, _cluster, _context, _gpus
from .context import EvalContext


def _vary_text(vary: Mapping[str, Sequence[Any]] | None) -> list[str]:
    texts = []
    for path, values in _args.mapping("vary", vary).items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise _args.refuse(f"vary[{path!r}]", "a list of values", values)
        texts.append(f"{path}=" + ",".join(json.dumps(v) if not isinstance(v, str) else v for v in values))
    return texts


_FAT_TREE_TIERS = ("leaf", "spine", "core")


def size(cluster: str | os.PathLike, gpus: int, vary: Mapping[str, Sequence[Any]] | None = None,
         workloads: Sequence[str | os.PathLike] = (), parts: str | os.PathLike | None = None,
         changes: Mapping[str, Any] | None = None, scales: int = 4, collectives: bool = True, jobs: int = 1,
         network: str = "flow", flow_sample: str = "su", tie_tolerance: float | None = None,
         ecmp_seeds: int | None = None, servers_per_rack: int = 0, racks_per_row: int = 16,
         pue: float | None = None, context: EvalContext | None = None) -> pd.DataFrame:
    """One row per build option (every combination of ``vary``), as ``ctwin size`` computes it.

    ``vary``: topology fields and their values, e.g. ``{"fabric.oversubscription.leaf": [1, 2]}``.
    ``workloads``: scenario files run on each option at 1/8 ... all of the build (weak scaling).
    ``parts``: a parts file replacing or adding catalog entries (prices the catalog lacks).
    ``network``: ``"flow"`` (every op's traffic on one shared fabric, so fabric options differ;
    ``flow_sample`` ``"su"``, ``"replica"`` or ``"full"``) or ``"analytical"`` (each collective alone).
    ``tie_tolerance``: relative tokens/s gap below which options tie (default: the model's resolution).
    ``ecmp_seeds``: ECMP hash seeds the first workload replays at full scale per option (default 4
    on flow, 1 on analytical); options are ranked on the mean (``tokens_per_s_mean``), the widest
    spread (``hash_spread``) is the tie tolerance.
    ``servers_per_rack`` (0: 4, or 1 for rack-scale nodes) and ``racks_per_row``: the floor the
    cables are chosen on (docs/size.md, The floor model). ``pue``: facility energy over IT energy
    (1 to 3); adds ``facility_power_kW`` = power_kW × pue.
    Columns: the varied fields, switch counts per tier (leaf, spine, core, then any other tier an
    option has, e.g. a dragonfly's router), transceivers, cables, racks, capex per
    category and in total (NaN where a part has no price), power_kW, bisection_TBps, all_reduce
    and alltoall bus bandwidth, and for the first workload tokens_per_s, mfu and linearity at
    full scale; tie_group (options of one group deliver the same within the tolerance, -1 for
    none), pareto, cost_per_pflops, gflops_per_watt (model FLOP/s of the first workload at full
    scale per watt of IT power), facility_power_kW (with ``pue``) and costs_no_more_than (the rows whose bills need at least as
    many of every part: this row costs no more than each at any prices, which ranks options whose
    parts are unpriced). ``frame.attrs["report"]`` is the whole JSON report.
    """
    if isinstance(workloads, (str, bytes, os.PathLike)) or not isinstance(workloads, Sequence):
        raise _args.refuse("workloads", "a list of scenario files", workloads)
    files = [_args.path(f"workloads[{i}]", w) for i, w in enumerate(workloads)]
    if tie_tolerance is not None:
        tie_tolerance = _args.real("tie_tolerance", tie_tolerance, 0.0, 0.5)
    options = _args.options(
        _core.SizeOptions, cluster=_cluster(cluster), gpus=_gpus(gpus), changes=_changes(changes), vary=_vary_text(vary),
        workloads=files, parts=_args.optional_path("parts", parts), scales=_args.integer("scales", scales, 1, 8),
        collectives=_args.flag("collectives", collectives), jobs=_args.integer("jobs", jobs, 1, _args.MAX_JOBS),
        network=_args.text("network", network), flow_sample=_args.text("flow_sample", flow_sample),
        tie_tolerance=tie_tolerance,
        ecmp_seeds=None if ecmp_seeds is None else _args.integer("ecmp_seeds", ecmp_seeds, 1, 16),
        servers_per_rack=_args.integer("servers_per_rack", servers_per_rack, 0, 256),
        racks_per_row=_args.integer("racks_per_row", racks_per_row, 1, 1000),
        pue=None if pue is None else _args.real("pue", pue, 1.0, 3.0))
    text = _core.size(options, _context(context)._core)
    report = text.to_dict()
    rows = []
    nan = float("nan")
    for option in report["options"]:
        row: dict[str, Any] = {axis["field"]: option[axis["field"]] for axis in report["axes"]}
        if "invalid" in option:
            row["invalid"] = option["invalid"]
            rows.append(row)
            continue
        bill = option["bill"]
        capex = bill["capex"]
        tiers = option["switches_per_tier"]

        def priced(category: dict[str, Any]) -> float:
            return category["capex"] if category["unpriced_lines"] == 0 else nan

        row.update({
            "leaf": tiers.get("leaf", 0), "spine": tiers.get("spine", 0), "core": tiers.get("core", 0),
            "transceivers": bill["transceivers"], "cables": bill["cables"],
            "racks": bill["racks"]["servers"] + bill["racks"]["network"],
            "capex_servers": priced(capex["servers"]), "capex_switches": priced(capex["switches"]),
            "capex_optics": priced(capex["optics_and_cables"]),
            "capex": capex["total"] if capex["fully_priced"] else nan,
            "power_kW": bill["power_kW"]["total"],
            "power_servers_kW": capex["servers"]["power_kW"], "power_switches_kW": capex["switches"]["power_kW"],
            "power_optics_kW": capex["optics_and_cables"]["power_kW"],
            "bisection_TBps": option["bisection_GBps"] / 1000,
            "all_reduce_busbw_GBps": option["all_reduce_busbw_GBps"], "alltoall_busbw_GBps": option["alltoall_busbw_GBps"],
            "warnings": len(option["warnings"]),
        })
        if option["workloads"]:
            full = option["workloads"][0]["points"][-1]
            row.update({"tokens_per_s": full.get("tokens_per_s", nan), "mfu": full.get("mfu", nan),
                        "linearity": full.get("linearity", nan)})
        if "hash_spread" in option:
            row["tokens_per_s_mean"] = option["tokens_per_s_mean"]
            row["hash_spread"] = option["hash_spread"]
        row["tie_group"] = option.get("tie_group", -1)
        row["pareto"] = option["pareto"]
        row["cost_per_pflops"] = option["cost_per_pflops"] if option["cost_per_pflops"] is not None else nan
        row["costs_no_more_than"] = option["costs_no_more_than"]
        row["gflops_per_watt"] = option["gflops_per_watt"] if option["gflops_per_watt"] is not None else nan
        if "facility_power_kW" in option:
            row["facility_power_kW"] = option["facility_power_kW"]
        row.update({tier: count for tier, count in tiers.items() if tier not in _FAT_TREE_TIERS})
        rows.append(row)
    frame = pd.DataFrame(rows)
    other_tiers = [c for c in frame.columns if any(c in o.get("switches_per_tier", {}) for o in report["options"])
                   and c not in _FAT_TREE_TIERS]
    built = frame["invalid"].isna() if "invalid" in frame else pd.Series(True, index=frame.index)
    for tier in other_tiers:  # an option without the tier has none of its switches
        frame.loc[built, tier] = frame.loc[built, tier].fillna(0).astype(int)
    frame.attrs.update({"cluster": report["cluster"], "gpus": report["gpus"], "currency": report["currency"],
                        "network": report["network"], "tie_tolerance": report["tie_tolerance"],
                        "report": report})
    return frame
