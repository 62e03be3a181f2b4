# Type stubs of ctwin's compiled core, for editors. Use the ctwin package, not this module.
from typing import Any, Sequence

class Scenario:
    @staticmethod
    def load(path: str) -> Scenario: ...
    @staticmethod
    def from_json_text(text: str, source: str) -> Scenario: ...
    def with_(self, path: str, value_json: str) -> Scenario: ...
    def with_assignments(self, assignments: Sequence[str]) -> Scenario: ...
    def with_calibration(self, file: str) -> Scenario: ...
    def validate(self) -> None: ...
    def document_json(self) -> str: ...
    def changes(self) -> list[tuple[str, str]]: ...
    @property
    def source(self) -> str: ...

class EvalContext:
    def __init__(self) -> None: ...
    def counts(self) -> dict[str, int]: ...

class Report:
    """The library's report document, held natively; to_dict()/to_json() are the CLI's --format json."""
    headlines: tuple[str, ...]
    def __init__(self, text: str) -> None: ...
    def to_dict(self) -> Any: ...
    def to_json(self, indent: int | None = None) -> str: ...
    def keys(self) -> list[str]: ...
    def __getitem__(self, key: str) -> Any: ...
    def __contains__(self, key: str) -> bool: ...

class StepReport(Report):
    step_time_s: float
    tokens_per_s: float
    mfu: float
    model_tflops_per_gpu: float
    comm_ratio: float
    fits_memory: bool
    gpus: int
    network: str

class ScalingReport(Report):
    model: str
    scaling: str
    batch: str

class PlanReport(Report):
    model: str
    gpus: int
    objective: str
    enumerated: int
    survivors: int
    best_split: dict[str, Any] | None

class SweepReport(Report):
    model: str

class GoodputReport(Report):
    ettr: float
    goodput: float
    interval_s: float
    young_daly_interval_s: float
    step_time_s: float

class SizeReport(Report):
    cluster: str
    gpus: int

class AcceptReport(Report):
    cluster: str
    gpus: int

class CollectiveReport(Report):
    op: str
    gpus: int
    channels: int

class ExplainReport(Report):
    total_gain: float

class ClusterReport(Report):
    cluster: str | None  # None on a --compare-policies report, which lacks these fields
    build_gpus: int | None
    busy_nodes: int | None
    steps: int | None
    window_end_s: float | None

class GoodputOptions:
    days: float
    interval: str
    spares: str
    cold_spares: str
    hot_swap: str
    cold_swap: str
    on_empty: str
    reliability: str
    storage_file: str
    storage: str
    fp32_master: bool
    step_time: str
    straggler_rate: str
    straggler_speed: float
    straggler_duration: str
    runs: int
    seed: int
    def __init__(self) -> None: ...

class PlanOptions:
    gpus: int | None
    objective: str
    fixes: list[str]
    flow_top: int
    top: int
    exhaustive: bool
    flow_sample: str
    memory_margin: float  # set as text ("10%"), read as a share
    jobs: int
    shard_index: int
    shard_count: int
    def __init__(self) -> None: ...

class StepOptions:
    comm: str  # set as text, parsed: auto, isolated or shared
    all_ranks: bool
    degrade: list[str]
    flow_sample: str  # full, su or replica
    def __init__(self) -> None: ...

class ScaleOptions:
    gpus: list[int]
    batch: str  # nearest, fixed or per-replica
    jobs: int
    def __init__(self) -> None: ...

class CollectiveOptions:
    cluster: str
    gpus: int
    changes: list[tuple[str, str]]
    calibration: str
    op: str
    algorithm: str
    protocol: str
    begin: str
    end: str
    factor: float
    dtype: str
    network: str
    channels: int
    every_transfer: bool
    degrade: list[str]
    def __init__(self) -> None: ...

class SizeOptions:
    cluster: str
    gpus: int
    changes: list[tuple[str, str]]
    vary: list[str]
    workloads: list[str]
    parts: str
    scales: int
    collectives: bool
    jobs: int
    network: str
    flow_sample: str
    tie_tolerance: float | None
    ecmp_seeds: int | None
    servers_per_rack: int
    racks_per_row: int
    pue: float | None
    def __init__(self) -> None: ...

