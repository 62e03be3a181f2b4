"""The planner against published MoE recipes (validation/training/moe_recipes.json): each model is
planned on the recipe's GPUs and batch, with its micro-batch, recompute and cp fixed (as
docs/plan.md's comparison with published practice does); the test asserts that the best splits
keep the MoE rules (EP x TP within the NVLink domain unless no EP within it fits the split,
ZeRO-2/3 only where the distributed optimizer does not fit) and prints where the best split
differs from the recipe. The differences are reported (docs/plan.md, "MoE recipes"), not asserted:
nothing is fitted to the recipes."""

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RECIPES = json.loads((REPO / "validation" / "training" / "moe_recipes.json").read_text())["recipes"]
DOMAIN = 8  # GPUs per NVLink domain of the DGX H100 SuperPOD
COMPARED = ("tp", "pp", "vpp", "ep", "schedule", "zero", "distributed_optimizer")


def plan_of(cli, recipe, tmp_path, *extra):
    scenario = {"model": recipe["model"], "cluster": "topologies/dgx-h100-superpod.json", "gpus": recipe["gpus"],
                "training": recipe["training"], "parallel": {}, "network": "analytical"}
    path = tmp_path / f"{recipe['id']}.json"
    path.write_text(json.dumps(scenario))
    p = recipe["parallel"]
    out = cli("plan", str(path), "--fix", f"training.micro_batch={recipe['training']['micro_batch']}",
              "--fix", f"parallel.recompute={p['recompute']}", "--fix", f"parallel.cp={p['cp']}",
              "--flow-top", "0", "--top", "10", "--format", "json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def differences(recipe, split):
    published = dict(recipe["parallel"])
    published.setdefault("vpp", 1)
    return {k: (published[k], split[k]) for k in COMPARED if k in published and published[k] != split[k]}


def test_best_splits_keep_the_moe_rules_and_their_differences_from_the_recipes_are_reported(cli, tmp_path):
    report = []
    for recipe in RECIPES:
        plan = plan_of(cli, recipe, tmp_path)
        results = plan["results"]
        assert results, recipe["id"]
        shape = lambda s: (s["tp"], s["pp"], s["vpp"], s["cp"], s["pipeline_accounting"], s["micro_batch"],
                           s["recompute"], s["zero"], s["distributed_optimizer"])
        within = {shape(r["split"]) for r in results if r["split"]["ep"] * r["split"]["tp"] <= DOMAIN}
        for r in results:
            s = r["split"]
            # A best split crossing the domain has no twin within it that fits (else moe.ep_domain removed it).
            if s["ep"] * s["tp"] > DOMAIN:
                assert shape(s) not in within, (recipe["id"], s)
            if s["zero"] >= 2:
                twin = cli("plan", str(tmp_path / f"{recipe['id']}.json"), "--rank-of",
                           ",".join(f"{k}={s[k] if not isinstance(s[k], bool) else str(s[k]).lower()}"
                                    for k in ("tp", "pp", "vpp", "cp", "ep", "micro_batch", "recompute"))
                           + ",zero=1,distributed_optimizer=true", "--format", "json")
                assert twin.returncode == 0, twin.stderr
                assert json.loads(twin.stdout)["not_valid"] is not None, (recipe["id"], s)
        best = results[0]["split"]
        report.append((recipe["id"], differences(recipe, best), best, plan["calibrated"]["compute"]))
    print("\nplanner's best split against published MoE recipes (analytical, uncalibrated):")
    for recipe_id, diff, best, _ in report:
        shown = ", ".join(f"{k} {a} -> {b}" for k, (a, b) in diff.items()) or "same"
        print(f"  {recipe_id}: {shown} (best: tp {best['tp']} pp {best['pp']} vpp {best['vpp']} ep {best['ep']} "
              f"zero {best['zero']}{' distopt' if best['distributed_optimizer'] else ''})")
