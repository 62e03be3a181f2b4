"""ctwin.explain against `ctwin explain`: the same report, one row per link, and bad input as InputError."""

import json

import pytest

import ctwin

CHAIN = "scenarios/explain/seed000-40x.json"


def test_explain_equals_cli_json(cli):
    expected = cli("explain", CHAIN, "--reverse", "--format", "json")
    assert expected.returncode == 0, expected.stderr
    frame = ctwin.explain(CHAIN, reverse=True)
    assert frame.attrs["report"] == json.loads(expected.stdout)
    assert list(frame["label"])[0] == "base" and len(frame) == 6
    # The gains multiply to the whole; the shares add to one, in either order.
    assert frame["gain"].prod() == pytest.approx(frame.attrs["total_gain"], rel=1e-12)
    assert frame["share"].sum() == pytest.approx(1.0, abs=1e-12)
    assert frame["share_reversed"].sum() == pytest.approx(1.0, abs=1e-12)


def test_bad_chain_names_it(tmp_path):
    chain = tmp_path / "chain.json"
    chain.write_text(json.dumps({"name": "x", "base": "scenarios/default.json", "factors": []}))
    with pytest.raises(ctwin.InputError, match="/factors"):
        ctwin.explain(chain)
    with pytest.raises(ctwin.InputError, match="reverse"):
        ctwin.explain(CHAIN, reverse="yes")
