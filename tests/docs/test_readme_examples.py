"""The README's worked examples, run as written.

Every command of the "Worked examples" section (a line starting with `$ ./build/ctwin` or `./build/ctwin`, with
its `\\` continuations) runs in a scratch directory that looks like the repository root (its data folders linked,
`build/ctwin` the binary under test) and must exit 0; every output line the README shows under a `$` command
(other than `...`) must be a line of what it prints, spacing aside. The Python example runs too. An example that
stops working, or a shown output that drifts from what ctwin prints, fails here.

Run by CTest with CTWIN_BINARY set (and PYTHONPATH for the Python example).
"""

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
README = os.path.join(ROOT, "README.md")
DATA = ["scenarios", "topologies", "models", "validation"]


def examples_section():
    text = open(README, encoding="utf-8").read()
    start = text.index("## Worked examples")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def blocks(section):
    """(language, lines) of each fenced block."""
    out = []
    for match in re.finditer(r"```(\w*)\n(.*?)```", section, re.S):
        out.append((match.group(1), match.group(2).splitlines()))
    return out


def shell_examples():
    """(command, expected output lines) in README order."""
    examples = []
    for language, lines in blocks(examples_section()):
        if language not in ("", "sh"):
            continue
        i = 0
        while i < len(lines):
            line = lines[i]
            shown = line.startswith("$ ")
            if shown or line.startswith("./build/ctwin"):
                command = line[2:] if shown else line
                while command.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    command = command.rstrip()[:-1] + " " + lines[i].strip()
                expected = []
                while shown and i + 1 < len(lines) and not lines[i + 1].startswith(("$ ", "./build/ctwin")):
                    i += 1
                    if lines[i].strip() and lines[i].strip() != "...":
                        expected.append(lines[i])
                examples.append((command, expected))
            i += 1
    return examples


def normalized(line):
    return " ".join(line.split())


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    binary = os.environ.get("CTWIN_BINARY")
    if not binary:
        pytest.skip("CTWIN_BINARY is not set (run through CTest)")
    root = tmp_path_factory.mktemp("readme")
    for name in DATA:
        os.symlink(os.path.join(ROOT, name), root / name)
    (root / "build").mkdir()
    os.symlink(binary, root / "build" / "ctwin")
    return root


def test_the_section_has_an_example_for_each_kind_of_user():
    section = examples_section()
    for user in ("Architect", "Planner", "Validation engineer", "Analyst"):
        assert f"### {user}" in section
    assert len(shell_examples()) >= 8


@pytest.mark.parametrize("command,expected", shell_examples(), ids=lambda value: value[:60] if isinstance(value, str) else "")
def test_shell_example_runs_and_prints_what_the_readme_shows(scratch, command, expected):
    done = subprocess.run(command, shell=True, cwd=scratch, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    printed = {normalized(line) for line in done.stdout.splitlines()}
    for line in expected:
        assert normalized(line) in printed, f"{command}: the README shows\n  {line}\nbut ctwin printed\n{done.stdout}"


def test_python_example_runs(scratch):
    try:
        import ctwin  # noqa: F401
    except ImportError:
        pytest.skip("the ctwin Python module is not built here")
    for language, lines in blocks(examples_section()):
        if language != "python":
            continue
        done = subprocess.run([sys.executable, "-c", "\n".join(lines)], cwd=scratch, capture_output=True, text=True,
                              timeout=600, env=dict(os.environ, MPLBACKEND="Agg"))
        assert done.returncode == 0, done.stderr
        assert len(done.stdout.splitlines()) == 4, done.stdout  # one line per TP
