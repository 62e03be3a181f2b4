#!/usr/bin/python3
"""Re-renders the shared nccl-tests transcriptions (nccl_tests.json) as nccl-tests logs.

For every setup whose rows carry time, algbw and busbw it writes logs/<id>.log in the layout
the nccl-tests *_perf binaries print (column header, units line, out-of-place and in-place
groups, "Avg bus bandwidth"), so that `ctwin calibrate --nccl` and `ctwin validate` read the
public measurements exactly as they read a user's own logs. Only transcribed figures are
written: a column the source did not give is left out of the header, not filled in. It also
writes setups.json (what each log is, which ctwin topology it maps to, whether it checks the
uncalibrated defaults) and the table in README.md. Standard library only; deterministic.

Usage: render_logs.py [path/to/nccl_tests.json] [output folder]
  defaults: ../shared/validation-data/nccl_tests.json (relative to the repository root) and
  the folder of this script.
"""

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_INPUT = REPO / ".." / "shared" / "validation-data" / "nccl_tests.json"
TABLE_BEGIN = "<!-- logs table: written by render_logs.py -->"
TABLE_END = "<!-- end of logs table -->"

# nccl-tests' printf widths (common.cu), two spaces apart: size and count %12li, type %8s,
# redop %6s, root %6i, then per group time %7s, algbw and busbw %6.2f, #wrong %5s.
WIDTHS = {"size": 12, "count": 12, "type": 8, "redop": 6, "root": 6,
          "time": 7, "algbw": 6, "busbw": 6, "#wrong": 5}
UNITS = {"size": "(B)", "count": "(elements)", "time": "(us)", "algbw": "(GB/s)", "busbw": "(GB/s)"}


def exact(value, min_decimals):
    """The value with at least min_decimals decimals and as many more as it needs to stay exact,
    so a re-rendered figure reads back as the transcribed number."""
    for decimals in range(min_decimals, 12):
        text = f"{value:.{decimals}f}"
        if float(text) == value:
            return text
    return repr(value)


def time_text(time_us):
    # nccl-tests prints fewer decimals as the time grows (%7.0f from 10 ms, %7.1f from 100 us).
    return exact(time_us, 0 if time_us >= 10000 else 1 if time_us >= 100 else 2)


def full_rows(setup):
    rows = setup.get("rows") or []
    return bool(rows) and all(
        all(key in row.get("out_of_place", {}) for key in ("time_us", "algbw_GBps", "busbw_GBps")) for row in rows)


def skip_reason(setup):
    if setup.get("points") and not setup.get("rows"):
        return "summary points only (latency at 1 KiB, busbw at 1/4 GiB; in-place, NCCL columns of a MSCCL++ table), no nccl-tests rows"
    return "busbw only (%s, not nccl-tests output): no time or algbw to render" % setup.get("tool", "unknown tool")


def topology(setup):
    """(ctwin topology file or None, why) for the setup's hardware."""
    hw = setup["hardware"]
    gpu, inter = hw["gpu"], hw.get("inter_node", "")
    if "GB200" in gpu:
        return "topologies/gb200-nvl72.json", "GB200 NVL72 rack"
    if "B200" in gpu:
        return "topologies/dgx-b200-superpod.json", "8x B200 SXM node"
    if "L40S" in gpu:
        return "topologies/pcie-l40s.json", "8x L40S PCIe Gen4 server"
    if "RTX PRO 6000" in gpu:
        return None, "no ctwin topology has RTX PRO 6000 Blackwell GPUs (PCIe Gen5, no NVLink); pcie-l40s is L40S on Gen4"
    if "A100" in gpu:
        if "RoCE" in inter:
            return ("topologies/dgx-a100-superpod.json",
                    "A100 SXM; inter-node is RoCEv2 16x100G where the topology has 8x200G HDR IB (same 1.6 Tb/s per node)")
        return "topologies/dgx-a100-superpod.json", "A100 SXM with NVLink3/NVSwitch"
    if "H100" in gpu:
        if hw["nodes"] == 1:
            return "topologies/dgx-h100-superpod.json", "one 8x H100 SXM node (NVLink4/NVSwitch)"
        if "InfiniBand" in inter:
            return "topologies/dgx-h100-superpod.json", "H100 SXM nodes on 400G NDR InfiniBand"
        return None, "H100 nodes on %s: no ctwin fabric models it (dgx-h100-superpod is NDR IB, hgx-h100-roce is 400GbE RoCE)" % inter
    return None, "no ctwin topology for " + gpu


