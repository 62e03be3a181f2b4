#!/usr/bin/python3
"""Writes cases.json: every published run of training_runs.json as a ctwin scenario with its
measured metric, or as not expressible with the reason; and scaling.json: the runs that form a
published scaling curve, as one study for `ctwin validate --scaling`. Standard library only;
deterministic.

Run from anywhere: /usr/bin/python3 validation/training/make_cases.py

Nothing here is fitted to the measurements: settings the sources do not give are the framework's
documented defaults of the time, and each such choice is listed in the case's `assumptions`.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNS = os.path.join(HERE, "training_runs.json")
OUT = os.path.join(HERE, "cases.json")
SCALING_OUT = os.path.join(HERE, "scaling.json")

A100 = "topologies/dgx-a100-superpod.json"
H100 = "topologies/dgx-h100-superpod.json"
B200 = "topologies/dgx-b200-superpod.json"
JEAN_ZAY = "topologies/jean-zay-a100-opa.json"
GB200 = "topologies/gb200-nvl72.json"
GB300 = "topologies/gb300-nvl72.json"
# torchtitan's Grand Teton hosts: 8 NVLink-connected H100 per host, "backend RDMA network with 400 Gb/s per
# GPU" (benchmarks/llama3_h100_202412_torchtitan.md); ctwin's 400 GbE-per-GPU RoCE fabric carries that rate.
TETON = "topologies/hgx-h100-roce.json"
TETON_GPU = "h100-sxm-96gb-hbm2e"

GPT2_VOCAB = 50257  # GPT-2 BPE, as in models/llm/gpt3-175b.json
LLAMA2_VOCAB = 32000  # Touvron et al. 2023 (Llama 2), section 2.2


def source_text(run):
    s = run["source"]
    if "primary" in s:
        return s["primary"]
    parts = [s.get("repo", ""), s.get("path", "")]
    if s.get("commit"):
        parts.append("@" + s["commit"])
    if s.get("release"):
        parts.append("(" + s["release"] + ")")
    if s.get("table"):
        parts.append(s["table"])
    return " ".join(p for p in parts if p)


def gpt_model(name, layers, hidden, heads, vocab, seq, sources):
    """A Megatron GPT: 4h MLP with GeLU, LayerNorm, biases, learned positions, tied embeddings."""
    return {
        "name": name,
        "sources": sources,
        "layers": layers,
        "hidden": hidden,
        "ffn_hidden": 4 * hidden,
        "heads": heads,
        "kv_heads": heads,
        "vocab": vocab,
        "activation": "gelu",
        "tied_embeddings": True,
        "norm": "layernorm",
        "bias": "all",
        "position_embedding": "learned",
        "max_positions": seq,
        "dropout": True,
    }


def llama2_13b(arch):
    return {
        "name": "Llama 2 13B",
        "sources": [arch["source"], "Touvron et al., Llama 2, arXiv:2307.09288, section 2.2: 32k-token vocabulary"],
        "layers": arch["layers"],
        "hidden": arch["hidden"],
        "ffn_hidden": arch["ffn_hidden"],
        "heads": arch["heads"],
        "kv_heads": arch["kv_heads"],
        "vocab": LLAMA2_VOCAB,
        "activation": "swiglu",
        "tied_embeddings": False,
    }


def scenario(model, cluster, gpus, seq, mb, gbs, precision, tp, pp, vpp, dp, recompute, sp, dist_opt, zero,
             grad_overlap=True, gpu=None, cp=1, ep=1):
    s = {
        "model": model,
        "cluster": cluster,
        "gpus": gpus,
        "training": {"seq_len": seq, "global_batch": gbs, "micro_batch": mb, "precision": precision},
        "parallel": {
            "tp": tp, "pp": pp, "vpp": vpp, "cp": cp, "ep": ep, "dp": dp,
            "sequence_parallel": sp, "distributed_optimizer": dist_opt, "zero": zero,
            "recompute": recompute, "schedule": "interleaved" if vpp > 1 else "1f1b",
        },
        "overlap": {"dp_grad_reduce": grad_overlap, "dp_param_gather": True, "tp_comm": False, "pp_p2p": True},
        "network": "flow",
        "calibration": None,
    }
    if gpu is not None:
        s["gpu"] = gpu
    if cp > 1:
        # TransformerEngine's default cp_comm_type, the one Megatron-Core passes unless told otherwise.
        s["parallel"]["cp_comm"] = "p2p"
    return s


def case(run, metric, value, conversion, assumptions, scen):
    return {
        "id": run["id"],
        "group": run["group"],
        "source": source_text(run),
        "measured": {"metric": metric, "value": value, "conversion": conversion},
        "assumptions": assumptions,
        "scenario": scen,
    }


def sc21(run):
    m, p = run["model"], run["parallel"]
    model = gpt_model(m["name"], m["layers"], m["hidden"], m["heads"], m["vocab"], m["seq_len"],
                      [source_text(run), "examples/sc21/run_table_1.sh + CONFIG.sh (heads, TP, PP, batch)"])
    # Megatron-LM's "local" DDP (2021) all-reduces after the backward; torch DDP overlaps it.
    overlap = p["ddp_impl"] == "torch"
    scen = scenario(model, A100, run["hardware"]["num_gpus"], m["seq_len"], p["micro_batch"], p["global_batch"],
                    "fp16", p["tp"], p["pp"], p["vpp_chunks"], p["dp"], "full", False, False, 0, overlap)
    # SC'21 (2021) predates FlashAttention (Dao et al., 2022): Megatron-LM computed the s x s scores
    # with a GEMM, its fused scale-mask-softmax, dropout and a second GEMM.
    scen["training"]["attention"] = "unfused"
    return case(run, "hardware_tflops_per_gpu", run["measured"]["tflops_per_gpu"],
                "as published: hardware FLOPs with full recompute, 96Bslh^2(1 + s/6h + V/16lh) per step "
                "(SC'21 eq. 3) over step time and GPUs",
                ["ffn 4h (standard GPT, not stated)", "no sequence parallelism, no distributed optimizer (2021)",
                 "unfused attention (no FlashAttention in 2021)",
                 "dp grad all-reduce overlapped only with ddp_impl torch"], scen)


# Userbuffers settings (overlap.tp_comm_config) as the recipes write them.
def _ring(num_sm=1, margin=False):
    return {"method": "ring_exchange", "num_sm": num_sm, "set_sm_margin": margin}


def _bulk(num_sm):
    return {"method": "bulk", "num_sm": num_sm, "set_sm_margin": False}


def _pipeline(num_sm):
    return {"method": "pipeline", "num_sm": num_sm, "num_splits": 4, "set_sm_margin": True}


def _userbuffers(qkv_dgrad, qkv_wgrad, fc1_dgrad, fc1_wgrad, proj_fprop=None, fc2_fprop=None):
    return {"qkv_dgrad": _bulk(qkv_dgrad), "qkv_wgrad": _bulk(qkv_wgrad), "fc1_dgrad": _bulk(fc1_dgrad),
            "fc1_wgrad": _bulk(fc1_wgrad), "qkv_fprop": _ring(), "proj_dgrad": _ring(), "fc1_fprop": _ring(),
            "fc2_dgrad": _ring(), "proj_fprop": proj_fprop or _ring(1, True), "fc2_fprop": fc2_fprop or _ring(1, True)}


NEMO_ASSUMPTIONS = [
    "recompute none, distributed optimizer, sequence parallel when tp > 1: NeMo 24.07 performance recipes "
    "(not in the table)",
]
# TP communication overlap as NVIDIA/NeMo-Framework-Launcher 24.07 configures each model
# (launcher_scripts/conf/training/<model>.yaml ub_tp_comm_overlap and its tp_overlap/ub_cfg_*.yaml;
# 'aggregate' is not modelled): run id part -> userbuffers config, or None where the launcher has it off.
NEMO_USERBUFFERS = {
    "gpt3-20b": ("ub_cfg_h100_h6144_tp2_mbs2_seqlen2048", _userbuffers(8, 16, 4, 16, _pipeline(16), _pipeline(24))),
    "llama2-70b": ("ub_cfg_h100_h8192_tp4_mbs1_seqlen4096", _userbuffers(8, 16, 2, 4, _pipeline(24), _pipeline(16))),
    "llama3-70b": ("ub_cfg_h100_h8192_tp4_mbs1_seqlen8192", _userbuffers(4, 24, 2, 4, _pipeline(24), _pipeline(16))),
    "gpt3-175b": None,  # 175b.yaml (tp 4, the table's): ub_tp_comm_overlap False
}
BF16_GRADS_NEMO = ("gradients reduced in bf16 (grad_reduce_in_fp32 false): NeMo's performance scripts set it for "
                   "fp8 runs (scripts/performance/llm/pretrain_gpt3_175b.py: recipe.trainer.plugins."
                   "grad_reduce_in_fp32 = False); the 24.07 recipes' value is not in the table")
BF16_GRADS_MBRIDGE = ("gradients reduced in bf16 (grad_reduce_in_fp32 false): Megatron-Bridge's performance configs "
                      "set cfg.ddp.grad_reduce_in_fp32 = False")
CP_ASSUMPTION = ("context parallelism as TransformerEngine's p2p ring (cp_comm_type default 'p2p'; the recipe's "
                 "value is not in the table)")

TOKENS_CONVERSION = ("tokens/s per GPU, as published (measured directly; the source's model TFLOP/s is this times "
                     "its FLOPs per token, so the error is the TFLOP/s error under one FLOP count)")


def nemo(run, arches):
    m, p = run["model"], run["parallel"]
    name = run["id"]
    assumptions = list(NEMO_ASSUMPTIONS)
    seq = m["seq_len"]
    if "gpt3-175b" in name:
        model = "models/llm/gpt3-175b.json"
    elif "gpt3" in name:
        model = gpt_model(m["name"], m["layers"], m["hidden"], m["heads"], GPT2_VOCAB, seq, [m["source"]])
        assumptions.append("vocab 50257 (GPT-2 BPE, as models/llm/gpt3-175b.json): not in the source")
    elif "llama2-7b" in name:
        model = "models/llm/llama2-7b.json"
    elif "llama2-13b" in name:
        model = llama2_13b(arches["llama2_13b"])
    elif "llama2-70b" in name:
        model = "models/llm/llama2-70b.json"
    elif "llama3-8b" in name:
        model = "models/llm/llama3-8b.json"
    elif "llama3-70b" in name:
        model = "models/llm/llama3-70b.json"
    else:
        raise ValueError(name)
    tp, pp, vp, cp = p["tp"], p["pp"], p["vp"], p.get("cp", 1)
    if cp > 1:
        assumptions.append(CP_ASSUMPTION)
    scen = scenario(model, H100, run["hardware"]["num_gpus"], seq, p["micro_batch"], p["global_batch"], "fp8",
                    tp, pp, vp, p["dp"], "none", tp > 1, True, 0, cp=cp)
    scen["training"]["grad_reduce_in_fp32"] = False
    assumptions.append(BF16_GRADS_NEMO)
    if tp > 1:
        userbuffers = next(v for k, v in NEMO_USERBUFFERS.items() if k in name)
        scen["overlap"]["tp_comm"] = userbuffers is not None
        if userbuffers is not None:
            scen["overlap"]["tp_comm_config"] = userbuffers[1]
        assumptions.append("TP communication overlap %s, as NeMo-Framework-Launcher 24.07's config for the model sets "
                           "it (its split may differ from the table's)"
                           % ("on with userbuffers " + userbuffers[0] if userbuffers else "off"))
    return case(run, "tokens_per_s_per_gpu", run["measured"]["tokens_per_s_per_gpu"], TOKENS_CONVERSION,
                assumptions, scen)


# Megatron-Bridge MoE rows: table name in the run id -> (bundled model file, layers, whether the
# recipe counts the embedding and the loss as pipeline layers).
MBRIDGE_MOE = {
    "qwen330ba3b": ("models/llm/qwen3-30b-a3b.json", 48, False),
    # Megatron-Bridge recipes/qwen/qwen3_moe.py qwen3_235b_a22b_pretrain_config: "Uses
    # account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split".
    "qwen3235ba22b": ("models/llm/qwen3-moe.json", 94, True),
    "deepseekv3": ("models/llm/deepseek-v3.json", 61, False),
    "gptoss120b": ("models/llm/gpt-oss-120b.json", 36, False),
}

# Megatron-Bridge recipes llama31_405b_pretrain_config and qwen3_235b_a22b_pretrain_config set both.
SPLIT_SLOTS_ASSUMPTION = ("embedding and loss each take a layer's slot in the pipeline split "
                          "(account_for_embedding/loss_in_pipeline_split, as Megatron-Bridge's Llama 3.1 405B and "
                          "Qwen3-235B-A22B recipes set them)")

MOE_ASSUMPTIONS = [
    "MoE: alltoall token dispatcher, dropless routing with perfectly balanced experts (the table's runs force-balance "
    "tokens), expert_tp 1, grouped expert GEMMs, no overlap of the EP all-to-all with compute (not in the table)",
]


GPT_OSS_ASSUMPTION = ("GPT-OSS: sliding-window (128) attention on every other layer as a fused kernel over the "
                      "window; its learned attention sinks (one scalar per head) and expert biases are left out, the "
                      "clamped SwiGLU costs what SwiGLU does")


# TP communication overlap as Megatron-Bridge 25.11 runs it (v0.2.1 @ 1c43b39, the tag whose
# docs/performance-summary.md first has the 25.11 tables): recipes/llama/llama3.py turns
# tp_comm_overlap on for Llama 3 70B and 3.1 405B, and scripts/performance/configs/llama3*/ pass the
# userbuffers settings below for fp8 (training/comm_overlap.py); qwen3_llm_pretrain.py turns it off
# for Qwen3-235B-A22B on H100. Rows with tp 1 have no TP collectives.
MBRIDGE_USERBUFFERS = {
    "userbuffers_fp8_h100_h8192_tp4_mbs1_seqlen8192": _userbuffers(4, 24, 2, 4),
    "userbuffers_fp8_h100_h16384_tp8_cp2_mbs1_seqlen8192": _userbuffers(2, 24, 2, 2),
    "userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192": _userbuffers(8, 32, 2, 8),
}


def mbridge_tp_overlap(run_id, gpu, tp, precision):
    """(tp_comm, userbuffers config name or None) for a Megatron-Bridge 25.11 row."""
    if tp == 1 or "qwen3235ba22b" in run_id and "H100" in gpu:
        return False, None
    if precision != "fp8" or not ("llama370b" in run_id or "llama31405b" in run_id):
        return True, None  # TE's defaults (no such row in the 25.11 tables yet)
    if "H100" in gpu:
        name = "h8192_tp4_mbs1" if "llama370b" in run_id else "h16384_tp8_cp2_mbs1"
        return True, "userbuffers_fp8_h100_%s_seqlen8192" % name
    return True, "userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192"


# Megatron-Bridge v0.2.1 (the 25.11 tables' tag) src/megatron/bridge/recipes/deepseek/deepseek_v3.py
# layout_map, for the (pp, vp) pairs it has: DeepSeek-V3's 61 layers with the embedding on the first
# chunk and the loss on the last (the rows are "w/o MTP": no mtp entry). Other pairs get no layout there.
DEEPSEEK_V3_LAYOUTS = {
    (4, 4): "Et*4|(t*4|)*14tL",
}
DEEPSEEK_V3_ASSUMPTIONS = [
    "pipeline layout from Megatron-Bridge v0.2.1 recipes/deepseek/deepseek_v3.py layout_map for this pp x vp "
    "(embedding + 4 layers, 14 chunks of 4, 1 layer + loss)",
    "the recipe's selective recompute of the MoE activation (recompute_modules ['moe_act'], v0.2.1 "
    "workload_base_configs) is not modelled: its memory is counted and its time is not",
    "the hybridep dispatcher and TransformerEngine CUDA graphs of the recipe are not modelled (alltoall dispatcher, "
    "eager launches)",
]


def moe_key(name):
    for key in MBRIDGE_MOE:
        if key in name:
            return key
    return None


def mbridge_precision(run):
    """ctwin precision and the assumption that goes with the table's precision cell."""
    cell = run["training"]["precision"]
    if cell.startswith("BF16"):
        return "bf16", "BF16 as published"
    if cell.startswith("FP8-MX"):
        return "fp8", "FP8-MX (MXFP8, 32-element block scaling) as fp8 GEMMs: no MXFP8 GEMM model of its own"
    return "fp8", "FP8-CS (current scaling) as fp8 GEMMs; the value outside parentheses is FP8-CS"


