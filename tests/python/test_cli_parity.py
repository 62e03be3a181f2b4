"""Every flag of every `ctwin` command has its Python twin, or a written reason why not.

The command's options are read from `ctwin <command> --help` (CLI11 prints each option on a line of its
own, two spaces in); the Python function's from its signature. A flag `--flow-sample` is the keyword
`flow_sample`; a few are spelled differently in Python (RENAMED). A flag that has no meaning in Python is
on NO_MEANING_IN_PYTHON with the reason; one Python should have but lacks today is on KNOWN_GAPS, so the
gap is visible and shrinks. Anything else — a new flag without its keyword — fails here.

Run through ctest (it sets CTWIN_BINARY and PYTHONPATH).
"""

import inspect
import re

import pytest

import ctwin

# command -> the Python functions that together take its options
PYTHON_OF = {
    "run": ["run"],
    "scale": ["scale"],
    "plan": ["plan", "rank_split"],
    "sweep": ["sweep"],
    "size": ["size"],
    "explain": ["explain"],
    "goodput": ["goodput"],
    "cluster": ["cluster"],
    "fabric": ["fabric"],
    "collective": ["collective"],
    "traffic": ["traffic"],
    "accept": ["accept"],
    "validate": ["validate"],
    "calibrate": ["calibrate_gemm", "calibrate_layers", "calibrate_nccl", "calibrate_trace", "calibrate_training"],
    "gemm": ["gemm"],
    "layer": ["layer"],
}

# Commands with no Python function, and why.
WITHOUT_PYTHON = {
    "bench": "times this binary's engine, fabric builds and flow model against speed targets: a benchmark, not a query",
    "model": "KNOWN GAP: the memory and FLOPs of a split have no Python function yet (ctwin.run reports them per step)",
}

# (command or "*", flag) -> the Python keyword, where Python spells it differently.
RENAMED = {
    ("*", "set"): "changes",  # --set key=value ... is a mapping of changes
    ("*", "algo"): "algorithm",
    ("*", "proto"): "protocol",
    ("size", "workload"): "workloads",
    ("size", "no-collectives"): "collectives",  # a flag that turns off is a boolean that defaults to on
    ("goodput", "no-fp32-master"): "fp32_master",
    ("calibrate", "gemm"): "csv",  # one function per kind of calibration, each named after its input
    ("calibrate", "nccl"): "logs",
    ("calibrate", "training"): "cases",
    ("plan", "rank-of"): "key",  # `plan --rank-of tp=8,pp=2` is ctwin.rank_split(scenario, key)
    ("validate", "training"): "kind",  # --training / --scaling pick what is validated: kind="training"
    ("validate", "scaling"): "kind",
}

# Flags that have no meaning in Python, with the reason. "*" applies to every command.
NO_MEANING_IN_PYTHON = {
    ("*", "help"): "Python has help() and the docstrings",
    ("*", "format"): "results are objects: to_dict() is the JSON, and tables are pandas DataFrames",
    ("*", "table"): "picks one CSV table to print; Python has every table as a DataFrame",
    ("*", "rows"): "prints every row instead of a summary; Python's DataFrames hold every row",
    ("*", "figure"): "figures are drawn from a result with ctwin.figures",
    ("*", "shard"): "splits a study over machines by hand; Python passes client= (a Dask cluster) instead",
    ("*", "merge"): "joins the shards' files; with client= there are none",
    ("run", "set"): "a Scenario's with_() sets fields",
    ("scale", "set"): "a Scenario's with_() sets fields",
    ("sweep", "set"): "a Scenario's with_() sets fields",
    ("run", "require-fit"): "an exit status for scripts; Python reads result.fits_memory",
    ("traffic", "timing"): "adds ctwin's own wall time to the printed report; Python times the call itself",
    ("goodput", "validate"): "a different command in one: the reliability model against published failure counts",
    ("goodput", "cases"): "the cases of --validate",
    ("calibrate", "bundle"): "merges what was fitted into a bundle file, a file operation for the command line",
    ("calibrate", "merge"): "with --bundle: merges files as they are into a bundle, again a file operation",
    ("accept", "synthesize"): "writes synthetic measurement files to disk for a dry run of the CLI's acceptance test",
}

# Flags Python should have and does not yet: listed so the gap is known; remove a line when the keyword lands.
KNOWN_GAPS = {
    ("sweep", "network"),  # today through the Scenario: scenario.with_(network=...)
    ("sweep", "calibration"),  # likewise, a calibrated scenario
    ("validate", "set"),  # --scaling with changed scenarios
    ("validate", "run"),  # a measured run of one's own, and the calibration it is compared with
    ("validate", "calibration"),
    ("validate", "kernels"),  # an MoE kernel profile, and the GPU it is predicted with
    ("validate", "gpu"),
}

OPTION_LINE = re.compile(r"^  (\S+)")


