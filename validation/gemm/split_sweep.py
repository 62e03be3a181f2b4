#!/usr/bin/env python3
"""Splits a measured GEMM sweep CSV into <name>-fit.csv and <name>-holdout.csv with the same
rule as convert_gemm_json.py (a shape is held out when the first byte of SHA-256("m,n,k,dtype")
x 100 / 256 < 30), so that the split is the same on every machine and whatever the row order.
The input's leading '#' lines (its source) are kept on both files.

    /usr/bin/python3 validation/gemm/split_sweep.py validation/gemm/h200-sweep.csv validation/gemm/h200
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from convert_gemm_json import is_holdout  # noqa: E402


def main():
    source, prefix = Path(sys.argv[1]), sys.argv[2]
    lines = source.read_text().splitlines()
    comments = [line for line in lines if line.startswith("#")]
    rows = [line for line in lines if line and not line.startswith("#")]
    header, body = rows[0], rows[1:]
    columns = header.split(",")
    index = {name: columns.index(name) for name in ("m", "n", "k", "dtype")}
    split = {"fit": [], "holdout": []}
    for line in body:
        cells = line.split(",")
        shape = [cells[index[name]] for name in ("m", "n", "k", "dtype")]
        split["holdout" if is_holdout(*shape) else "fit"].append(line)
    for name, kept in split.items():
        note = f"# {name} split of {source.name} (validation/gemm/split_sweep.py)"
        Path(f"{prefix}-{name}.csv").write_text("\n".join(comments + [note, header] + kept) + "\n")
        print(f"{prefix}-{name}.csv: {len(kept)} shapes")


if __name__ == "__main__":
    main()
