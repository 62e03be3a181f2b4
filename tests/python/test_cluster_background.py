"""Background traffic in ctwin.cluster: the same bytes as ctwin cluster; bad input is one line, exit 2."""

import json

import pytest

import ctwin

JOBS = "scenarios/cluster/background.json"


def test_background_is_the_command_bytes(cli):
    expected = cli("cluster", JOBS, "--steps", "1", "--format", "json")
    assert expected.returncode == 0, expected.stderr
    result = ctwin.cluster(JOBS, steps=1)
    assert result.to_json() + "\n" == expected.stdout
    report = result.to_dict()
    assert [s["entry"] for s in report["background"]] == [0, 0, 1, 1]
    for stream in report["background"]:
        assert 0 < stream["achieved_Gbps"] <= stream["rate_Gbps"] * 1.0001
    for job in report["jobs"]:
        assert job["background_slowdown"] >= 1.0
        assert job["alone_with_background"]["step_time_s"] >= job["alone"]["step_time_s"]


def test_bad_rate_is_one_line_naming_the_field(cli, tmp_path):
    with open(JOBS, encoding="utf-8") as f:
        document = json.load(f)
    document["background"][0]["rate"] = "100"
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    out = cli("cluster", str(path))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "/background/0/rate" in out.stderr and "missing unit" in out.stderr
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.cluster(document)
    assert "/background/0/rate" in str(raised.value)
