"""docs/architecture.md and docs/extending.md stay true, and comments cite only what the repository holds.

Every repository path the two pages name (in backquotes, or as a link to another page) must exist, so a
move or a rename that forgets them fails here. And every Markdown file a source comment cites
(`docs/plan.md`, `DESIGN.md`) must be in the repository: the design lives in docs/, not in files
outside it.

Run from the repository root: /usr/bin/python3 -m pytest -q tests/docs/test_design_docs.py
"""

import os
import re

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PAGES = ["docs/architecture.md", "docs/extending.md"]
# The top-level folders a path may start with: anything else in backquotes is a name, not a path.
TOP = {"src", "python", "models", "topologies", "scenarios", "validation", "tests", "docs", "bench", "fuzz",
       "scripts"}
CODE = re.compile(r"`([^`\s]+)`")
LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")


def named_paths(text: str) -> list[str]:
    """Repository paths in backquotes: under a known top folder, with no placeholder (<name>, ...)."""
    paths = []
    for token in CODE.findall(text):
        token = token.rstrip(".,;:")
        if "/" not in token or token.split("/")[0] not in TOP:
            continue
        if any(c in token for c in "<>*{}") or "..." in token:
            continue
        paths.append(token)
    return paths


@pytest.mark.parametrize("page", PAGES)
def test_every_named_path_exists(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        text = f.read()
    paths = named_paths(text)
    assert len(paths) >= 15, f"{page} names only {len(paths)} paths: the scan is not reading it"
    missing = [p for p in paths if not os.path.exists(os.path.join(ROOT, p))]
    assert not missing, f"{page} names paths that do not exist: {missing}"
    links = LINK.findall(text)
    assert links, f"{page} links no other page"
    broken = [l for l in links if not os.path.exists(os.path.join(ROOT, "docs", l))]
    assert not broken, f"{page} links pages that do not exist: {broken}"


def test_the_scan_sees_a_missing_path():
    # Not vacuous: a made-up path is reported, a name and a placeholder are not paths.
    assert named_paths("`src/ctwin/nowhere.cpp`, `--gpus`, `models/gpus/<name>.json`, `Scenario`") == [
        "src/ctwin/nowhere.cpp"]


SOURCES = ("src", "python", "tests/unit", "fuzz", "bench")
# What a comment may cite: our pages and sources, by path or by name.
CITED = re.compile(r"\b([\w./-]*\w\.(?:md|hpp|cpp))\b")
# Files of other projects, cited with their project's name beside them.
EXTERNAL = {
    "doc/PERFORMANCE.md",  # nccl-tests' page on bus bandwidth (src/ctwin/collectives/collective.hpp)
}


def comment_of(line: str, python_like: bool) -> str:
    """The comment part of a line of C++ (after //) or of Python and CMake (after #)."""
    marker = "#" if python_like else "//"
    at = line.find(marker)
    if python_like and at >= 0 and line.lstrip().startswith("#include"):
        return ""
    return line[at:] if at >= 0 else ""


def citations():
    """(file, line number, cited name) for every page or source a comment names."""
    for top in SOURCES:
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if not name.endswith((".cpp", ".hpp", ".py", ".pyi", ".txt")):
                    continue
                path = os.path.join(folder, name)
                python_like = name.endswith((".py", ".pyi", ".txt"))
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        for cited in CITED.findall(comment_of(line, python_like)):
                            yield os.path.relpath(path, ROOT), number, cited


def repository_names() -> set[str]:
    names = set()
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "build"]
        names.update(files)
    return names


def held(cited: str, names: set[str]) -> bool:
    """A path that exists (from the root, docs/, src/ or src/ctwin/), or a bare file name the repository has."""
    for base in (ROOT, os.path.join(ROOT, "docs"), os.path.join(ROOT, "src"), os.path.join(ROOT, "src", "ctwin")):
        if os.path.exists(os.path.join(base, cited)):
            return True
    return "/" not in cited and cited in names


def test_comments_cite_only_files_of_the_repository():
    names = repository_names()
    found = list(citations())
    assert len(found) >= 50, "the scan found almost no citations: it is not reading the sources"
    outside = [f"{path}:{number}: {cited}" for path, number, cited in found
               if cited not in EXTERNAL and not held(cited, names)]
    assert not outside, "comments cite files the repository does not hold:\n" + "\n".join(outside)


def test_the_citation_scan_sees_a_missing_file():
    names = repository_names()
    assert CITED.findall(comment_of("x = 1;  // see DESIGN.md and plan_search.hpp", False)) == [
        "DESIGN.md", "plan_search.hpp"]
    assert not held("DESIGN.md", names) and not held("plan_search.hpp", names)
    assert held("plan.md", names) and held("plan/plan_bound.hpp", names)
