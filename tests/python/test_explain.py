"""ctwin.explain against `ctwin explain`: the same report, one row per link, each link `ctwin run` of
its scenario to the byte, and bad input as InputError."""

import json

import pytest

import ctwin

CHAIN = "scenarios/explain/seed000-40x.json"


@pytest.fixture(scope="module")
def report(cli):
    done = cli("explain", CHAIN, "--format", "json")  # --reverse: the C++ tests (CI time)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_explain_equals_cli_json(report):
    frame = ctwin.explain(CHAIN)
    assert frame.attrs["report"] == report
    assert list(frame["label"])[0] == "base" and len(frame) == 9
    # The gains multiply to the whole; the shares add to one.
    assert frame["gain"].prod() == pytest.approx(frame.attrs["total_gain"], rel=1e-12)
    assert frame["share"].sum() == pytest.approx(1.0, abs=1e-12)
    # The chain measures tokens/s times goodput; goodput and linearity are fractions.
    assert report["measure"] == "goodput_tokens_per_s"
    assert list(frame["throughput"]) == [t * g for t, g in zip(frame["tokens_per_s"], frame["goodput"])]
    assert frame["goodput"].between(0, 1).all() and frame["linearity"].between(0, 1.05).all()
    assert frame["gpu_utilisation"].between(0, 1).all()


def test_each_link_is_ctwin_run_to_the_byte(report, cli):
    for link in report["links"]:
        sets = [a for a in link["set"] if not a.startswith("goodput.")]
        args = [item for a in sets for item in ("--set", a)]
        run = cli("run", report["base"], *args, "--format", "json")
        assert run.returncode == 0, run.stderr
        step = json.loads(run.stdout)
        for key in ("step_time_s", "tokens_per_s", "mfu", "comm_ratio", "fits_memory"):
            assert json.dumps(link[key]) == json.dumps(step[key]), (link["label"], key)
        assert json.dumps(link["bubble_s"]) == json.dumps(step["breakdown"]["bubble_s"]), link["label"]
        assert json.dumps(link["exposed_io_s"]) == json.dumps(step["breakdown"]["exposed_io_s"]), link["label"]


def test_bad_chain_names_it(tmp_path):
    chain = tmp_path / "chain.json"
    chain.write_text(json.dumps({"name": "x", "base": "scenarios/default.json", "factors": []}))
    with pytest.raises(ctwin.InputError, match="/factors"):
        ctwin.explain(chain)
    with pytest.raises(ctwin.InputError, match="reverse"):
        ctwin.explain(CHAIN, reverse="yes")
    chain.write_text(json.dumps({"name": "x", "base": "scenarios/default.json", "goodput": {"days": 1},
                                 "factors": [{"label": "a", "set": ["goodput.colour=1"]}]}))
    with pytest.raises(ctwin.InputError, match="/factors/0/set/colour: unknown field"):
        ctwin.explain(chain)


def test_issue_40_bad_input_is_one_line_and_exit_2(cli, tmp_path):
    chain = tmp_path / "chain.json"
    chain.write_text(json.dumps({"name": "x", "base": "scenarios/default.json",
                                 "factors": [{"label": "odd", "set": ["parallel.colour=4"]}]}))
    cases = {
        "/storage/tiers/0/read_per_server": ("fabric", "--cluster", "topologies/storage/dgx-h100-superpod-rapidfs.json",
                                             "--gpus", "64", "--set", "storage.tiers.0.read_per_server=15"),
        "/data/sample_bytes": ("run", "scenarios/io/llama3-70b-rapidfs.json", "--network", "analytical",
                               "--set", "data.bytes_per_token=null", "--set", "data.sample_bytes=0B"),
        "/parallel/colour": ("explain", str(chain)),
    }
    for field, args in cases.items():
        done = cli(*args)
        assert done.returncode == 2, (field, done.stderr)
        assert done.stderr.count("\n") == 1 and field in done.stderr, done.stderr