class AcceptOptions:
    cluster: str
    gpus: int
    changes: list[tuple[str, str]]
    calibration: str
    plan: str
    measured: str
    degraded: list[str]
    synthesize: bool
    noise: float
    seed: int
    jobs: int
    show: str
    def __init__(self) -> None: ...

class ExplainOptions:
    reverse: bool
    def __init__(self) -> None: ...

class ClusterOptions:
    steps: int  # 0: the file's
    compare_policies: bool
    def __init__(self) -> None: ...

def run(scenario: Scenario, options: StepOptions, context: EvalContext, trace: bool = ...) -> tuple[StepReport, str]: ...
def scale(scenario: Scenario, options: ScaleOptions, context: EvalContext) -> ScalingReport: ...
def fabric(cluster: str, gpus: int, changes: Sequence[tuple[str, str]], calibration: str, context: EvalContext) -> str: ...
def accept(options: AcceptOptions, context: EvalContext) -> tuple[AcceptReport, str]: ...
def collective(options: CollectiveOptions, context: EvalContext) -> CollectiveReport: ...
def traffic(cluster: str, gpus: int, changes: Sequence[tuple[str, str]], pattern: str, size: str, pxn: bool, steps: int,
            flows_per_pair: int, network: str, full_solve: bool, calibration: str, context: EvalContext) -> str: ...
def gemm(gpu: str, m: int | None, n: int | None, k: int | None, dtype: str, shapes: str) -> str: ...
def calibrate_gemm(csv: str, base: str, output: str, holdout: str) -> str: ...
def calibrate_nccl(cluster: str, logs: Sequence[str], output: str, gpus: int, op: str, algorithm: str, protocol: str,
                   network: str, holdout: Sequence[str]) -> tuple[str, str]: ...
def read_nccl_log(path: str, op: str) -> str: ...
def layer(model: str, gpu: str, tp: int, seq: int, micro_batch: int, precision: str, recompute: str, attention: str,
          layer: int, measured: str) -> str: ...
def validate_nccl(setups: str, role: str, only: Sequence[str], network: str, calibrated: bool) -> str: ...
def calibrate_layers(layers: str, base: str, output: str, holdout: str) -> tuple[str, str]: ...
def validate_training(cases: str, only: Sequence[str], network: str, profiles: str, jobs: int) -> str: ...
def validate_training_calibrated(cases: str, only: Sequence[str], network: str, profiles: str, jobs: int) -> str: ...
def validate_scaling(cases: str, network: str) -> str: ...
def validate_trace(trace: str, scenario: Scenario, context: EvalContext) -> str: ...
def calibrate_trace(trace: str, scenario: Scenario, base: str, output: str, context: EvalContext) -> str: ...
def calibrate_training(cases: str, base: str, output: str, holdout: str, only: Sequence[str], network: str,
                       jobs: int) -> tuple[str, str]: ...
def size(options: SizeOptions, context: EvalContext) -> SizeReport: ...
def explain(chain: str, options: ExplainOptions, context: EvalContext) -> ExplainReport: ...
def plan(scenario: Scenario, options: PlanOptions, context: EvalContext) -> PlanReport: ...
def merge_plans(shards: Sequence[str], top: int) -> PlanReport: ...
def rank_split(scenario: Scenario, context: EvalContext, gpus: int, objective: str, fixes: Sequence[str],
               key: Sequence[str], jobs: int, memory_margin: str = "10%") -> str: ...
def sweep(scenario: Scenario, context: EvalContext, grid: Sequence[str], jobs: int, shard_index: int,
          shard_count: int) -> SweepReport: ...
def merge_sweeps(shards: Sequence[str]) -> SweepReport: ...
def goodput(scenario: Scenario, options: GoodputOptions, context: EvalContext) -> GoodputReport: ...
def cluster_file(path: str | bytes, options: ClusterOptions, context: EvalContext) -> ClusterReport: ...
def cluster_document(text: str, source: str, options: ClusterOptions, context: EvalContext) -> ClusterReport: ...
