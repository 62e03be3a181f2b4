"""docs/seeds.md stays navigable: every link reaches a page and a heading that exist, every repository path it
names exists, every seed has its table, every row has a status, and the README lists the page.

Run from the repository root: /usr/bin/python3 -m pytest -q tests/docs/test_seeds_doc.py
"""

import os
import re

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PAGE = os.path.join(ROOT, "docs", "seeds.md")
LINK = re.compile(r"\]\(([^)\s]*)\)")
CODE = re.compile(r"`([^`]+)`")
TOP = {"src", "python", "models", "topologies", "scenarios", "validation", "tests", "docs", "bench", "fuzz",
       "scripts"}
STATUSES = ("reproduced", "explained", "does not hold", "not modelled")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, backquotes and punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: str) -> set[str]:
    """The anchors of a Markdown file's headings (outside fenced blocks), repeats numbered as GitHub does."""
    seen: dict[str, int] = {}
    out = set()
    fenced = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fenced = not fenced
                continue
            match = re.match(r"#{1,6} (.*)", line)
            if fenced or not match:
                continue
            base = slug(match.group(1))
            count = seen.get(base, 0)
            out.add(base if count == 0 else f"{base}-{count}")
            seen[base] = count + 1
    return out


def test_the_slug_is_githubs():
    assert slug("Seed 000's comparison on 1,024 H100") == "seed-000s-comparison-on-1024-h100"
    assert slug("Scaling validation: `ctwin validate --scaling`") == "scaling-validation-ctwin-validate---scaling"
    assert slug("Llama 3 70B on H100 + H200") == "llama-3-70b-on-h100--h200"


def test_every_link_reaches_a_page_and_a_heading():
    text = open(PAGE, encoding="utf-8").read()
    links = [l for l in LINK.findall(text) if not l.startswith(("http://", "https://"))]
    assert len(links) >= 20, "the scan found almost no links: it is not reading the page"
    broken = []
    for link in links:
        target, _, anchor = link.partition("#")
        path = PAGE if not target else os.path.normpath(os.path.join(ROOT, "docs", target))
        if not os.path.exists(path):
            broken.append(f"{link}: no file")
        elif anchor and anchor not in anchors(path):
            broken.append(f"{link}: no heading")
    assert not broken, "docs/seeds.md has broken links:\n" + "\n".join(broken)


def test_every_named_path_exists():
    text = open(PAGE, encoding="utf-8").read()
    # Paths in backquotes, alone or as arguments of a command line.
    tokens = [t.rstrip(".,;:") for span in CODE.findall(text) for t in span.split()]
    paths = [t for t in tokens if "/" in t and t.split("/")[0] in TOP and not any(c in t for c in "<>*{}=")]
    assert len(paths) >= 10, f"the scan found only {paths}: it is not reading the page"
    missing = [p for p in paths if not os.path.exists(os.path.join(ROOT, p))]
    assert not missing, f"docs/seeds.md names paths that do not exist: {missing}"


def test_every_seed_has_a_table_and_every_row_a_status():
    text = open(PAGE, encoding="utf-8").read()
    for seed in ("000", "001", "002", "003"):
        assert re.search(rf"^## Seed {seed}\b", text, re.M), f"no section for seed {seed}"
    rows = [l for l in text.splitlines() if l.startswith("| ") and not l.startswith("| claim") and "---" not in l]
    assert len(rows) >= 40
    no_status = [r for r in rows if not any(s in r.rsplit("|", 2)[-2] for s in STATUSES)]
    assert not no_status, "rows without a status:\n" + "\n".join(no_status)


def test_the_readme_lists_the_page():
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    assert "(docs/seeds.md)" in readme