MBRIDGE_MOE_RUNTIME = ("fused token permutation (moe_permute_fusion, set by Megatron-Bridge's MoE model providers), "
                       "routing balanced (the table: 'MoE runs force-balance tokens (dropless)'), dropless alltoall "
                       "dispatch without CUDA graphs (its device-to-host token-count sync)")


MBRIDGE_STACK = ("software stack %s (models/stacks/): Megatron-Core + Transformer Engine, the table's precision "
                 "recipe, alltoall dispatcher without CUDA graphs")


def mbridge_stack(run):
    cell = run["training"]["precision"]
    recipe = "bf16" if cell.startswith("BF16") else "mxfp8" if cell.startswith("FP8-MX") else "fp8cs"
    return "mcore-te-%s-alltoall" % recipe


MBRIDGE_TOKENDROP = ("token dropping as Megatron-Core's --moe-expert-capacity-factor 1.0 with "
                     "--moe-pad-expert-input-to-capacity (the table names the rows 'tokendrop' and gives no factor: "
                     "assumed)")


def mbridge(run):
    m, p = run["model"], run["parallel"]
    gpu = run["hardware"]["gpu"]
    cluster = {"NVIDIA H100": H100, "NVIDIA B200": B200, "NVIDIA GB200 (NVL72)": GB200,
               "NVIDIA GB300 (NVL72)": GB300}[gpu]
    key = moe_key(run["id"])
    if key is not None:
        model = MBRIDGE_MOE[key][0]
    elif "llama31405b" in run["id"]:
        model = "models/llm/llama3-405b.json"
    else:
        model = "models/llm/llama3-8b.json" if "llama38b" in run["id"] else "models/llm/llama3-70b.json"
    tp, pp, cp, fsdp, ep = int(p["tp"]), int(p["pp"]), int(p["cp"]), int(p["fsdp"]), int(p["ep"])
    vp = 1 if p["vp"] == "n/a" else int(p["vp"])
    gpus = run["hardware"]["num_gpus"]
    dp = gpus // (tp * pp * cp)
    precision, precision_note = mbridge_precision(run)
    assumptions = ["recompute none, sequence parallel when tp > 1: Megatron-Bridge performance recipes (not in the "
                   "table)", precision_note]
    slots = (key is not None and MBRIDGE_MOE[key][2]) or "llama31405b" in run["id"]
    if key is not None:
        assumptions += MOE_ASSUMPTIONS
    if key == "gptoss120b":
        assumptions.append(GPT_OSS_ASSUMPTION)
    layout = DEEPSEEK_V3_LAYOUTS.get((pp, vp)) if key == "deepseekv3" else None
    if layout is not None:
        assumptions += DEEPSEEK_V3_ASSUMPTIONS
    if slots:
        assumptions.append(SPLIT_SLOTS_ASSUMPTION)
    if fsdp > 0:
        assumptions.append("Megatron FSDP as ZeRO-3 over the %d data-parallel GPUs" % fsdp)
    if cp > 1:
        assumptions.append(CP_ASSUMPTION)
    if "GB300" in gpu:
        assumptions.append("GB300 profile uncalibrated (datasheet peaks, default kernel efficiencies); FP8 dense "
                           "peak 5 PFLOPS per GPU as GB200's")
    scen = scenario(model, cluster, gpus, m["seq_len"], int(p["micro_batch"]), int(p["global_batch"]), precision,
                    tp, pp, vp, dp, "none", tp > 1, fsdp == 0, 3 if fsdp > 0 else 0, cp=cp, ep=ep)
    scen["training"]["grad_reduce_in_fp32"] = False
    assumptions.append(BF16_GRADS_MBRIDGE)
    tp_comm, userbuffers = mbridge_tp_overlap(run["id"], gpu, tp, precision)
    if tp > 1:
        scen["overlap"]["tp_comm"] = tp_comm
        if userbuffers is not None:
            scen["overlap"]["tp_comm_config"] = MBRIDGE_USERBUFFERS[userbuffers]
        assumptions.append(
            "TP communication overlap %s as the 25.11 recipe sets it (Megatron-Bridge v0.2.1%s)"
            % ("on" if tp_comm else "off",
               ", userbuffers " + userbuffers if userbuffers else "" if not tp_comm else ", TransformerEngine's defaults"))
    if "FP8-MX" in run["training"]["precision"] and "qwen3235ba22b" in run["id"] and "B200" in gpu and "GB" not in gpu:
        # scripts/performance/configs/qwen3/qwen3_llm_pretrain.py, qwen3_235b_a22b_b200_config.
        scen["overlap"]["dp_param_gather"] = False
        assumptions.append("parameter all-gather not overlapped: the 25.11 B200 fp8_mx recipe turns "
                           "overlap_param_gather off ('keeping this enabled causes NaN grad norm')")
    if slots:
        scen["parallel"]["account_for_embedding_in_pipeline_split"] = True
        scen["parallel"]["account_for_loss_in_pipeline_split"] = True
    if layout is not None:
        scen["parallel"]["pipeline_layout"] = layout
    if key is not None:
        # Megatron-Bridge's MoE model providers (Qwen3 MoE, DeepSeek-V3) set moe_permute_fusion = True, and
        # its performance tables force-balanced routing (the table's note), moe_runtime's default imbalance.
        scen["moe_runtime"] = {"permute_fusion": True}
        assumptions.append(MBRIDGE_MOE_RUNTIME)
        # The software stack (models/stacks/): Megatron-Core + Transformer Engine with the table's
        # precision recipe and the alltoall dispatcher; its fitted costs are judged held out by
        # fit_stack.py (docs/validation.md).
        scen["stack"] = mbridge_stack(run)
        assumptions.append(MBRIDGE_STACK % scen["stack"])
        if "tokendrop" in run["id"]:
            # Token-drop rows: a capacity factor, padded to capacity (no host sync, fixed shapes).
            scen["moe_runtime"].update({"capacity_factor": 1.0, "pad_to_capacity": True})
            assumptions.append(MBRIDGE_TOKENDROP)
    return case(run, "tokens_per_s_per_gpu", run["measured"]["tokens_per_s_per_gpu"], TOKENS_CONVERSION,
                assumptions, scen)


