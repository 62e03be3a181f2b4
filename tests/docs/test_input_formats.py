"""docs/input-formats.md against the bundled files and the loaders, both ways.

Every key path of every bundled input file (scenarios, topologies, GPU profiles, models, the training and scaling
cases, the NCCL log manifest, GEMM CSV headers) must be documented in its format's section of the page; and every
field the page documents for a JSON format must be a key its loader reads (the key's name, quoted, in the
loader's source). Adding a key to a bundled file without documenting it, or documenting a key no loader reads,
fails here.

Run from the repository root: /usr/bin/python3 -m pytest -q tests/docs/test_input_formats.py
"""

import csv
import glob
import json
import os
import re

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PAGE = os.path.join(ROOT, "docs", "input-formats.md")

# format -> the page's section title
SECTIONS = {
    "scenario": "Scenario",
    "topology": "Topology (cluster)",
    "gpu": "GPU profile",
    "model": "Model (ctwin format)",
    "hf": "Model (Hugging Face config.json)",
    "nccl_calibration": "NCCL calibration file",
    "nccl_manifest": "NCCL log manifest",
    "training_cases": "Training cases file",
    "scaling_cases": "Scaling cases file",
    "gemm_csv": "GEMM CSV",
    "layers": "Layer measurements",
    "stack": "Software stack",
    "error_bands": "Error bands",
    "jobs": "Jobs file (ctwin cluster)",
}

# format -> the sources that read it (JSON formats; the CSV reader's extra columns are ignored, not read)
LOADERS = {
    "scenario": ["src/ctwin/replay/scenario.cpp", "src/ctwin/workload/parallel_config.cpp",
                 "src/ctwin/replay/tp_overlap.cpp", "src/ctwin/replay/moe_runtime.cpp",
                 "src/ctwin/replay/placement.cpp", "src/ctwin/replay/node_placement.cpp",
                 "src/ctwin/replay/data_pipeline.cpp", "src/ctwin/replay/node_pool.cpp",
                 "src/ctwin/replay/checkpoint_spec.cpp"],
    "topology": ["src/ctwin/fabric/cluster_spec.cpp", "src/ctwin/fabric/storage_spec.cpp",
                 "src/ctwin/fabric/topologies/fat_tree.cpp", "src/ctwin/fabric/topologies/dragonfly.cpp",
                 "src/ctwin/fabric/topologies/multi_site.cpp", "src/ctwin/fabric/topologies/plane_clos_fields.cpp"],
    "gpu": ["src/ctwin/compute/gpu_spec.cpp", "src/ctwin/compute/gemm_table.cpp", "src/ctwin/compute/dtype.cpp"],
    "model": ["src/ctwin/workload/model_spec.cpp"],
    "hf": ["src/ctwin/workload/hf_config.cpp", "src/ctwin/workload/model_spec.cpp"],
    "nccl_calibration": ["src/ctwin/calibration/nccl_calibration_file.cpp"],
    "nccl_manifest": ["src/ctwin/calibration/nccl_setups.cpp"],
    "training_cases": ["src/ctwin/replay/training_validation.cpp"],
    "scaling_cases": ["src/ctwin/analysis/scaling_validation.cpp"],
    "layers": ["src/ctwin/replay/layer_times.cpp"],
    "stack": ["src/ctwin/replay/stack_profile.cpp"],
    "error_bands": ["src/ctwin/analysis/error_bands.cpp"],
    "jobs": ["src/ctwin/studies/cluster_jobs.cpp", "src/ctwin/studies/cluster_background.cpp"],
}

# Documents inside documents: the object under this path is read by another format's loader.
NESTED = {
    "scenario": {"model": lambda value: "hf" if is_hf_config(value) else "model", "cluster": lambda _: "topology",
                 "gpu": lambda _: "gpu", "stack": lambda _: "stack"},
    "training_cases": {"cases[].scenario": lambda _: "scenario"},
}


