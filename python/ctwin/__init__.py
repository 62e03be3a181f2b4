"""ctwin: a performance twin of GPU training clusters, from Python.

The same engine as the ``ctwin`` command: every result's ``to_dict()`` is what the command
prints with ``--format json``. Start with::

    import ctwin
    s = ctwin.Scenario.load("scenarios/default.json")
    step = ctwin.run(s.with_({"parallel.tp": 4}), network="analytical")
    step.step_time_s, step.mfu, step.breakdown

Calls release the GIL while ctwin works (threads run scenarios in parallel), Ctrl-C interrupts
them, and bad input raises :class:`InputError` naming the file and field.
"""

from .accept import AcceptanceResult, accept
from .build import collective, fabric, traffic
from .cluster import ClusterPolicies, ClusterResult, cluster
from .calibrate import (calibrate_gemm, calibrate_layers, calibrate_nccl, calibrate_trace, calibrate_training, gemm,
                        layer, read_nccl_log)
from .context import EvalContext
from .errors import InputError
from .goodput import GoodputResult, goodput
from .results import CalibrationResult, FabricResult, LayerResult, ScalingResult, StepResult, TrafficResult
from .plan import PlanResult, SweepResult, plan, sweep
from .rank import SplitRank, rank_split
from .explain import explain
from .scenario import Scenario
from .size import size
from .step import run, scale
from .validate import validate

__all__ = [
    "AcceptanceResult", "accept",
    "PlanResult", "SweepResult", "plan", "sweep",
    "SplitRank", "rank_split",
    "GoodputResult", "goodput",
    "ClusterPolicies", "ClusterResult", "cluster",
    "CalibrationResult", "EvalContext", "FabricResult", "InputError", "LayerResult", "ScalingResult", "Scenario",
    "StepResult", "TrafficResult", "calibrate_gemm", "calibrate_layers", "calibrate_nccl", "calibrate_trace", "calibrate_training",
    "collective", "explain", "fabric", "gemm", "layer", "read_nccl_log", "run", "scale", "size", "traffic", "validate",
]
