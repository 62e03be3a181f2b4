#!/usr/bin/env python3
"""Golden reports: representative commands' JSON output, stored and compared byte for byte.

    golden.py CTWIN NAME       run case NAME of cases.txt, compare with NAME's golden file
    golden.py CTWIN --update   run every case, rewrite the golden files (scripts/update-golden.sh)

cases.txt has one case per line, `name | arguments`, run from the repository root. Names that
differ only after '@' (scale@jobs1, scale@jobs4) share one golden file, <name before @>.json:
the output must not depend on the variant (thread count). A behaviour change shows up as a
diff of these files in review, made in the same commit as the change.
"""
import difflib
import pathlib
import shlex
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def cases():
    result = []
    for line in (HERE / "cases.txt").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, _, arguments = line.partition("|")
        result.append((name.strip(), shlex.split(arguments)))
    return result


def golden_path(name):
    return HERE / (name.split("@")[0] + ".json")


def run(ctwin, arguments):
    done = subprocess.run([ctwin] + arguments, cwd=ROOT, capture_output=True)
    if done.returncode != 0:
        sys.exit(f"ctwin {' '.join(arguments)}: exit {done.returncode}\n{done.stderr.decode(errors='replace')}")
    return done.stdout


def check(ctwin, name):
    arguments = dict(cases()).get(name)
    if arguments is None:
        sys.exit(f"no case '{name}' in {HERE / 'cases.txt'}")
    actual = run(ctwin, arguments)
    path = golden_path(name)
    expected = path.read_bytes() if path.exists() else b""
    if actual == expected:
        return 0
    diff = difflib.unified_diff(expected.decode(errors="replace").splitlines(), actual.decode(errors="replace").splitlines(),
                                str(path.relative_to(ROOT)), "ctwin " + " ".join(arguments), lineterm="", n=2)
    lines = list(diff)
    print("\n".join(lines[:60]) + ("\n..." if len(lines) > 60 else ""))
    print(f"golden report {path.relative_to(ROOT)} differs; if the change is intended, run scripts/update-golden.sh "
          "and commit the new file with the change")
    return 1


def update(ctwin):
    written = set()
    for name, arguments in cases():
        path = golden_path(name)
        if path in written:
            continue
        path.write_bytes(run(ctwin, arguments))
        written.add(path)
        print(f"wrote {path.relative_to(ROOT)}")
    for stale in sorted(set(HERE.glob("*.json")) - written):
        stale.unlink()
        print(f"removed {stale.relative_to(ROOT)} (no case)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(update(sys.argv[1]) if sys.argv[2] == "--update" else check(sys.argv[1], sys.argv[2]))