# Megatron-LM's H100 strong scaling (README @ d98e8a64dd): the split, batch and assumptions live in the
# scenario file, so `ctwin scale` on it and these cases run the same job.
STRONG_PREFIX = "megatron-core-h100-strong"
STRONG_SCENARIO = "scenarios/gpt3-177b-h100-strong.json"
# The sizes plotted in images/strong_scaling.png (read off its log axis; only the ends are in the text).
STRONG_SIZES = [96, 144, 288, 576, 1152, 2304, 3072, 4608]
MFU_CONVERSION = ("MFU as published, rounded to whole percents: model FLOPs as Megatron-LM's "
                  "num_floating_point_operations counts them (full s x s attention, no recompute; ctwin's "
                  "model_tflops_per_gpu uses the same count) over H100's 989.4 TFLOP/s dense bf16 peak")


def strong_scaling(run):
    with open(os.path.join(ROOT, STRONG_SCENARIO)) as f:
        scen = json.load(f)
    # A case names its source itself; the scenario's own provenance becomes the case's assumptions.
    assumptions = scen.pop("assumptions")
    del scen["sources"], scen["description"]
    for field, value in (("global_batch", run["parallel"]["global_batch"]), ("seq_len", run["model"]["seq_len"])):
        if scen["training"][field] != value:
            raise ValueError("%s: %s %s in %s, %s in the run" % (run["id"], field, scen["training"][field],
                                                                 STRONG_SCENARIO, value))
    scen["gpus"] = run["hardware"]["num_gpus"]
    return case(run, "mfu", run["measured"]["mfu_pct"] / 100.0, MFU_CONVERSION, assumptions, scen)