def role(setup):
    """("check" | "underperforming", why). Degraded runs are calibration material: checking the
    healthy-cluster defaults against them would blame the model for the cluster."""
    flags = setup.get("quality_flags") or []
    if "reported_as_underperforming" in flags:
        return "underperforming", "its source reports it as degraded (quality flag reported_as_underperforming)"
    if "L40S" in setup["hardware"]["gpu"] and setup["nranks"] > 2:
        return "underperforming", "4- and 8-GPU L40S results are far below PCIe Gen4 rates (quality flag)"
    return "check", "no degradation reported"


def cluster(setup):
    """Logs measured on the same machines share a cluster id: calibration fits one of them and
    predicts the others. Same source file (one collector's sweep of one system), or the same
    reporter in the same issue thread."""
    source = setup["source"]
    repo = source.get("repo", "").split("/")[-1]
    path = source.get("path", "")
    match = re.search(r"systems/data/([^/]+)/", path)
    if match:
        return "%s/%s" % (repo, match.group(1))
    if source.get("issue"):
        return "%s#%s/%s" % (repo, source["issue"], source.get("comment_author") or "reporter")
    return setup["id"]


def nccl_env(setup):
    """NCCL_* settings the source gave, from its env list and its command line."""
    software = setup.get("software", {})
    env = dict(software.get("env", {}))
    for name, value in re.findall(r"(NCCL_[A-Z0-9_]+)=(\S+)", software.get("command", "")):
        env.setdefault(name, value)
    return dict(sorted(env.items())) or None


def nccl_version(setup):
    software, source = setup.get("software", {}), setup["source"]
    version = software.get("nccl_version") or software.get("nccl")
    if not version and source.get("nccl_version_in_rows"):
        version = ", ".join(source["nccl_version_in_rows"])
    return version


def source_lines(setup):
    source = setup["source"]
    where = [source.get("repo", "")]
    if source.get("issue"):
        where.append("issue %s" % source["issue"])
    if source.get("path"):
        where.append("path " + source["path"])
    if source.get("commit"):
        where.append("commit " + source["commit"])
    if source.get("url"):
        where.append(source["url"])
    lines = ["source: " + ", ".join(where)]
    if source.get("comment_author"):
        lines.append("comment by %s (%s)" % (source["comment_author"], source.get("comment_date", "")))
    return lines


def columns(setup):
    rows = setup["rows"]
    lead = ["size"]
    if all("count" in row for row in rows):
        lead.append("count")
    if all("type" in row for row in rows):
        lead.append("type")
    if all("redop" in row for row in rows) or (setup.get("redop") and "type" in lead):
        lead.append("redop")
    if all("root" in row for row in rows):
        lead.append("root")
    group = ["time", "algbw", "busbw"]
    if all("wrong_or_error" in row["out_of_place"] for row in rows):
        group.append("#wrong")
    groups = 2 if all("in_place" in row for row in rows) else 1
    return lead, group, groups


def line(cells):
    return "  ".join(text.rjust(WIDTHS[name]) for name, text in cells)


def render(setup):
    lead, group, groups = columns(setup)
    hw, op = setup["hardware"], setup["op"]
    out = ["# ctwin validation log: re-rendered in nccl-tests' printed layout from a transcription;"
           " the figures are the source's, nothing is measured or filled in here.",
           "# transcription: ../shared/validation-data/nccl_tests.json, setup " + setup["id"]]
    out += ["# " + text for text in source_lines(setup)]
    out.append("# collective: %s_perf, %d ranks (%d node(s) x %d GPUs per node, %s)" % (
        op, setup["nranks"], hw["nodes"], hw["gpus_per_node"], hw["gpu"]))
    command = setup.get("software", {}).get("command")
    if command:
        out.append("# command as given: " + command)
    if setup.get("notes"):
        out.append("# transcription notes: " + setup["notes"])
    out.append("#")
    names = lead + group * groups
    if groups == 2:
        width = len(line([(name, name) for name in lead])) + 2
        half = len(line([(name, name) for name in group])) + 2
        out.append("#" + " " * (width - 1) + "out-of-place".center(half) + "in-place".center(half).rstrip())
    header = line([(name, name) for name in names])
    out.append("#" + header[1:])
    units = line([(name, UNITS.get(name, "")) for name in names])
    out.append("#" + units[1:].rstrip())
    for row in setup["rows"]:
        cells = [("size", str(row["size_bytes"]))]
        if "count" in lead:
            cells.append(("count", str(row["count"])))
        if "type" in lead:
            cells.append(("type", row["type"]))
        if "redop" in lead:
            cells.append(("redop", row.get("redop", setup.get("redop"))))
        if "root" in lead:
            cells.append(("root", str(row["root"])))
        for place in ["out_of_place", "in_place"][:groups]:
            figures = row[place]
            cells += [("time", time_text(figures["time_us"])),
                      ("algbw", exact(figures["algbw_GBps"], 2)),
                      ("busbw", exact(figures["busbw_GBps"], 2))]
            if "#wrong" in group:
                cells.append(("#wrong", str(figures["wrong_or_error"])))
        out.append(line(cells))
    if setup.get("avg_busbw_GBps") is not None:
        out.append("# Avg bus bandwidth    : " + exact(setup["avg_busbw_GBps"], 0))
    out.append("#")
    return "\n".join(out) + "\n", groups == 2


