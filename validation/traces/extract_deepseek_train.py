#!/usr/bin/env python3
"""Trims DeepSeek's public training profile (deepseek-ai/profile-data, train.json) to what
`ctwin validate --trace` reads, so the measurement can sit in the repository at a fraction of its size.

Kept: the header (deviceProperties, distributedInfo, traceName), the step and the record_function
ranges (user_annotation), every GPU kernel with its stream, grid and block, and the host launch of
each kernel (cuda_runtime/cuda_driver with its correlation id: a kernel's phase comes from the
range its launch sits in). Dropped: CPU operators, flow arrows, memcpy/memset, the kernels'
occupancy figures. Times and names are copied unchanged.

Usage: extract_deepseek_train.py TRAIN_JSON OUT_JSON   (standard library only)
       extract_deepseek_train.py --totals TRACE_JSON  (kernel microseconds by phase and family, by
       name alone: the figures tests/unit/calibration/dualpipe_trace_test.cpp holds the reader to)
"""
import json
import sys

KERNEL_ARGS = ("device", "stream", "correlation", "grid", "block")


def trimmed(trace):
    events = trace["traceEvents"]
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    launched = {e["args"]["correlation"] for e in kernels}
    kept = []
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat")
        if cat == "user_annotation":
            kept.append({k: e[k] for k in ("ph", "cat", "name", "pid", "tid", "ts", "dur")})
        elif cat in ("cuda_runtime", "cuda_driver") and e.get("args", {}).get("correlation") in launched:
            launch = {k: e[k] for k in ("ph", "cat", "name", "pid", "tid", "ts", "dur")}
            launch["args"] = {"correlation": e["args"]["correlation"]}
            kept.append(launch)
        elif cat == "kernel":
            kernel = {k: e[k] for k in ("ph", "cat", "name", "pid", "tid", "ts", "dur")}
            kernel["args"] = {k: e["args"][k] for k in KERNEL_ARGS if k in e["args"]}
            kept.append(kernel)
    header = {k: trace[k] for k in ("schemaVersion", "deviceProperties", "distributedInfo", "traceName") if k in trace}
    return header, kept


# Kernel families by a word of their name, independent of ctwin's classifier.
FAMILIES = {"deepep": "ep::internode", "flash": "flash", "m_grouped": "m_grouped"}


def totals(trace):
    events = trace["traceEvents"]
    launch = {e["args"]["correlation"]: e["ts"] for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver")}
    ranges = [(e["ts"], e["ts"] + e["dur"], e["name"]) for e in events
              if e.get("cat") == "user_annotation" and e["name"][-3:] in ("(F)", "(B)", "(W)")]
    sums = {}
    for e in events:
        if e.get("cat") != "kernel":
            continue
        t = launch.get(e["args"]["correlation"])
        held = [name for start, end, name in ranges if t is not None and start <= t < end]
        phase = "outside" if not held else ("forward" if held[0].endswith("(F)") else "backward")
        keys = [phase] + [f"{phase} {family}" for family, word in FAMILIES.items() if word in e["name"]]
        for key in keys:
            sums[key] = sums.get(key, 0) + e["dur"]
    return sums


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--totals":
        with open(sys.argv[2], encoding="utf-8") as f:
            for key, us in sorted(totals(json.load(f)).items()):
                print(f"{key:20s} {us:10.0f} us")
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        header, events = trimmed(json.load(f))
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write("{\n")
        for key, value in header.items():
            out.write(f" {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))},\n")
        out.write(' "traceEvents": [\n')
        out.write(",\n".join("  " + json.dumps(e, separators=(",", ":")) for e in events))
        out.write("\n ]\n}\n")


if __name__ == "__main__":
    main()