def scaling_studies(runs):
    strong = sorted((r for r in runs if r["id"].startswith(STRONG_PREFIX)), key=lambda r: r["hardware"]["num_gpus"])
    measured = [{"run": r["id"], "gpus": r["hardware"]["num_gpus"], "mfu": r["measured"]["mfu_pct"] / 100.0}
                for r in strong]
    return [{
        "id": "megatron-core-h100-strong-177B",
        "group": strong[0]["group"],
        "source": source_text(strong[0]),
        "scenario": STRONG_SCENARIO,
        "gpus": STRONG_SIZES,
        "measured": measured,
        # The README gives 47 % and 42 %: whole percents, so each is known to +-0.5 points.
        "mfu_rounding": 0.005,
    }]


def as_int(cell):
    try:
        return int(str(cell).split()[0])
    except (ValueError, TypeError):
        return None


def mbridge_blocker(run):
    """The reason a Megatron-Bridge row cannot run, or None."""
    p, gpu, name = run["parallel"], run["hardware"]["gpu"], run["id"]
    if "not in table" in run["training"]["precision"]:
        return "precision not in the source table (25.09 archive rows give no precision column)"
    if "(" in str(p.get("cp")):
        return "two configurations in one cell (cp %s): which one was measured is not stated" % p["cp"]
    if "wmtp" in name:
        return ("DeepSeek-V3 with its MTP (multi-token prediction) module: an extra transformer layer and output head "
                "per step that ctwin does not model")
    key = moe_key(name)
    if key == "deepseekv3" and (as_int(p["pp"]), as_int(p["vp"]) or 1) in DEEPSEEK_V3_LAYOUTS:
        return None
    if key is not None:
        _, layers, slots = MBRIDGE_MOE[key]
        stages = as_int(p["pp"]) * (as_int(p["vp"]) or 1)
        if (layers + (2 if slots else 0)) % stages != 0:
            deepseek = (" and Megatron-Bridge v0.2.1's layout_map (the 25.11 recipe) has none for this pp x vp"
                        if key == "deepseekv3" else "")
            return ("uneven pipeline layout: %d layers (%d with the embedding and loss as layers) do not split into "
                    "pp %s x vp %s = %d equal chunks, the run's layout is not in the source%s (ctwin takes one as "
                    "parallel.pipeline_layout, but guessing it would make the case an assumption about placement)"
                    % (layers, layers + 2, p["pp"], p["vp"], stages, deepseek))
    if "405b" in name:
        stages = as_int(p["pp"]) * (as_int(p["vp"]) or 1)
        if (126 + 2) % stages != 0:
            return ("uneven pipeline stages: 126 layers (128 with the embedding and loss as layers) over pp %s x vp "
                    "%s" % (p["pp"], p["vp"]))
    return None