def manifest_entry(setup, in_place):
    topo, topo_why = topology(setup)
    kind, kind_why = role(setup)
    env = nccl_env(setup)
    hw = setup["hardware"]
    derived = None
    if any(row["out_of_place"].get("algbw_busbw_derived") for row in setup["rows"]):
        derived = "algbw and busbw derived by the transcriber from size and time with nccl-tests' formulas"
    return {
        "id": setup["id"],
        "log": "logs/%s.log" % setup["id"],
        "op": setup["op"],
        "dtype": setup.get("dtype"),
        "nranks": setup["nranks"],
        "nodes": hw["nodes"],
        "gpus_per_node": hw["gpus_per_node"],
        "gpu": hw["gpu"],
        "topology": topo,
        "topology_note": topo_why,
        "nccl_env": env,
        "algorithm": (env or {}).get("NCCL_ALGO"),
        "nccl_version": nccl_version(setup),
        "cluster": cluster(setup),
        "role": kind,
        "role_reason": kind_why,
        "quality_flags": setup.get("quality_flags") or [],
        "notes": setup.get("notes") or None,
        "rows": len(setup["rows"]),
        "in_place": in_place,
        "avg_busbw_GBps": setup.get("avg_busbw_GBps"),
        "derived": derived,
        "source": setup["source"],
    }


def table(entries, skipped):
    out = ["| log | op | ranks | GPU | topology | role | source | quality notes |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for entry in entries:
        source = entry["source"]
        where = source.get("repo", "")
        if source.get("issue"):
            where += " #%s" % source["issue"]
        elif source.get("path"):
            where += " `%s`" % source["path"].split(" ")[0]
        if source.get("commit"):
            where += " @ " + source["commit"][:7]
        # aiconfigurator's notes are the same boilerplate on every sweep: "derived" says it.
        notes = ["derived algbw/busbw"] if entry["derived"] else [entry["notes"]] if entry["notes"] else []
        quality = "; ".join(entry["quality_flags"] + notes)
        out.append("| `%s` | %s | %d | %s | %s | %s | %s | %s |" % (
            entry["log"], entry["op"], entry["nranks"], entry["gpu"],
            "`%s`" % entry["topology"].split("/")[-1] if entry["topology"] else "none: " + entry["topology_note"],
            entry["role"], where, quality.replace("|", "/")))
    out += ["", "Not rendered:", ""]
    out += ["- `%s`: %s" % (item["id"], item["reason"]) for item in skipped]
    return "\n".join(out)


def main(argv):
    source = Path(argv[1]) if len(argv) > 1 else DEFAULT_INPUT
    folder = Path(argv[2]) if len(argv) > 2 else HERE
    data = json.loads(source.read_text())
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    entries, skipped = [], []
    for setup in data["setups"]:
        if not full_rows(setup):
            skipped.append({"id": setup["id"], "reason": skip_reason(setup)})
            continue
        text, in_place = render(setup)
        (folder / "logs" / (setup["id"] + ".log")).write_text(text)
        entries.append(manifest_entry(setup, in_place))
    manifest = {"description": "nccl-tests logs re-rendered from ../shared/validation-data/nccl_tests.json by"
                               " render_logs.py; role 'check' logs test the uncalibrated defaults,"
                               " 'underperforming' ones are calibration material only.",
                "logs": entries, "not_rendered": skipped}
    (folder / "setups.json").write_text(json.dumps(manifest, indent=2) + "\n")
    readme = folder / "README.md"
    if readme.exists():
        text = readme.read_text()
        begin, end = text.find(TABLE_BEGIN), text.find(TABLE_END)
        if begin >= 0 and end > begin:
            text = text[:begin + len(TABLE_BEGIN)] + "\n" + table(entries, skipped) + "\n" + text[end:]
            readme.write_text(text)
    print("%d logs written to %s, %d setups not rendered" % (len(entries), folder / "logs", len(skipped)))


if __name__ == "__main__":
    main(sys.argv)
