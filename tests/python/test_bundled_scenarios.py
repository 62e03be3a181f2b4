"""Every bundled scenario follows the published run it names (validation/scenarios/published.json):
the split, schedule, batch and precision a launch script sets, compared field by field with the
run's record. Reads JSON only, so it needs neither the module nor the binary."""

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RECORD = REPO / "validation" / "scenarios" / "published.json"

# Where each compared field lives in a scenario (or a case's scenario).
TRAINING = ("seq_len", "global_batch", "micro_batch", "precision", "grad_reduce_in_fp32")
PARALLEL = ("tp", "pp", "vpp", "cp", "ep", "dp", "schedule", "recompute", "sequence_parallel",
            "distributed_optimizer", "account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split")


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def value_of(scenario: dict, field: str):
    """The scenario's value of `field`, with Megatron's defaults where the file leaves it out
    and dp worked out from the GPUs when it is "auto"."""
    training, parallel = scenario.get("training", {}), scenario.get("parallel", {})
    if field == "gpus":
        return scenario["gpus"]
    if field in TRAINING:
        return training.get(field, {"micro_batch": 1, "grad_reduce_in_fp32": True}.get(field))
    if field == "dp" and parallel.get("dp", "auto") == "auto":
        return scenario["gpus"] // (parallel.get("tp", 1) * parallel.get("pp", 1) * parallel.get("cp", 1))
    if field == "vpp" and parallel.get("schedule", "1f1b") != "interleaved":
        return 1
    defaults = {"vpp": 1, "cp": 1, "ep": 1, "schedule": "1f1b", "sequence_parallel": False,
                "distributed_optimizer": False, "account_for_embedding_in_pipeline_split": False,
                "account_for_loss_in_pipeline_split": False}
    return parallel.get(field, defaults.get(field))


def published_fields(entry: dict) -> dict:
    if "case" in entry:
        cases = load(REPO / "validation" / "training" / "cases.json")["cases"]
        case = next(c for c in cases if c["id"] == entry["case"])["scenario"]
        fields = {"gpus": case["gpus"]}
        fields.update({k: case["training"][k] for k in TRAINING if k in case["training"]})
        fields.update({k: value_of(case, k) for k in PARALLEL if k in case["parallel"] or k == "dp"})
        return fields
    skip = set(entry.get("not_expressible_fields", []))
    return {k: v for k, v in entry["published"].items() if k not in skip}


def test_every_bundled_scenario_has_a_record():
    listed = {e["scenario"] for e in load(RECORD)["scenarios"]}
    bundled = {str(p.relative_to(REPO)) for p in (REPO / "scenarios").glob("*.json")}
    assert bundled == listed


def test_each_record_names_a_run_with_sources_or_says_why_it_has_none():
    for entry in load(RECORD)["scenarios"]:
        kinds = [k for k in ("case", "published", "illustrative") if k in entry]
        assert len(kinds) == 1, entry["scenario"]
        if "published" in entry:
            assert entry["sources"] and entry["run"], entry["scenario"]


def test_scenarios_follow_their_published_runs():
    differences = []
    for entry in load(RECORD)["scenarios"]:
        if "illustrative" in entry:
            continue
        scenario = load(REPO / entry["scenario"])
        for field, published in published_fields(entry).items():
            mine = value_of(scenario, field)
            if mine != published:
                differences.append(f"{entry['scenario']}: {field} is {mine!r}, the published run has {published!r}")
    assert not differences, "\n".join(differences)


def test_a_scenario_that_follows_a_publication_carries_its_source():
    for entry in load(RECORD)["scenarios"]:
        if "illustrative" in entry:
            continue
        scenario = load(REPO / entry["scenario"])
        assert scenario.get("sources") or "case" in entry and scenario.get("description"), entry["scenario"]