def torchtitan_blocker(run):
    """The reason a torchtitan row cannot run, or None (plain bf16 FSDP without torch.compile)."""
    t = run["training"]
    techniques = t.get("techniques", "")
    reasons = []
    if "torchcompile" in run["id"] or t.get("torch_compile") or "torch.compile" in techniques:
        reasons.append("torch.compile (Inductor fusion of element-wise kernels) is not modelled")
    if "Float8" in techniques or "float8" in t.get("quantization", ""):
        reasons.append("torchao Float8 training (dynamic-scaling casts and amax reductions around fp8 GEMMs) is not "
                       "modelled")
    if "asyncTP" in t.get("tp_mode", ""):
        reasons.append("async TP (micro-pipelined all-gather / reduce-scatter fused with the matmuls) is not modelled")
    if "CP" in techniques:
        reasons.append("PyTorch's context parallelism (SDPA ring attention, allgather rotation) is not TE's; only "
                       "the TE/Megatron kinds are modelled")
    return "; ".join(reasons) if reasons else None


def torchtitan(run):
    """torchtitan's 1D FSDP rows (Table 1 and 3 of its Dec 2024 benchmark): Llama 3.1 8B, bf16, FSDP2."""
    m, p = run["model"], run["parallel"]
    gpus = run["hardware"]["num_gpus"]
    assumptions = [
        "FSDP2 full sharding as ZeRO-3: bf16 parameter all-gathers prefetched per block, fp32 gradient "
        "reduce-scatters (torchtitan's mixed_precision_param bf16 / mixed_precision_reduce fp32 defaults)",
        "one micro-batch per step: local batch %d x %d GPUs = global batch %d (no gradient accumulation)"
        % (p["local_batch"], p["fsdp"], p["global_batch"]),
        "SDPA flash attention, eager mode (no torch.compile)",
        "torchtitan's selective AC is per-op SAC (train_configs/llama3_8b.toml at 9dec370: selective_ac_option "
        "'op'; parallelize_llama.py: every matmul output saved except every second one per block, i.e. wk, wo and "
        "w3 are recomputed, SDPA is saved); ctwin's 'selective' recomputes the attention core instead: about "
        "67 MFLOP per token and layer recomputed where torchtitan recomputes about 160 (wk + wo + w3), so the "
        "prediction omits roughly 5% of the step's FLOPs (optimistic)",
        "H100 96 GB HBM2e at a 500 W power limit with the 700 W SXM5 peaks (the sustained clock at 500 W is not "
        "published): optimistic",
        "backend network as ctwin's 400 GbE-per-GPU rail-optimized RoCE fabric (hgx-h100-roce.json); Meta's "
        "RTSW/CTSW Clos is not rail-optimized",
    ]
    scen = scenario("models/llm/llama3-8b.json", TETON, gpus, m["seq_len"], p["local_batch"], p["global_batch"],
                    "bf16", 1, 1, 1, p["fsdp"], "selective", False, False, 3, gpu=TETON_GPU)
    return case(run, "tokens_per_s_per_gpu", run["measured"]["tokens_per_s_per_gpu"],
                "tokens/s per GPU as published (TPS/GPU read at iteration 90)", assumptions, scen)


