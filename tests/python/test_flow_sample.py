"""`--flow-sample` on plan and run: bad values end in one line and exit 2, an approximate result
says so in its JSON (exact ones keep their bytes), and the output does not depend on --jobs."""

import json

SCENARIO = "scenarios/default.json"
# Llama 3 8B on 1,024 H100, tp 8, pp 2: stages of 512 GPUs, two scalable units each.
RUN_SETS = ["--set", "gpus=1024", "--set", "training.global_batch=64", "--set", "parallel.tp=8",
            "--set", "parallel.pp=2"]
PLAN_ARGS = ["--gpus", "1024", "--fix", "training.global_batch=64", "--fix", "parallel.tp=8", "--fix", "parallel.pp=2",
             "--fix", "parallel.cp=1", "--fix", "parallel.vpp=1", "--fix", "training.micro_batch=1",
             "--fix", "parallel.recompute=selective", "--top", "2", "--flow-top", "2", "--format", "json"]


def test_bad_values_exit_2_with_one_line(cli):
    for args in (["plan", SCENARIO, "--flow-sample", "half"], ["run", SCENARIO, "--flow-sample", "SU"],
                 ["run", SCENARIO, "--flow-sample", ""]):
        out = cli(*args)
        assert out.returncode == 2, args
        assert out.stderr.count("\n") == 1 and "--flow-sample" in out.stderr, out.stderr


def test_refused_where_nothing_is_on_the_shared_fabric(cli):
    for extra in (["--network", "analytical"], ["--comm", "isolated"]):
        out = cli("run", SCENARIO, "--flow-sample", "su", *extra)
        assert out.returncode == 2 and "--flow-sample" in out.stderr, out.stderr
    out = cli("run", SCENARIO, "--flow-sample", "su", "--all-ranks")
    assert out.returncode == 2 and "--flow-sample" in out.stderr, out.stderr
    out = cli("plan", SCENARIO, "--flow-sample", "su", "--rank-of", "tp=2,pp=2")
    assert out.returncode == 2 and "--flow-sample" in out.stderr, out.stderr


def test_run_json_marks_the_approximation(cli):
    full = cli("run", SCENARIO, *RUN_SETS, "--format", "json")
    assert full.returncode == 0, full.stderr
    assert "flow_sample" not in json.loads(full.stdout)
    for sample, gpus in (("su", 256), ("replica", 8)):
        out = cli("run", SCENARIO, *RUN_SETS, "--format", "json", "--flow-sample", sample)
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        assert report["flow_sample"] == {"kind": sample, "stage_gpus_on_fabric": gpus}
        assert report["step_time_s"] > 0
    # Stages inside one unit: nothing to sample, the exact report byte for byte.
    small = cli("run", SCENARIO, "--format", "json")
    assert cli("run", SCENARIO, "--format", "json", "--flow-sample", "su").stdout == small.stdout


def test_plan_json_is_the_same_whatever_the_jobs(cli):
    one = cli("plan", SCENARIO, *PLAN_ARGS, "--flow-sample", "replica", "--jobs", "1")
    two = cli("plan", SCENARIO, *PLAN_ARGS, "--flow-sample", "replica", "--jobs", "2")
    assert one.returncode == 0, one.stderr
    assert one.stdout == two.stdout
    plan = json.loads(one.stdout)
    assert plan["flow_sample"] == "replica"
    assert all(r["flow"]["step_time_s"] > 0 for r in plan["results"]) and len(plan["results"]) == 2
    exact = json.loads(cli("plan", SCENARIO, *PLAN_ARGS, "--jobs", "2").stdout)
    assert "flow_sample" not in exact


def test_shards_of_a_sampled_plan_merge_and_refuse_an_exact_shard(cli, tmp_path):
    args = PLAN_ARGS[:-6] + ["--flow-top", "2"]  # without --top and --format: a shard writes every candidate
    files = {}
    for sample, index in (("replica", 1), ("replica", 2), ("full", 1)):
        out = cli("plan", SCENARIO, *args, "--flow-sample", sample, "--shard", f"{index}/2")
        assert out.returncode == 0, out.stderr
        files[sample, index] = tmp_path / f"{sample}-{index}.json"
        files[sample, index].write_text(out.stdout)
    merged = cli("plan", "--merge", str(files["replica", 1]), str(files["replica", 2]), "--top", "2", "--format", "json")
    local = cli("plan", SCENARIO, *PLAN_ARGS, "--flow-sample", "replica")
    assert merged.returncode == 0, merged.stderr
    a, b = json.loads(merged.stdout), json.loads(local.stdout)
    a.pop("search"), b.pop("search")  # how each searched differs (shards replay every candidate)
    assert a == b and a["flow_sample"] == "replica"
    mixed = cli("plan", "--merge", str(files["full", 1]), str(files["replica", 2]))
    assert mixed.returncode == 2 and mixed.stderr.count("\n") == 1, mixed.stderr