def read(relative):
    with open(os.path.join(ROOT, relative), encoding="utf-8") as f:
        return f.read()


def is_hf_config(document):
    """As workload::is_hf_config decides."""
    return isinstance(document, dict) and any(k in document for k in ("hidden_size", "num_hidden_layers", "model_type"))


def placeholder_patterns():
    """What each placeholder of the page stands for, taken from the code that reads it."""
    dtypes = re.findall(r'\{"(\w+)", Dtype::k\w+\}', read("src/ctwin/compute/dtype.cpp").split("kAliases")[0])
    gemms = re.findall(r'\{"(\w+)", \{&config\.', read("src/ctwin/replay/tp_overlap.cpp"))
    assert dtypes and gemms, "the placeholder lists moved in the source; update this test"
    return {"<dtype>": "(?:" + "|".join(dtypes) + ")", "<gemm>": "(?:" + "|".join(gemms) + ")",
            "<variable>": "NCCL_[A-Z0-9_]+"}


def sections():
    """Section title -> its text, for the page's `## ` sections."""
    out, title, lines = {}, None, []
    for line in read(PAGE).splitlines():
        if line.startswith("## "):
            if title is not None:
                out[title] = "\n".join(lines)
            title, lines = line[3:].strip(), []
        elif title is not None:
            lines.append(line)
    if title is not None:
        out[title] = "\n".join(lines)
    return out


def documented_fields(section_text):
    """The backticked field of the first column of every table row."""
    fields = []
    for line in section_text.splitlines():
        match = re.match(r"\|\s*`([^`]+)`\s*\|", line)
        if match:
            fields.append(match.group(1))
    return fields


def field_regex(field, placeholders):
    """A documented field as a regex over key paths: placeholders stand for one key, `.*` for anything below."""
    opaque = field.endswith(".*")
    base = field[:-2] if opaque else field
    pattern = re.escape(base)
    for name, alternatives in placeholders.items():
        pattern = pattern.replace(re.escape(name), alternatives)
    return re.compile(pattern + (r"(?:\..+|\[\].+)?" if opaque else "") + r"\Z")


class Formats:
    def __init__(self):
        self.placeholders = placeholder_patterns()
        self.text = sections()
        self.fields = {}
        self.regexes = {}
        for kind, title in SECTIONS.items():
            assert title in self.text, f"docs/input-formats.md has no section '## {title}'"
            self.fields[kind] = documented_fields(self.text[title])
            self.regexes[kind] = [field_regex(f, self.placeholders) for f in self.fields[kind]]

    def documented(self, kind, path):
        return any(r.match(path) for r in self.regexes[kind])


def key_paths(value, kind, prefix=""):
    """(format, dotted key path) for every key of a document, descending into arrays of objects with `[]` and into
    nested documents with their own format."""
    if not isinstance(value, dict):
        return
    for key, sub in value.items():
        path = prefix + key
        yield kind, path
        nested = NESTED.get(kind, {}).get(path)
        if nested is not None and isinstance(sub, dict):
            yield from key_paths(sub, nested(sub))
        elif isinstance(sub, dict):
            yield from key_paths(sub, kind, path + ".")
        elif isinstance(sub, list):
            for element in sub:
                yield from key_paths(element, kind, path + "[].")