def bloom(run):
    m, p, t = run["model"], run["parallel"], run["training"]
    slurm = "train/tr11-176B-ml/tr11-176B-ml.slurm @ 9e64ede"
    model = gpt_model(m["name"], m["layers"], m["hidden"], m["heads"], 250880, m["seq_len"],
                      [source_text(run), slurm + ": --pad-vocab-size-to 250880, --position-embedding-type alibi, "
                       "--embed-layernorm; dropout left at Megatron's 0.1 defaults (README)"])
    model["position_embedding"] = "alibi"
    del model["max_positions"]
    gpus = run["hardware"]["num_gpus"]
    # DeepSpeed's bf16 optimizer keeps its own ZeRO-1-like sharding of the optimizer state over dp
    # (slurm comment); its pipeline engine reduces gradients after the whole schedule.
    scen = scenario(model, JEAN_ZAY, gpus, m["seq_len"], p["micro_batch"], p["global_batch"], t["precision"],
                    p["tp"], p["pp"], 1, p["dp"], "full", False, True, 0, grad_overlap=False)
    scen["training"]["attention"] = "unfused"
    # BF16_Optimizer.step() all-gathers the updated parameter shards before it returns.
    scen["overlap"]["dp_param_gather"] = False
    # --pp-partition-method 'type:transformer|embedding': DeepSpeed balances the 70 transformer layers
    # and the two (tied) embedding layers, 72 / 12 = 6 per stage, so the first and last stage hold 5.
    scen["parallel"]["account_for_embedding_in_pipeline_split"] = True
    scen["parallel"]["account_for_loss_in_pipeline_split"] = True
    tokens_per_s_per_gpu = round(run["measured"]["samples_per_s"] * m["seq_len"] / gpus, 2)
    return case(run, "tokens_per_s_per_gpu", tokens_per_s_per_gpu,
                "samples per second from the logged iteration (19.561) x 2048 tokens / 384 GPUs; the source's "
                "TFLOP/s counts 8 x parameters per token and no attention, so tokens/s is compared",
                ["pipeline split as DeepSpeed's 'type:transformer|embedding' partition balances it: embedding and "
                 "tied output embedding each take a layer's slot (6 per stage, 5 on the first and last)",
                 "the embedding LayerNorm (one norm of b x s x h per micro-batch on the first stage) is not modelled",
                 "DeepSpeed bf16 optimizer as ZeRO-1 (distributed optimizer), fp32 gradient accumulation and "
                 "reduction, reduced after the schedule (DeepSpeed's pipeline engine does not overlap it); the "
                 "updated parameters all-gathered inside the optimizer step, not overlapped with the next forward",
                 "1F1B (DeepSpeed's TrainSchedule), unfused attention with fused softmax (Megatron-DeepSpeed 2022), "
                 "no sequence parallelism",
                 "Jean Zay's node and Omni-Path fabric as in topologies/jean-zay-a100-opa.json (NVSwitch board and "
                 "non-blocking fat tree assumed; InfiniBand protocol costs for OPA)"], scen)