def options_of(help_text: str) -> set[str]:
    """The long names (or positional names) of the options a CLI11 help text lists."""
    names = set()
    section = None
    for line in help_text.splitlines():
        if re.match(r"^(Positionals|Options|POSITIONALS|OPTIONS)\b.*:$", line.strip()) and not line.startswith(" "):
            section = line.strip().lower()
            continue
        if section is None:
            continue
        match = OPTION_LINE.match(line)
        if not match:
            continue
        token = match.group(1)
        if section.startswith("positionals"):
            names.add(token)
            continue
        longs = [n[2:] for n in token.split(",") if n.startswith("--")]
        names.update(longs if longs else [n.lstrip("-") for n in token.split(",")])
    return names


def parameters_of(functions: list[str]) -> set[str]:
    params = set()
    for name in functions:
        params.update(inspect.signature(getattr(ctwin, name)).parameters)
    return params


def lookup(table, command, flag):
    return table.get((command, flag), table.get(("*", flag)))


def missing_keywords(command: str, flags: set[str], params: set[str]) -> list[str]:
    """The walker: each of the command's flags that has no Python keyword and no written reason."""
    missing = []
    for flag in sorted(flags):
        if lookup(NO_MEANING_IN_PYTHON, command, flag) or (command, flag) in KNOWN_GAPS:
            continue
        keyword = lookup(RENAMED, command, flag) or flag.replace("-", "_")
        if keyword not in params:
            missing.append(f"--{flag} (expected keyword {keyword!r})")
    return missing


def commands(cli) -> list[str]:
    out = cli("--help")
    assert out.returncode == 0, out.stderr
    found = []
    in_subcommands = False
    for line in out.stdout.splitlines():
        if line.strip().lower().startswith("subcommands"):
            in_subcommands = True
            continue
        if in_subcommands and OPTION_LINE.match(line):
            found.append(OPTION_LINE.match(line).group(1))
    return found


def test_every_command_is_placed(cli):
    listed = commands(cli)
    assert "run" in listed and len(listed) >= 14, listed
    unplaced = [c for c in listed if c not in PYTHON_OF and c not in WITHOUT_PYTHON]
    assert not unplaced, f"commands with neither a Python function nor a reason: {unplaced}"
    stale = [c for c in list(PYTHON_OF) + list(WITHOUT_PYTHON) if c not in listed]
    assert not stale, f"this test names commands ctwin does not have: {stale}"


@pytest.mark.parametrize("command", sorted(PYTHON_OF))
def test_every_flag_has_its_python_keyword(cli, command):
    out = cli(command, "--help")
    assert out.returncode == 0, out.stderr
    flags = options_of(out.stdout)
    assert "help" in flags and len(flags) >= 3, f"read no options from `ctwin {command} --help`:\n{out.stdout}"
    params = parameters_of(PYTHON_OF[command])
    missing = missing_keywords(command, flags, params)
    assert not missing, (f"`ctwin {command}` has flags that ctwin.{'/'.join(PYTHON_OF[command])} lacks: "
                         f"{', '.join(missing)}; add the keyword, or list the flag with its reason in this test")
    # The lists stay true: a gap that was closed, or a flag that no longer exists, is taken off them.
    closed = [f for (c, f) in KNOWN_GAPS if c == command and f in flags
              and (lookup(RENAMED, c, f) or f.replace("-", "_")) in params]
    assert not closed, f"KNOWN_GAPS lists flags Python now has: {closed}"
    gone = [f for (c, f) in list(KNOWN_GAPS) + list(NO_MEANING_IN_PYTHON) + list(RENAMED)
            if c == command and f not in flags]
    assert not gone, f"this test lists flags `ctwin {command}` does not have: {gone}"


def test_the_parser_reads_cli11_help():
    # Not vacuous: a made-up help text gives its options, positionals included, and nothing else.
    text = ("Run\nUsage: ctwin x [OPTIONS] scenario\n\nPositionals:\n  scenario TEXT REQUIRED    a file\n\n"
            "Options:\n  -h,--help                 Print this help\n  -b,--begin TEXT           first size\n"
            "  --flow-sample TEXT [full]\n                            --not-an-option on a wrapped line\n")
    assert options_of(text) == {"scenario", "help", "begin", "flow-sample"}


@pytest.mark.parametrize("command, removed, flag", [("goodput", "straggler_speed", "straggler-speed"),
                                                     ("plan", "exhaustive", "exhaustive"),
                                                     ("size", "workloads", "workload")])
def test_the_walker_fails_on_a_removed_keyword(cli, command, removed, flag):
    # The real flags and the real signature minus one keyword (a copy; ctwin's table is untouched):
    # the walker names exactly that flag (size's --workload is renamed workloads), and nothing else.
    flags = options_of(cli(command, "--help").stdout)
    params = parameters_of(PYTHON_OF[command])
    assert flag in flags and removed in params
    assert missing_keywords(command, flags, params) == []
    assert missing_keywords(command, flags, params - {removed}) == [f"--{flag} (expected keyword {removed!r})"]


def test_the_walker_names_a_new_flag_without_its_keyword():
    flags = options_of("Options:\n  -h,--help  help\n  --days FLOAT  days\n  --brand-new-flag TEXT  new\n")
    assert missing_keywords("goodput", flags, {"days"}) == ["--brand-new-flag (expected keyword 'brand_new_flag')"]
