"""What a planner's user acts on (issue 35): how sure a plan is (calibration, memory margin), the
MoE rules real recipes follow, the best split as Megatron-LM / Megatron-Bridge arguments, and a
Megatron-LM training log as `validate --run`'s measurement. Through the CLI only, on small plans."""

import json
import statistics
from pathlib import Path

SCENARIO = "scenarios/default.json"
# Llama 3 8B on 64 H100 with the shape searched and the rest fixed: a plan of a second or two.
SMALL = ["--fix", "training.micro_batch=1", "--fix", "parallel.cp=1", "--fix", "parallel.recompute=none",
         "--fix", "parallel.distributed_optimizer=true", "--flow-top", "0"]
H100_HBM_GIB = 80e9 / 2**30


def plan_json(cli, *args):
    out = cli("plan", *args, "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_an_uncalibrated_plan_says_so_in_json_and_table(cli):
    plan = plan_json(cli, SCENARIO, *SMALL, "--top", "3")
    assert plan["calibrated"]["compute"] is False and plan["calibrated"]["network"] is False
    assert plan["calibrated"]["note"].startswith("uncalibrated: the ") and "profile has no training_time_scale" in plan["calibrated"]["note"]
    table = cli("plan", SCENARIO, *SMALL, "--top", "3")
    assert table.returncode == 0, table.stderr
    assert "UNCALIBRATED figures:" in table.stdout.splitlines()[1]


def test_a_profile_with_a_fitted_training_scale_is_marked_calibrated(cli):
    plan = plan_json(cli, SCENARIO, *SMALL, "--top", "1", "--fix", 'gpu="models/gpus/calibrated/h100-sxm.json"')
    assert plan["calibrated"]["compute"] is True
    assert "14 dense runs" in plan["calibrated"]["compute_source"]
    assert plan["calibrated"]["network"] is False and "nccl-tests" in plan["calibrated"]["note"]


def test_the_memory_margin_keeps_a_tenth_of_hbm_free_by_default(cli):
    # Llama 3 8B without recompute at micro-batch 1: one split (69.4 GiB) lies above 90 % of the H100's 74.5 GiB.
    args = [SCENARIO, "--fix", "parallel.cp=1", "--fix", "parallel.recompute=none", "--fix", "training.micro_batch=1",
            "--fix", "parallel.distributed_optimizer=true", "--flow-top", "0", "--top", "100000"]
    default = plan_json(cli, *args)
    none = plan_json(cli, *args, "--memory-margin", "0")
    assert default["memory_margin"] == 0.1 and none["memory_margin"] == 0
    used = [r["analytical"]["memory_gib_per_gpu"] for r in default["results"]]
    assert max(used) <= 0.9 * H100_HBM_GIB
    assert any(r["analytical"]["memory_gib_per_gpu"] > 0.9 * H100_HBM_GIB for r in none["results"])
    memory = next(r for r in default["rules"] if r["rule"] == "memory")
    assert "10 % margin" in memory["example"]
    assert default["survivors"] < none["survivors"]
    assert plan_json(cli, *args, "--memory-margin", "10%")["survivors"] == default["survivors"]


def test_a_bad_memory_margin_is_one_line_and_exit_2(cli):
    for value in ("60%", "-1", "ten", ""):
        out = cli("plan", SCENARIO, "--memory-margin", value)
        assert out.returncode == 2, value
        assert out.stderr.count("\n") == 1 and "--memory-margin" in out.stderr, out.stderr


def test_moe_candidates_keep_ep_x_tp_in_the_nvlink_domain_and_zero3_only_where_it_is_needed(cli):
    # Mixtral 8x7B on 64 H100 (8-GPU NVLink domains), every ep, tp, pp and optimizer.
    args = [SCENARIO, "--fix", 'model="models/llm/mixtral-8x7b.json"', "--fix", "training.seq_len=4096",
            "--fix", "training.global_batch=256", "--fix", "training.micro_batch=1", "--fix", "parallel.cp=1",
            "--fix", "parallel.recompute=none", "--fix", "parallel.vpp=1", "--flow-top", "0", "--top", "100000"]
    plan = plan_json(cli, *args)
    results = plan["results"]
    assert results
    removed = {r["rule"]: r["removed"] for r in plan["rules"]}
    assert removed["moe.ep_domain"] > 0 and removed["moe.zero"] > 0
    shape = lambda s: (s["tp"], s["pp"], s["vpp"], s["cp"], s["pipeline_accounting"], s["micro_batch"], s["recompute"])
    within = {(shape(r["split"]), r["split"]["zero"], r["split"]["distributed_optimizer"])
              for r in results if r["split"]["ep"] * r["split"]["tp"] <= 8}
    zero1 = {(shape(r["split"]), r["split"]["ep"]) for r in results if r["split"]["distributed_optimizer"]}
    for r in results:
        s = r["split"]
        if s["ep"] * s["tp"] > 8:
            assert (shape(s), s["zero"], s["distributed_optimizer"]) not in within, s
        if s["zero"] >= 2:
            assert (shape(s), s["ep"]) not in zero1, s
    # A --fix on ep turns the domain rule off: ep 16 (two servers) is then planned.
    fixed = plan_json(cli, *args, "--fix", "parallel.ep=8", "--fix", "parallel.tp=2")
    assert all(r["split"]["ep"] == 8 and r["split"]["tp"] == 2 for r in fixed["results"]) and fixed["results"]


def test_format_megatron_and_nemo_print_the_best_split(cli):
    plan = plan_json(cli, SCENARIO, *SMALL, "--top", "1")
    best = plan["results"][0]["split"]
    megatron = cli("plan", SCENARIO, *SMALL, "--format", "megatron")
    assert megatron.returncode == 0, megatron.stderr
    lines = megatron.stdout.splitlines()
    assert lines[0].startswith("# ctwin plan: ") and lines[1].startswith("# uncalibrated: ")
    args = [line for line in lines if not line.startswith("#")]
    assert f"--tensor-model-parallel-size {best['tp']}" in args
    assert f"--pipeline-model-parallel-size {best['pp']}" in args
    assert f"--micro-batch-size {best['micro_batch']}" in args and "--global-batch-size 128" in args
    assert ("--sequence-parallel" in args) == best["sequence_parallel"]
    assert "--use-distributed-optimizer" in args
    assert (f"--num-virtual-stages-per-pipeline-rank {best['vpp']}" in args) == (best["schedule"] == "interleaved")
    assert not any("expert-model-parallel" in a for a in args)  # dense: the plan decides no EP
    nemo = cli("plan", SCENARIO, *SMALL, "--format", "nemo")
    assert nemo.returncode == 0, nemo.stderr
    overrides = [line for line in nemo.stdout.splitlines() if not line.startswith("#")]
    assert f"model.tensor_model_parallel_size={best['tp']}" in overrides
    assert "train.global_batch_size=128" in overrides and "ddp.use_distributed_optimizer=true" in overrides
    assert all("=" in o and " " not in o for o in overrides)
    refused = cli("plan", SCENARIO, "--format", "megatron", "--shard", "1/2")
    assert refused.returncode == 2 and "--format" in refused.stderr


def test_validate_run_reads_a_megatron_log(cli):
    out = cli("validate", "--run", "tests/python/data/megatron-run.json", "--format", "json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    measured = report["measured"]
    assert measured["given_as"] == "megatron_log"
    # Iterations 11-14 of the sample log, after its 10 warm-up iterations.
    assert abs(measured["step_time_s"] - statistics.median([2.0448, 2.0466, 2.0439, 2.0510])) < 1e-9
    assert measured["megatron_log"]["intervals"] == 4 and measured["megatron_log"]["warmup_iterations"] == 10
    assert measured["megatron_log"]["tflops_per_gpu"] > 0
    table = cli("validate", "--run", "tests/python/data/megatron-run.json")
    assert table.returncode == 0 and "median 'elapsed time per iteration' of 4 logged intervals" in table.stdout


def test_a_megatron_log_without_iterations_or_with_another_batch_is_refused(cli, tmp_path):
    repo = Path(__file__).resolve().parents[2]
    base = json.loads((repo / "tests/python/data/megatron-run.json").read_text())
    base["scenario"] = str(repo / "scenarios/default.json")
    log = (repo / "tests/python/data/megatron-train.log").read_text()
    cases = {"empty.log": "no Megatron-LM iteration line",
             "batch.log": "global batch size 256 is not the scenario's 128",
             "short.log": "no iteration line after the 10 warm-up iterations"}
    (tmp_path / "empty.log").write_text("training ...\nnothing logged\n")
    (tmp_path / "batch.log").write_text(log.replace("global batch size:   128", "global batch size:   256"))
    (tmp_path / "short.log").write_text("\n".join(l for l in log.splitlines() if "iteration       1" not in l))
    for name, message in cases.items():
        run_file = tmp_path / f"{name}.json"
        run_file.write_text(json.dumps({**base, "measured": {"megatron_log": name}}))
        out = cli("validate", "--run", str(run_file))
        assert out.returncode == 2, (name, out.stdout)
        assert out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