def classify(run, arches):
    """Returns (case, None) or (None, reason)."""
    name, group = run["id"], run["group"]
    if name.startswith("megatron-sc21"):
        return sc21(run), None
    if name.startswith(STRONG_PREFIX):
        return strong_scaling(run), None
    if name.startswith("bloom"):
        return bloom(run), None
    if name.startswith("opt-"):
        return None, "missing fields: TP degree, micro batch and precision split not stated; FSDP with ReLU MLP"
    if name.startswith("torchtitan-trainy"):
        return None, ("torch.compile fusion and float8 FSDP all-gather (torchao) are not modelled; FSDP micro-batching "
                      "(global batch) not stated")
    if name.startswith("torchtitan"):
        reason = torchtitan_blocker(run)
        return (None, reason) if reason else (torchtitan(run), None)
    if name.startswith("nemo2407"):
        if "-sft-" in name or "-lora-" in name:
            return None, "fine-tuning (%s): ctwin run models pre-training only" % ("SFT" if "-sft-" in name else "LoRA")
        if "nemotron" in name:
            return None, ("missing fields: Nemotron vocab not in the source, and its squared-ReLU MLP is neither gelu "
                          "nor swiglu")
        return nemo(run, arches), None
    if name.startswith("mbridge"):
        reason = mbridge_blocker(run)
        return (None, reason) if reason else (mbridge(run), None)
    raise ValueError("no rule for run " + name + " (" + group + ")")


