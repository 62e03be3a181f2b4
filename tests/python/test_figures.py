"""Figures a person can trust (issue 42): every kind of ctwin.figures drawn by the command that
owns it, checked as a reader would (figure_checks.py), and compared at 32×24 grey with its image
in the gallery (docs/figures/, scripts/make-figures.py) so that an accidental change is seen."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import figure_checks  # noqa: E402
from ctwin import figures  # noqa: E402
from ctwin.figures.style import new_figure  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("make_figures", REPO / "scripts" / "make-figures.py")
gallery = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gallery)

#: Mean grey-level difference (0-255) of two 32×24 thumbnails that still counts as the same
#: picture: a moved legend or a lost curve is 5 or more, a re-rounded label well under 1.
TOLERANCE = 3.0


def _compare_with_gallery(name: str, drawn: Path) -> None:
    stored = gallery.GALLERY / f"{name}.png"
    assert stored.exists(), f"docs/figures/{name}.png is missing: run scripts/make-figures.py"
    difference = figure_checks.thumbnail_difference(figure_checks.thumbnail(drawn), figure_checks.thumbnail(stored))
    assert difference < TOLERANCE, (f"{name}: the figure drawn now differs from docs/figures/{name}.png by "
                                    f"{difference:.1f} grey levels at 32x24; if the change is meant, run "
                                    f"scripts/make-figures.py")


@pytest.mark.parametrize("name", list(gallery.CASES))
def test_command_draws_a_figure_a_reader_can_trust(name, ctwin_binary, tmp_path):
    kind, args = gallery.CASES[name]
    drawn = tmp_path / f"{name}.png"
    report = gallery.report_of(ctwin_binary, args, drawn)
    assert drawn.stat().st_size > 0, f"ctwin {args[0]} --figure wrote nothing"
    assert figure_checks.problems(figures.from_report(kind, report), name) == []
    _compare_with_gallery(name, drawn)


def test_acceptance_figures(tmp_path):
    report = gallery.accept_report()
    for name, kind in gallery.ACCEPT_CASES.items():
        fig = figures.from_report(kind, report)
        assert figure_checks.problems(fig, name) == []
        figures.save(fig, tmp_path / f"{name}.png")
        _compare_with_gallery(name, tmp_path / f"{name}.png")


@pytest.mark.parametrize("name", list(gallery.MEASURED_CASES))
def test_measured_figures_are_drawn_from_their_stored_report(name, tmp_path):
    # Their measurement takes minutes of flow simulation: the test draws the stored report.
    fig = figures.from_report(gallery.MEASURED_CASES[name], gallery.measured_report(name))
    assert figure_checks.problems(fig, name) == []
    figures.save(fig, tmp_path / f"{name}.png")
    _compare_with_gallery(name, tmp_path / f"{name}.png")


def test_gallery_page_shows_every_image():
    page = (REPO / "docs" / "figures.md").read_text()
    for name in [*gallery.CASES, *gallery.ACCEPT_CASES, *gallery.MEASURED_CASES]:
        assert f"figures/{name}.png" in page, f"docs/figures.md does not show figures/{name}.png"
    assert set(figures.KINDS) == ({k for k, _ in gallery.CASES.values()} | set(gallery.ACCEPT_CASES.values()) |
                                  set(gallery.MEASURED_CASES.values()))


# The checks themselves: each catches the defect issue 42 found in a notebook on main.

def test_checks_catch_two_plots_in_one_axes():
    # acceptance.ipynb drew busbw curves into the histogram of measured/expected ratios.
    fig, (ax,) = new_figure(5, 3)
    ax.hist([0.5, 0.6, 0.6], bins=3)
    ax.plot([1, 2], [100, 200])
    ax.set_xlabel("measured / expected (ratio)")
    ax.set_ylabel("failed points (count)")
    assert any("2 kinds of plot" in p for p in figure_checks.problems(fig))


def test_checks_catch_a_legend_on_the_data():
    # what-if-one-step.ipynb's option bars and timeline had their legend over bars.
    fig, (ax,) = new_figure(5, 3)
    ax.bar(["a", "b"], [1.0, 1.0], label="compute")
    ax.set_ylabel("time (s)")
    ax.legend(loc="center")
    assert any("legend lies on" in p for p in figure_checks.problems(fig))


def test_checks_catch_an_offset_axis():
    # size-a-10k-build.ipynb's Pareto plot drew differences of 1e-6 as a trend.
    fig, (ax,) = new_figure(5, 3)
    ax.scatter([1, 2, 3], [9.945582, 9.945583, 9.945584])
    ax.ticklabel_format(useOffset=True)
    ax.set_xlabel("capex (millions of USD)")
    ax.set_ylabel("tokens/s (millions)")
    found = figure_checks.problems(fig)
    assert any("offset" in p for p in found) and any("not from 0" in p for p in found)


def test_checks_catch_bad_plurals_and_exponent_labels():
    # acceptance.ipynb: "1 nodes" in a legend, a log axis labelled 4×10², 3×10², 2×10² only.
    fig, (ax,) = new_figure(5, 3)
    ax.plot([1, 2], [60, 400], label="1 nodes")
    ax.set_yscale("log")
    ax.set_xlabel("size (bytes)")
    ax.set_ylabel("busbw (GB/s)")
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
    found = figure_checks.problems(fig)
    assert any("'1 nodes'" in p for p in found)
    assert any("not a plain number" in p for p in found)


def test_plural():
    assert figures.plural(1, "node") == "1 node"
    assert figures.plural(2, "node") == "2 nodes"
    assert figures.plural(1024, "GPU") == "1,024 GPUs"


def _options(throughputs, extra=None):
    extra = extra or {}
    return [{"name": f"option {i}", "capex": 1e6 * (i + 1), "power_kW": 100.0 * (i + 1), "tokens_per_s": t,
             "pareto": i == 0, **extra.get(i, {})} for i, t in enumerate(throughputs)]


def test_ties_within_one_in_ten_thousand_are_drawn_as_ties():
    options = _options([9.945582e6, 9.945583e6, 9.0e6])
    assert figures.tie_groups(options) == [[0, 1]]
    fig = figures.cost_throughput(options, "USD", "Llama 3 8B")
    assert figure_checks.problems(fig) == []
    ax = fig.axes[0]
    assert any("tied" in line.get_label() for line in ax.lines)
    tie = next(line for line in ax.lines if "tied" in line.get_label())
    assert "option 0; option 1" in tie.get_label(), "tied options are named together"
    assert len(set(tie.get_ydata())) == 1, "ties are drawn at one throughput"


def test_ties_follow_the_report_when_it_has_them():
    # A report that says which options tie (size's tied_with) wins over the 1e-4 rule.
    options = _options([9.0e6, 9.5e6, 9.9e6], {0: {"tied_with": ["option 1"]}, 1: {"tied_with": [0]}})
    assert figures.tie_groups(options) == [[0, 1]]


def test_renders_are_the_same_bytes_every_time(tmp_path):
    curves = [{"label": figures.plural(n, "node"), "size_bytes": [2**k for k in range(10, 31, 4)],
               "busbw_GBps": [n * k for k in range(6)]} for n in (1, 2)]
    for suffix in ("png", "svg"):
        a, b = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
        figures.save(figures.busbw_curves(curves), a)
        figures.save(figures.busbw_curves(curves), b)
        assert a.read_bytes() == b.read_bytes(), suffix


def test_figure_module_errors_are_one_line(tmp_path):
    report = tmp_path / "report.json"
    report.write_text("{}")
    for kind, out, why in (("nope", tmp_path / "x.png", "no figure kind"),
                           ("scale", tmp_path / "x.jpg", ".png or .svg"), ("scale", tmp_path / "x.png", "points")):
        done = subprocess.run([sys.executable, "-m", "ctwin.figures", kind, str(report), str(out)], capture_output=True,
                              text=True)
        assert done.returncode == 2 and why in done.stderr and done.stderr.count("\n") == 1, (kind, done.stderr)


def test_cli_figure_errors(cli, tmp_path):
    bad = cli("collective", "--cluster", "topologies/dgx-h100-superpod.json", "--gpus", "8", "--figure",
              str(tmp_path / "busbw.jpg"))
    assert bad.returncode == 2 and "--figure" in bad.stderr and ".png or .svg" in bad.stderr
    assert bad.stderr.count("\n") == 1 and bad.stdout == ""


def test_cli_without_python_says_so(ctwin_binary, tmp_path):
    env = dict(os.environ, CTWIN_PYTHON=str(tmp_path / "no-python"))
    done = subprocess.run([ctwin_binary, "collective", "--cluster", "topologies/dgx-h100-superpod.json", "--gpus", "8",
                           "--network", "analytical", "--figure", str(tmp_path / "busbw.png")], cwd=REPO, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 2 and "needs Python 3" in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_ties_of_a_size_report_are_read_from_it():
    def option(leaf, tokens, **extra):
        return {"fabric.oversubscription.leaf": leaf, "pareto": leaf == "2", "workloads": [{"points": [
            {"tokens_per_s": tokens}]}], "bill": {"capex": {"total": 1e6 * int(leaf), "servers": {"power_kW": 100.0},
                                                             "switches": {"power_kW": float(leaf)}}}, **extra}
    axes = [{"field": "fabric.oversubscription.leaf", "values": ["1", "2", "4"]}]
    # No tie field: the 1e-4 rule ties 1:1 and 2:1 only.
    plain = {"cluster": "c", "axes": axes, "options": [option("1", 9.0e6), option("2", 9.0e6 * (1 - 1e-6)),
                                                       option("4", 8.0e6)]}
    assert figures.tie_groups(figures.options_from_report(plain)) == [[0, 1]]
    # A report that lists ties as groups of option indices: those, whatever the throughputs.
    grouped = dict(plain, ties=[[1, 2]])
    assert figures.tie_groups(figures.options_from_report(grouped)) == [[1, 2]]


def test_fragmentation_study_figure(tmp_path):
    # docs/cluster.md's curve, from the study's stored rows: trusted as every figure, and the same picture.
    spec = importlib.util.spec_from_file_location("fragmentation_study",
                                                  REPO / "validation" / "fragmentation" / "run_study.py")
    study = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(study)
    drawn = tmp_path / "fragmentation.png"
    study.draw(REPO / "validation" / "fragmentation" / "fragmentation.json", drawn)
    _compare_with_gallery("fragmentation", drawn)
    # Each policy's line is the mean over its maps; the claim's line is a reference, not data.
    rows = [{"panel": "p", "policy": "packed", "fragmentation": f, "utilisation": u}
            for f, u in ((0.0, 1.0), (0.5, 0.5), (0.5, 0.7))]
    fig = figures.utilisation_curves(rows, threshold=0.3)
    assert figure_checks.problems(fig, "fragmentation") == []
    (line,) = [ln for ln in fig.axes[0].lines if ln.get_label() == "packed"]
    assert list(line.get_xdata()) == [0.0, 50.0] and list(line.get_ydata()) == pytest.approx([100.0, 60.0])
