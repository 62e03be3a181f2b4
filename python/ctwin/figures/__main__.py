"""python3 -m ctwin.figures KIND REPORT.json OUT.png|svg: the figure of one command's report.

This is what `ctwin <command> --figure` runs. Errors are one line on stderr and exit 2, as the
command's own are."""

import json
import sys


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python3 -m ctwin.figures KIND REPORT.json OUT.png|OUT.svg", file=sys.stderr)
        return 2
    kind, source, out = argv
    if not out.lower().endswith((".png", ".svg")):
        print(f"{out}: a figure is written as .png or .svg", file=sys.stderr)
        return 2
    try:
        from . import from_report, save
    except ImportError as error:  # matplotlib (or numpy under it) missing
        print(f"{out}: {error.name or error} is not installed for {sys.executable} "
              f"(Debian: apt-get install python3-matplotlib)", file=sys.stderr)
        return 2
    try:
        with open(source, encoding="utf-8") as f:
            report = json.load(f)
        save(from_report(kind, report), out)
    except KeyError as error:
        print(f"{out}: {source} has no field {error}: not a `ctwin {kind} --format json` report?", file=sys.stderr)
        return 2
    except (OSError, ValueError) as error:
        print(f"{out}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