def main():
    with open(RUNS) as f:
        data = json.load(f)
    cases, not_expressible = [], []
    for run in data["runs"]:
        made, reason = classify(run, data["model_architectures"])
        if made is not None:
            cases.append(made)
        else:
            not_expressible.append({"id": run["id"], "group": run["group"], "source": source_text(run),
                                    "reason": reason})
    out = {
        "description": "Published training runs as ctwin scenarios (validation only: nothing is fitted to them). "
                       "Generated by validation/training/make_cases.py from training_runs.json; do not edit.",
        "runs_file": "validation/training/training_runs.json",
        "cases": cases,
        "not_expressible": not_expressible,
    }
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")
    studies = scaling_studies(data["runs"])
    with open(SCALING_OUT, "w") as f:
        json.dump({"description": "Published scaling runs as ctwin scaling studies (validation only: nothing is fitted "
                                  "to them). Generated by validation/training/make_cases.py from training_runs.json; "
                                  "do not edit.",
                   "runs_file": "validation/training/training_runs.json",
                   "studies": studies}, f, indent=1)
        f.write("\n")
    print("%d cases, %d not expressible, %d runs; %d scaling studies" % (len(cases), len(not_expressible),
                                                                         len(data["runs"]), len(studies)))


if __name__ == "__main__":
    main()
