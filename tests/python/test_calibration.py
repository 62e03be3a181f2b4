"""GEMM times and calibrations from Python against the ctwin command: same inputs, same JSON."""

import json

import pandas as pd
import pytest

import ctwin

GEMM_FIT, GEMM_HOLDOUT = "validation/gemm/h200-fit.csv", "validation/gemm/h200-holdout.csv"
LOGS = "validation/nccl/logs/aic-h100_sxm-{}.log"
CLUSTER = "topologies/dgx-h100-superpod.json"


def test_gemm_equals_the_cli(cli):
    one = ctwin.gemm("h100-sxm", m=4096, n=8192, k=4096, dtype="fp8")
    expected = json.loads(cli("gemm", "--gpu", "h100-sxm", "--m", "4096", "--n", "8192", "--k", "4096", "--dtype", "fp8",
                              "--format", "json").stdout)
    assert one.attrs["report"] == expected
    assert one.attrs["gpu"] == expected["gpu"]
    assert list(one.columns) == ["m", "n", "k", "dtype", "time_us", "tflops", "model"]
    # time and rate agree: 2·M·N·K flops in time_us.
    row = one.iloc[0]
    assert row["tflops"] == pytest.approx(2 * 4096 * 8192 * 4096 / (row["time_us"] * 1e-6) / 1e12, rel=1e-9)

    sweep = ctwin.gemm("h200", shapes=GEMM_HOLDOUT)
    expected = json.loads(cli("gemm", "--gpu", "h200", "--shapes", GEMM_HOLDOUT, "--format", "json").stdout)
    assert sweep.to_dict("records") == expected["rows"]
    measured = pd.read_csv(GEMM_HOLDOUT, comment="#")
    assert list(sweep["m"]) == list(measured["m"]) and list(sweep["dtype"]) == list(measured["dtype"])


def test_calibrate_gemm_equals_the_cli_and_writes_the_same_profile(cli, tmp_path):
    result = ctwin.calibrate_gemm(GEMM_FIT, base="h200", output=tmp_path / "py.json", holdout=GEMM_HOLDOUT)
    out = cli("calibrate", "--gemm", GEMM_FIT, "--base", "h200", "--holdout", GEMM_HOLDOUT, "-o",
              str(tmp_path / "py.json"), "--format", "json")
    assert out.returncode == 0, out.stderr
    assert result.to_dict() == json.loads(out.stdout)
    assert result.output == str(tmp_path / "py.json")
    holdout = result.holdout.set_index(["dtype", "shapes"])
    assert holdout.loc[("all", "all"), "count"] == len(pd.read_csv(GEMM_HOLDOUT, comment="#"))
    assert holdout.loc[("all", "all"), "median_abs_error"] == result.to_dict()["holdout"]["overall"]["median_abs_error"]
    # The profile written predicts the held-out shapes with the error the report gives (to the
    # 5 significant digits the file keeps of each efficiency: compute/gemm_table.cpp).
    after = ctwin.gemm(result.output, shapes=GEMM_HOLDOUT)
    measured = pd.read_csv(GEMM_HOLDOUT, comment="#")
    error = (after["time_us"] / measured["time_us"] - 1).abs().median()
    assert error == pytest.approx(holdout.loc[("all", "all"), "median_abs_error"], rel=1e-3)
    assert result.fit.query("dtype == 'all'")["count"].iloc[0] == len(pd.read_csv(GEMM_FIT, comment="#"))


