"""ctwin.cluster against ctwin cluster: the same JOBS file, the same JSON bytes; a dict is the file."""

import json

import pytest

import ctwin

JOBS = "scenarios/cluster/two-jobs.json"


def test_to_json_is_the_command_bytes_and_a_dict_is_the_file(cli):
    expected = cli("cluster", JOBS, "--steps", "1", "--format", "json")
    assert expected.returncode == 0, expected.stderr
    result = ctwin.cluster(JOBS, steps=1)
    assert result.to_json() + "\n" == expected.stdout
    with open(JOBS, encoding="utf-8") as f:
        document = json.load(f)
    document["steps"] = 1
    assert ctwin.cluster(document).to_dict() == result.to_dict()
    jobs = result.jobs
    assert list(jobs["job"]) == ["a", "b"]
    # The two jobs' DP all-reduces cross the same spines: each slows the other (docs/cluster.md).
    assert (jobs["slowdown"] > 1.0).all()
    assert (jobs["shared_step_s"] >= jobs["alone_step_s"]).all()


def test_bad_input_names_the_field():
    with open(JOBS, encoding="utf-8") as f:
        document = json.load(f)
    document["jobs"][1].pop("placement")
    document["jobs"][1]["nodes"] = [5, 6, 7, 8]
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.cluster(document)
    assert raised.value.file == "<jobs>"
    assert "/jobs/1/nodes/0" in str(raised.value) and "held by job a" in str(raised.value)


def test_compare_policies_is_the_command_bytes(cli):
    expected = cli("cluster", JOBS, "--steps", "1", "--compare-policies", "--format", "json")
    assert expected.returncode == 0, expected.stderr
    result = ctwin.cluster(JOBS, steps=1, compare_policies=True)
    assert result.to_json() + "\n" == expected.stdout
    summary = result.summary
    assert list(summary["policy"]) == ["packed", "spread", "topology_aware", "fragmented"]
    # Job a keeps its node list; b is placed by each policy in turn, and both always fit.
    assert (summary["placed_jobs"] == 2).all()
    assert (summary["utilisation"] <= summary["allocated_share"] + 1e-12).all()
    for policy in result.to_dict()["policies"]:
        assert policy["jobs"][0]["nodes"] == [0, 1, 4, 5]
        assert policy["jobs"][1]["placement"] == policy["policy"]