def bundled_json():
    """(format, file) for every bundled input file."""
    kinds = [("scenario", "scenarios/*.json"), ("scenario", "scenarios/io/*.json"), ("topology", "topologies/*.json"),
             ("topology", "topologies/storage/*.json"),
             ("topology", "topologies/pools/*.json"), ("gpu", "models/gpus/*.json"),
             ("gpu", "models/gpus/calibrated/*.json"), ("training_cases", "validation/training/cases.json"),
             ("scaling_cases", "validation/training/scaling.json"), ("nccl_manifest", "validation/nccl/setups.json"),
             ("stack", "models/stacks/*.json"), ("error_bands", "models/error_bands.json"),
             ("jobs", "scenarios/cluster/*.json")]
    out = []
    for kind, pattern in kinds:
        files = sorted(glob.glob(os.path.join(ROOT, pattern)))
        assert files, f"no bundled file matches {pattern}"
        out += [(kind, f) for f in files]
    for f in sorted(glob.glob(os.path.join(ROOT, "models/llm/*.json"))):
        with open(f, encoding="utf-8") as handle:
            out.append(("hf" if is_hf_config(json.load(handle)) else "model", f))
    # Calibration files written by `ctwin calibrate --nccl`, wherever one is committed.
    for f in sorted(glob.glob(os.path.join(ROOT, "validation/**/*.json"), recursive=True)):
        with open(f, encoding="utf-8") as handle:
            document = json.load(handle)
        if isinstance(document, dict) and "ctwin_calibration" in document:
            out.append(("nccl_calibration", f))
    return out


@pytest.fixture(scope="module")
def formats():
    return Formats()


def test_every_section_documents_fields(formats):
    for kind, fields in formats.fields.items():
        assert len(fields) >= 5, f"section '{SECTIONS[kind]}' documents only {fields}"


def test_every_key_of_every_bundled_file_is_documented(formats):
    missing = set()
    checked = 0
    for kind, path in bundled_json():
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        for key_kind, key in key_paths(document, kind):
            checked += 1
            if not formats.documented(key_kind, key):
                missing.add(f"{os.path.relpath(path, ROOT)}: `{key}` is not in docs/input-formats.md "
                            f"section '{SECTIONS[key_kind]}'")
    assert checked > 1000, f"only {checked} keys found: the walk over the bundled files is broken"
    assert not missing, "\n".join(sorted(missing))


def test_every_gemm_csv_column_is_documented(formats):
    files = sorted(glob.glob(os.path.join(ROOT, "validation/gemm/*.csv")))
    assert files
    missing = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            rows = (line for line in f if line.strip() and not line.lstrip().startswith("#"))
            header = next(csv.reader(rows))
        for column in header:
            if not formats.documented("gemm_csv", column.strip()):
                missing.append(f"{os.path.relpath(path, ROOT)}: column `{column}` is not in section 'GEMM CSV'")
    assert not missing, "\n".join(missing)


def concrete_key(field):
    """The last key of a documented field that names a real key (not a placeholder, not `*`)."""
    keys = [k for k in re.split(r"\.|\[\]", field) if k and k != "*" and not k.startswith("<")]
    return keys[-1]


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_every_documented_field_is_read_by_its_loader(formats, kind):
    source = "".join(read(f) for f in LOADERS[kind])
    unread = [f for f in formats.fields[kind] if f'"{concrete_key(f)}"' not in source]
    assert not unread, (f"section '{SECTIONS[kind]}' documents fields whose key no loader reads "
                        f"({', '.join(LOADERS[kind])}): {unread}")


def test_the_check_catches_an_undocumented_key(formats):
    """The comparison can fail: a misspelt key, a nested one, one inside an array element are all caught."""
    scenario = {"parallel": {"tp": 2, "tpp": 2}, "cluster": {"fabric": {"oversubscription": {"core": 2}}}}
    undocumented = [k for kind, k in key_paths(scenario, "scenario") if not formats.documented(kind, k)]
    assert undocumented == ["parallel.tpp", "fabric.oversubscription.core"]
    cases = {"cases": [{"id": "x", "scenario": {"gpus": 8, "overlap": {"tp_comm_config": {"qkv_fprop": {"nm_sm": 1}}}}}]}
    undocumented = [k for kind, k in key_paths(cases, "training_cases") if not formats.documented(kind, k)]
    assert undocumented == ["overlap.tp_comm_config.qkv_fprop.nm_sm"]
    assert formats.documented("gpu", "gemm_table.bf16.efficiency")
    assert not formats.documented("gpu", "gemm_table.int4.efficiency")
    assert formats.documented("gpu", "calibration.fit.overall.shapes")
    assert not formats.documented("gpu", "calibrationx")
