"""ctwin.size against `ctwin size`: the same report, as a DataFrame, and bad input as InputError."""

import json
import math

import pytest

import ctwin

ARGS = ["--cluster", "topologies/dgx-h100-superpod.json", "--gpus", "256", "--vary", "fabric.oversubscription.leaf=1,2",
        "--workload", "scenarios/default.json", "--parts", "docs/size-example-parts.json", "--jobs", "2"]


def test_size_report_equals_cli_json(cli):
    expected = cli("size", *ARGS, "--format", "json")
    assert expected.returncode == 0, expected.stderr
    frame = ctwin.size("dgx-h100-superpod", 256, vary={"fabric.oversubscription.leaf": [1, 2]},
                       workloads=["scenarios/default.json"], parts="docs/size-example-parts.json", jobs=2)
    assert frame.attrs["report"] == json.loads(expected.stdout)
    assert list(frame["fabric.oversubscription.leaf"]) == ["1", "2"]
    # Capex and power are the sums of their categories, and the thinner fabric costs less.
    for _, row in frame.iterrows():
        assert row["capex"] == pytest.approx(row["capex_servers"] + row["capex_switches"] + row["capex_optics"])
        assert row["power_kW"] == pytest.approx(row["power_servers_kW"] + row["power_switches_kW"] + row["power_optics_kW"])
    assert frame.loc[1, "capex"] < frame.loc[0, "capex"]
    assert frame["pareto"].any()
    assert frame.attrs["currency"] == "USD"
    # Workloads ran on flow with a sample; every priced option has its tie group.
    assert frame.attrs["network"] == "flow" and frame.attrs["report"]["flow_sample"] == "su"
    assert (frame["tie_group"] >= 0).all()
    # Four ECMP hash seeds by default: ranked on their mean, each option's spread a column.
    assert frame.attrs["report"]["ecmp_seeds"] == 4
    for i, row in frame.iterrows():
        assert 0 <= row["hash_spread"] < 0.1 and row["tokens_per_s_mean"] > 0
        assert row["tokens_per_s"] == frame.attrs["report"]["options"][i]["tokens_per_s_by_seed"][0]


def test_unpriced_parts_are_nan_not_zero():
    frame = ctwin.size("dgx-h100-superpod", 64, collectives=False)
    assert math.isnan(frame.loc[0, "capex"]) and math.isnan(frame.loc[0, "capex_optics"])
    assert frame.loc[0, "capex_servers"] == pytest.approx(8 * 270000)


def test_a_fat_tree_of_the_dragonflys_parts_costs_no_more(cli):
    # The dragonfly's 33 groups beside the fat tree of its parts (4:1 leaves), a group per Cray EX
    # cabinet of 128 nodes: the tree needs no more of any part, and the dragonfly's routers get a
    # column. On 1,024 GPUs with 4 nodes a rack the tree's access links need optics, which the
    # dragonfly's do not, and neither row is marked.
    files = ["topologies/slingshot-a100-dragonfly.json", "topologies/slingshot-a100-fat-tree.json"]
    frame = ctwin.size(files[0], 16896, vary={"cluster": files}, collectives=False, servers_per_rack=128)
    assert list(frame["router"]) == [1056, 0]
    assert frame.loc[0, "leaf"] == 0 and frame.loc[1, "leaf"] == 352
    assert frame.loc[1, "costs_no_more_than"] == [0] and frame.loc[0, "costs_no_more_than"] == []
    expected = cli("size", "--cluster", files[0], "--gpus", "16896", "--vary", "cluster=" + ",".join(files),
                   "--no-collectives", "--servers-per-rack", "128", "--format", "json")
    assert frame.attrs["report"] == json.loads(expected.stdout)
    racked_by_four = ctwin.size(files[0], 1024, vary={"cluster": files}, collectives=False)
    assert all(marks == [] for marks in racked_by_four["costs_no_more_than"])


def test_pue_and_flops_per_watt(cli):
    frame = ctwin.size("dgx-h100-superpod", 64, workloads=["scenarios/default.json"], network="analytical", scales=1,
                       collectives=False, pue=1.25)
    assert frame.loc[0, "facility_power_kW"] == pytest.approx(1.25 * frame.loc[0, "power_kW"])
    assert frame.loc[0, "gflops_per_watt"] > 0
    expected = cli("size", "--cluster", "dgx-h100-superpod", "--gpus", "64", "--workload", "scenarios/default.json",
                   "--network", "analytical", "--scales", "1", "--no-collectives", "--pue", "1.25", "--format", "json")
    assert frame.attrs["report"] == json.loads(expected.stdout)
    with pytest.raises(ctwin.InputError, match="pue"):
        ctwin.size("dgx-h100-superpod", 64, pue=0.5)


def test_bad_input_names_it():
    with pytest.raises(ctwin.InputError, match="colour"):
        ctwin.size("dgx-h100-superpod", 64, vary={"fabric.colour": ["red"]})
    with pytest.raises(ctwin.InputError, match="jobs"):
        ctwin.size("dgx-h100-superpod", 64, jobs=0)
    with pytest.raises(ctwin.InputError, match="ecmp_seeds"):
        ctwin.size("dgx-h100-superpod", 64, ecmp_seeds=0)
    with pytest.raises(ctwin.InputError, match="flow network"):
        ctwin.size("dgx-h100-superpod", 64, workloads=["scenarios/default.json"], network="analytical", ecmp_seeds=2)
    with pytest.raises(ctwin.InputError, match="^vary"):
        ctwin.size("dgx-h100-superpod", 64, vary={"fabric.kind": "top_of_rack"})
