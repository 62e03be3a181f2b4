"""One figure per command report: what `ctwin <command> --figure FILE` draws from the JSON the
command prints with --format json. Each kind names the drawing in this package that it uses."""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Mapping

from matplotlib.figure import Figure

from .acceptance import acceptance_expected, shortfall
from .bars import breakdown_bars, draw_stacked, step_parts
from .busbw import busbw_curves
from .goodput import ettr_interval
from .plans import best_per_cell, draw_heatmap, draw_rank_agreement
from .routing import routing_figure
from .scaling import linearity_mfu
from .sizing import TIE_RELATIVE, cost_throughput, options_from_report
from .style import new_figure, plural
from .timeline import compute_intervals, draw_timeline
from .validation import error_bars, predicted_vs_measured
from .waterfall import waterfall


def run_figure(report: Mapping) -> Figure:
    """`ctwin run`: the pipeline timeline (when the report carries its trace) over the breakdown."""
    title = f"{report['model']} on {plural(report['gpus'], 'GPU')}: step {report['step_time_s']:.3f} s"
    trace = report.get("trace")
    if not trace:
        return breakdown_bars({"this step": step_parts(report)}, title)
    stages = len(compute_intervals(trace))
    fig, (top, bottom) = new_figure(8.5, 2.6 + 0.45 * stages, 2, 1, height_ratios=[max(stages, 1), 1.6])
    draw_timeline(top, trace, "compute per pipeline stage")
    draw_stacked(bottom, {"mean over stages": step_parts(report)}, "time per step (s)")
    bottom.set_ylabel("step")
    bottom.set_title("where the step goes")
    fig.suptitle(title)
    return fig


def scale_figure(report: Mapping) -> Figure:
    return linearity_mfu(report["points"], f"{report['model']}, {report['scaling']} scaling")


def plan_figure(report: Mapping) -> Figure:
    """`ctwin plan`: the best tokens/s of the reported splits over TP x PP, and the analytical
    against the flow ranking of those replayed on both."""
    results = report["results"]
    best = best_per_cell(results)
    tps = sorted({tp for tp, _ in best}) or [1]
    pps = sorted({pp for _, pp in best}) or [1]
    fig, (left, right) = new_figure(12.0, 2.2 + 0.5 * len(tps) if len(tps) > 4 else 4.2, 1, 2)
    draw_heatmap(fig, left, best, tps, pps, title=f"best tokens/s of the {plural(len(results), 'reported split')}")
    draw_rank_agreement(right, results)
    fig.suptitle(f"{report['model']} on {plural(report['gpus'], 'GPU')}")
    return fig


def size_figure(report: Mapping) -> Figure:
    workload = ""
    if report["options"] and report["options"][0].get("workloads"):
        workload = report["options"][0]["workloads"][0]["model"]
    return cost_throughput(options_from_report(report), report.get("currency", ""), workload,
                           f"{report['cluster']}, {plural(report['gpus'], 'GPU')}",
                           report.get("tie_tolerance", TIE_RELATIVE), report.get("ecmp_seeds", 1))


def goodput_figure(report: Mapping) -> Figure:
    grid = report["interval_search"]["grid"] if report.get("interval_search") else []
    curve = {"label": f"{report['checkpoint']['tier']} (checkpoint {report['checkpoint']['blocking_s']:.1f} s)",
             "interval_s": [g["interval_s"] for g in grid], "ettr": [g["ettr"] for g in grid],
             "young_daly_s": report.get("young_daly_interval_s")}
    if not grid:  # a fixed interval: one point
        curve.update(interval_s=[report["interval_s"]], ettr=[report["ettr"]["mean"]])
    return ettr_interval([curve], f"{plural(report['gpus'], 'GPU')}, {report['days']:g} days, "
                                  f"{plural(report['runs'], 'run')}")


def collective_figure(report: Mapping) -> Figure:
    rows = report["rows"]
    nodes = report.get("nodes")
    label = plural(nodes, "node") if nodes else plural(report["gpus"], "GPU")
    return busbw_curves([{"label": label, "size_bytes": [r["size_bytes"] for r in rows],
                          "busbw_GBps": [r["busbw_GBps"] for r in rows]}],
                        f"{report['op']} on {plural(report['gpus'], 'GPU')}, predicted")


def validate_figure(report: Mapping) -> Figure:
    """`ctwin validate`: measured against predicted busbw per group of logs (nccl), or the error
    of every published run (training)."""
    if "setups" in report:
        groups: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))
        for setup in report["setups"]:
            for row in setup["rows"]:
                groups[setup["group"]][0].append(row["measured_busbw_GBps"])
                groups[setup["group"]][1].append(row["predicted_busbw_GBps"])
        return predicted_vs_measured(dict(groups), "busbw", "GB/s", 0.15, "nccl-tests logs against ctwin")
    runs = report.get("runs") or report.get("cases") or []
    return error_bars({r["id"]: {"error": r["error"]} for r in runs if r.get("error") is not None}, 0.10,
                      "published training runs against ctwin")


def acceptance_figure(report: Mapping) -> Figure:
    return acceptance_expected(report["expected"], f"{report['cluster']}, {plural(report['gpus'], 'GPU')}: expected")


def shortfall_figure(report: Mapping) -> Figure:
    return shortfall(report.get("measured", []))


def explain_figure(report: Mapping) -> Figure:
    return waterfall(report["links"], f"{report['name']}: {report['total_gain']:.2f}x in all")


#: kind -> the drawing of that command's report.
KINDS: dict[str, Callable[[Mapping], Figure]] = {
    "run": run_figure, "scale": scale_figure, "plan": plan_figure, "size": size_figure, "goodput": goodput_figure,
    "collective": collective_figure, "validate": validate_figure, "accept": acceptance_figure,
    "shortfall": shortfall_figure, "explain": explain_figure, "routing": routing_figure,
}
