"""docs/python.md names every notebook of python/notebooks (it named 3 of 6, issue 35)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_notebook_is_described():
    text = (REPO / "docs" / "python.md").read_text()
    notebooks = sorted(p.name for p in (REPO / "python" / "notebooks").glob("*.ipynb"))
    assert len(notebooks) >= 6
    missing = [name for name in notebooks if f"`{name}`" not in text]
    assert not missing, f"docs/python.md does not describe {missing}"