def test_calibrate_nccl_equals_the_cli_and_lists_every_size(cli, tmp_path):
    fit = [LOGS.format("all_reduce-half-8gpu") + "@8", LOGS.format("all_gather-half-8gpu") + "@8"]
    held = [LOGS.format("reduce_scatter-half-8gpu") + "@8"]
    result = ctwin.calibrate_nccl(CLUSTER, fit, output=tmp_path / "c.json", holdout=held)
    out = cli("calibrate", "--cluster", CLUSTER, "--nccl", *fit, "--holdout", *held, "-o", str(tmp_path / "c.json"),
              "--format", "json")
    assert out.returncode == 0, out.stderr
    assert result.to_dict() == json.loads(out.stdout)
    assert json.loads((tmp_path / "c.json").read_text()) == json.loads(out.stdout)
    rows = result.rows
    assert len(rows) == sum(len(ctwin.read_nccl_log(p.split("@")[0])) for p in fit + held)
    report = result.to_dict()["fit"]
    for held_out, before, after in ((False, "fit_before", "fit_after"), (True, "holdout_before", "holdout_after")):
        part = rows[rows["held_out"] == held_out]
        assert part["default_error"].abs().median() == pytest.approx(report[before]["median_abs_error"], rel=1e-12)
        assert part["calibrated_error"].abs().median() == pytest.approx(report[after]["median_abs_error"], rel=1e-12)
        ratio = part["calibrated_busbw_GBps"] / part["measured_busbw_GBps"] - 1
        assert ratio.to_numpy() == pytest.approx(part["calibrated_error"].to_numpy(), rel=1e-9, abs=1e-12)
    assert list(result.holdout["log"]) == [held[0].split("@")[0]]
    # `ctwin calibrate --nccl --rows` lists the same sizes.
    listed = cli("calibrate", "--cluster", CLUSTER, "--nccl", *fit, "--holdout", *held, "-o", str(tmp_path / "d.json"),
                 "--rows", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["rows"] == rows.to_dict("records")
    refused = cli("calibrate", "--gemm", GEMM_FIT, "--base", "h200", "-o", str(tmp_path / "e.json"), "--rows")
    assert refused.returncode == 2 and "--rows" in refused.stderr
    assert set(result.parameters.columns) >= {"name", "default", "fitted", "identified"}
    # The calibration file feeds collective(): the calibrated prediction of the held-out log.
    table = ctwin.collective(CLUSTER, 8, op="reduce_scatter", begin="1M", end="1M", dtype="half",
                             calibration=result.output)
    row = rows[(rows["held_out"]) & (rows["size_bytes"] == 2**20)].iloc[0]
    assert table["busbw_GBps"].iloc[0] == pytest.approx(row["calibrated_busbw_GBps"], rel=0.02)


def test_read_nccl_log_gives_the_printed_rows():
    frame = ctwin.read_nccl_log(LOGS.format("all_reduce-half-8gpu"))
    assert frame.attrs["op"] == "all_reduce" and frame.attrs["ranks"] is None
    assert frame["size_bytes"].iloc[0] == 512 and frame["time_us"].iloc[0] == 15.59
    assert frame["busbw_GBps"].iloc[-1] == 445.049
    assert frame["in_place_time_us"].isna().all()
    assert (frame["size_bytes"].diff().dropna() > 0).all()


def test_bad_input_raises_input_error_naming_the_field(tmp_path):
    cases = [
        (lambda: ctwin.gemm("h100-sxm", m=0, n=1, k=1), "m"),
        (lambda: ctwin.gemm("h100-sxm", m=1, n=1, k=1, dtype="int3"), "dtype"),
        (lambda: ctwin.gemm("no-such-gpu", m=1, n=1, k=1), "gpu"),
        (lambda: ctwin.gemm("h100-sxm", m=1, n=1, k=1, shapes=GEMM_FIT), "shapes"),
        (lambda: ctwin.calibrate_gemm(GEMM_FIT, base="no-such-gpu", output=tmp_path / "x.json"), "base"),
        (lambda: ctwin.calibrate_nccl(CLUSTER, [], output=tmp_path / "x.json"), "logs"),
        (lambda: ctwin.calibrate_nccl(CLUSTER, [LOGS.format("all_reduce-half-8gpu") + "@8"], output=tmp_path / "x.json",
                                      algorithm="tree2"), "algorithm"),
        (lambda: ctwin.calibrate_nccl(CLUSTER, [LOGS.format("all_reduce-half-8gpu") + "@8"], output=tmp_path / "x.json",
                                      network="ns3"), "network"),
    ]
    for call, field in cases:
        with pytest.raises(ctwin.InputError) as raised:
            call()
        assert raised.value.file == field, (field, str(raised.value))
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.calibrate_gemm("validation/gemm/no-such.csv", base="h200", output=tmp_path / "x.json")
    assert "no-such.csv" in raised.value.file
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.read_nccl_log(GEMM_FIT)
    assert raised.value.file.endswith("h200-fit.csv")


def test_layer_equals_the_cli(cli, tmp_path):
    result = ctwin.layer("llama3-8b", gpu="h100-sxm", seq=8192, tp=2, recompute="selective")
    expected = json.loads(cli("layer", "--model", "llama3-8b", "--gpu", "h100-sxm", "--seq", "8192", "--tp", "2",
                              "--recompute", "selective", "--format", "json").stdout)
    assert result.to_dict() == expected
    assert result.kernels["forward_us"].sum() == pytest.approx(result.forward_ms * 1e3, rel=1e-9)
    assert result.backward_ms > result.forward_ms

    measured = tmp_path / "layers.json"
    measured.write_text(json.dumps({"gpu": "NVIDIA H100 80GB HBM3", "rows": [
        {"model": "llama3-8b", "seq_len": 8192, "micro_batch": 1, "precision": "bf16", "phase": "hot",
         "forward_ms": 8.0, "backward_ms": 16.0}]}))
    compared = ctwin.layer(measured=measured, gpu="h100-sxm")
    expected = json.loads(cli("layer", "--measured", str(measured), "--gpu", "h100-sxm", "--format", "json").stdout)
    assert compared.to_dict() == expected
    row = compared.rows.iloc[0]
    assert row["forward_error"] == pytest.approx(row["predicted_forward_ms"] / 8.0 - 1, rel=1e-12)

    # The eager stack's kernels (docs/compute.md "The non-GEMM kernel model"), as the CLI prints them.
    eager = ctwin.layer("llama3-8b", gpu="models/gpus/calibrated/gemm/h100-sxm-nongemm.json", stack="pytorch-eager")
    expected = json.loads(cli("layer", "--model", "llama3-8b", "--gpu", "models/gpus/calibrated/gemm/h100-sxm-nongemm.json",
                              "--stack", "pytorch-eager", "--format", "json").stdout)
    assert eager.to_dict() == expected
    assert "grad_accumulate" in set(eager.kernels["name"])

    with pytest.raises(ctwin.InputError) as raised:
        ctwin.layer(gpu="h100-sxm")
    assert raised.value.file == "model"
    with pytest.raises(ctwin.InputError):
        ctwin.layer("llama3-8b", layer=99)
    with pytest.raises(ctwin.InputError):
        ctwin.layer("llama3-8b", gpu="no-such-gpu")


def test_validate_nccl_equals_the_cli(cli):
    frame = ctwin.validate("nccl", only=["aic-a100_sxm-all_reduce", "nccltests-290"], calibrated=True,
                           network="analytical")
    expected = json.loads(cli("validate", "--only", "aic-a100_sxm-all_reduce", "nccltests-290", "--calibrated",
                              "--network", "analytical", "--format", "json").stdout)
    assert frame.attrs["report"] == expected
    measured = [s for s in expected["setups"] if "rows" in s]
    assert len(frame[~frame["calibrated"]]) == sum(len(s["rows"]) for s in measured)
    assert len(frame[frame["calibrated"]]) == sum(len(s["calibrated_rows"]) for s in measured)
    ratio = frame["predicted_busbw_GBps"] / frame["measured_busbw_GBps"] - 1
    assert ratio.to_numpy() == pytest.approx(frame["error"].to_numpy(), rel=1e-9, abs=1e-12)
    # Rows of a log are the sizes nccl-tests printed.
    log = ctwin.read_nccl_log(LOGS.format("all_reduce-half-8gpu").replace("h100", "a100"))
    one = frame[(frame["setup"] == "aic-a100_sxm-all_reduce-half-8gpu") & ~frame["calibrated"]]
    assert list(one["size_bytes"]) == list(log["size_bytes"])
    # The library's group medians are those of the rows it returned.
    for name, group in frame.attrs["groups"].items():
        rows = frame[(frame["group"] + " (" + frame["role"] + ")" == name) & ~frame["calibrated"]]
        large = rows[rows["size_bytes"] >= 1 << 20]["error"].abs()
        assert group["large"]["rows"] == len(large)
        if len(large):
            assert group["large"]["median_abs_error"] == pytest.approx(large.median(), rel=1e-12)
            assert group["large"]["max_abs_error"] == pytest.approx(large.max(), rel=1e-12)

    with pytest.raises(ctwin.InputError) as raised:
        ctwin.validate(role="maybe")
    assert raised.value.file == "role"
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.validate(only="no-such-setup")
    assert raised.value.file == "only"
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.validate("speed")
    assert raised.value.file == "kind"


def test_validate_scaling_equals_the_cli(cli):
    frame = ctwin.validate("scaling", network="analytical")
    expected = json.loads(cli("validate", "--scaling", "--network", "analytical", "--format", "json").stdout)
    assert frame.attrs["report"] == expected
    assert len(frame) == sum(len(study["measured"]) for study in expected["studies"])
    assert (frame["predicted_mfu"] / frame["measured_mfu"] - 1).to_numpy() == pytest.approx(frame["error"].to_numpy())
    for study in expected["studies"]:
        assert frame.attrs["studies"][study["id"]]["trend_reproduced"] == study["trend_reproduced"]


def test_validate_training_equals_the_cli(cli):
    runs = ["nemo2407-llama2-7b", "torchtitan-llama31-8b-8gpu"]
    frame = ctwin.validate("training", only=runs, network="analytical", jobs=2)
    expected = json.loads(cli("validate", "--training", "--only", *runs, "--network", "analytical", "--format",
                              "json").stdout)
    assert frame.attrs["report"] == expected
    assert list(frame["id"]) == [c["id"] for c in expected["cases"]]
    assert (frame["predicted"] / frame["measured"] - 1).to_numpy() == pytest.approx(frame["error"].to_numpy(), rel=1e-9)
    assert frame.attrs["summary"]["count"] == len(frame)
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.validate("training", only="no-such-run", network="analytical")
    assert raised.value.file == "only"
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.validate("training", profiles="no-such-folder", network="analytical")
    assert raised.value.file == "profiles"


def test_calibrate_layers_recovers_a_known_scale_and_equals_the_cli(cli, tmp_path):
    # Layer times 1.2x what the twin predicts on GB200: the fit must find 1.2 (GB200 borrows
    # B200's GEMM table, which the written profile then carries itself).
    plain = ctwin.layer("llama3-8b", gpu="gb200", seq=8192)
    rows = [{"model": "llama3-8b", "seq_len": 8192, "micro_batch": 1, "precision": "bf16", "phase": "hot",
             "forward_ms": 1.2 * plain.forward_ms, "backward_ms": 1.2 * plain.backward_ms}]
    measured = tmp_path / "layers.json"
    measured.write_text(json.dumps({"gpu": "synthetic", "rows": rows}))
    held = tmp_path / "held.json"
    held.write_text(json.dumps({"gpu": "synthetic", "rows": [dict(rows[0], seq_len=4096, forward_ms=1.0,
                                                                  backward_ms=2.0)]}))
    result = ctwin.calibrate_layers(measured, base="gb200", output=tmp_path / "py.json", holdout=held)
    out = cli("calibrate", "--layers", str(measured), "--base", "gb200", "--holdout", str(held), "-o",
              str(tmp_path / "py.json"), "--format", "json")
    assert out.returncode == 0, out.stderr
    assert result.to_dict() == json.loads(out.stdout)
    assert result.training_time_scale == pytest.approx(1.2, rel=1e-5)
    assert result.fit["error"].abs().max() < 1e-5
    assert list(result.holdout["seq_len"]) == [4096]
    assert result.holdout["error"].abs().median() == pytest.approx(result.holdout_median_abs_error, rel=1e-12)
    scaled = ctwin.layer("llama3-8b", gpu=result.output, seq=8192)
    assert scaled.forward_ms + scaled.backward_ms == pytest.approx(1.2 * (plain.forward_ms + plain.backward_ms),
                                                                   rel=1e-4)
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.calibrate_layers(measured, base="no-such-gpu", output=tmp_path / "x.json")
    assert raised.value.file == "base"


def test_calibrate_training_equals_the_cli_and_its_rows_are_the_fit(cli, tmp_path):
    runs = ["nemo2407-llama2", "nemo2407-gpt3-5b"]
    result = ctwin.calibrate_training("validation/training/cases.json", base="h100-sxm", output=tmp_path / "t.json",
                                      only=runs, network="analytical", jobs=2)
    out = cli("calibrate", "--training", "validation/training/cases.json", "--base", "h100-sxm", "--only", *runs,
              "--network", "analytical", "-o", str(tmp_path / "t.json"), "--format", "json")
    assert out.returncode == 0, out.stderr
    assert result.to_dict() == json.loads(out.stdout)
    assert len(result.fit) == result.fitted_runs
    assert result.fit["error_fitted"].abs().median() == pytest.approx(result.fit_median_abs_error, rel=1e-12)
    # The scale multiplies compute time, so a scale above 1 lowers every predicted throughput.
    assert result.training_time_scale > 1
    assert (result.fit["predicted_fitted"] < result.fit["predicted_base"]).all()
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.calibrate_training("validation/training/cases.json", base="h100-sxm", output=tmp_path / "x.json",
                                 only="no-such-run", network="analytical")
    assert raised.value.file == "cases"


def test_validate_training_calibrated_equals_the_cli(cli):
    # Three H100 dense runs from two sources: each is fitted on the other two (leave one out)
    # and on the runs of the other source.
    runs = ["nemo2407-llama2-7b", "nemo2407-llama3-8b", "mbridge-25.11-llama38b-dgx-h100"]
    frame = ctwin.validate("training", only=runs, network="analytical", calibrated=True, jobs=2)
    expected = json.loads(cli("validate", "--training", "--calibrated", "--only", *runs, "--network", "analytical",
                              "--format", "json").stdout)
    assert frame.attrs["report"] == expected
    assert list(frame["id"]) == [c["id"] for c in expected["cases"]]
    assert len(frame) == 3
    assert frame["error_calibrated"].notna().all()
    assert (frame["predicted_calibrated"] / frame["measured"] - 1).to_numpy() == pytest.approx(
        frame["error_calibrated"].to_numpy(), rel=1e-9)
    assert (frame["fitted_on_runs"] == 2).all()
    every = frame.attrs["summary"]["every_run"]["all"]
    assert every["calibrated"]["count"] == 3
    assert every["calibrated"]["median_abs_error"] == pytest.approx(frame["error_calibrated"].abs().median())
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.validate("training", only=runs, network="analytical", calibrated=True, profiles="models/gpus/calibrated")
    assert raised.value.file == "profiles"
