#!/usr/bin/python3
"""Turns the shared GEMM measurements (gemm.json) into the CSVs `ctwin calibrate` reads.

For each GPU with an aiconfigurator trtllm sweep it writes <gpu>-fit.csv and <gpu>-holdout.csv
(m,n,k,dtype,time_us), split by a hash of the shape so the split never changes between runs;
and mamf.csv with the best-shape rows of stas00/ml-engineering, kept out of every fit as the
independent check. Standard library only.

Usage: convert_gemm_json.py [path/to/gemm.json] [output folder]
"""

import csv
import hashlib
import json
import sys
from pathlib import Path

# aiconfigurator source id -> ctwin profile name. One framework per GPU (trtllm: the only one
# with fp8 as well as bf16); the vLLM sweeps of the same GPUs are not used.
SWEEPS = {
    "aic-gemm-a100_sxm-trtllm-1.0.0": "a100-sxm-80gb",
    "aic-gemm-h100_sxm-trtllm-1.3.0rc20": "h100-sxm",
    "aic-gemm-b200_sxm-trtllm-1.3.0rc20": "b200",
    "aic-gemm-l40s-trtllm-1.3.0rc20": "l40s",
}
# mle-mamf GPU names -> ctwin profile names, for the GPUs whose profile has a measured table or
# borrows one from the same silicon (gb200 from b200); B300 and the A100 PCIe have no profile.
MAMF_GPUS = {"NVIDIA A100 SXM": "a100-sxm-80gb", "NVIDIA H100 SXM": "h100-sxm", "NVIDIA B200 SXM": "b200",
             "NVIDIA GB200 SXM": "gb200"}
# aiconfigurator spells dtypes as PyTorch does; ctwin reads the short names.
DTYPES = {"bfloat16": "bf16", "bf16": "bf16", "fp8": "fp8", "fp8_e4m3fn": "fp8"}
HOLDOUT_PERCENT = 30


def is_holdout(m, n, k, dtype):
    """About 30% of shapes, chosen by SHA-256 so that any machine gets the same split."""
    digest = hashlib.sha256(f"{m},{n},{k},{dtype}".encode()).digest()
    return digest[0] * 100 // 256 < HOLDOUT_PERCENT


def write_csv(path, header, rows):
    with open(path, "w", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def main():
    source = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/validation-data/gemm.json")
    folder = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).parent)
    records = json.loads(source.read_text())["records"]

    sweeps = {name: {"fit": [], "holdout": []} for name in SWEEPS.values()}
    mamf = []
    for record in records:
        dtype = DTYPES.get(record["dtype"])
        if dtype is None:
            raise SystemExit(f"unknown dtype {record['dtype']!r} in {record['source_id']}")
        m, n, k = record["m"], record["n"], record["k"]
        if record["source_id"] in SWEEPS:
            if record.get("time_ms") is None:
                raise SystemExit(f"record without a measured time in {record['source_id']}: {record}")
            split = "holdout" if is_holdout(m, n, k, dtype) else "fit"
            time_us = f"{record['time_ms'] * 1000:.6g}"
            sweeps[SWEEPS[record["source_id"]]][split].append((m, n, k, dtype, time_us))
        elif record["source_id"] == "mle-mamf" and record["gpu"] in MAMF_GPUS:
            mamf.append((m, n, k, dtype, record["tflops"], MAMF_GPUS[record["gpu"]]))

    for name, splits in sweeps.items():
        for split, rows in splits.items():
            rows.sort(key=lambda row: (row[3], row[0], row[1], row[2]))
            write_csv(folder / f"{name}-{split}.csv", ["m", "n", "k", "dtype", "time_us"], rows)
            print(f"{name}-{split}.csv: {len(rows)} shapes")
    mamf.sort(key=lambda row: (row[5], row[3]))
    write_csv(folder / "mamf.csv", ["m", "n", "k", "dtype", "tflops", "gpu"], mamf)
    print(f"mamf.csv: {len(mamf)} best shapes")


if __name__ == "__main__":
    main()
