"""Keyword arguments checked before they reach ``_core``.

pybind11 answers a value of the wrong type with a ``TypeError`` that lists the C++ overload and
never says which argument was wrong, and it converts some wrong values instead of refusing them
(an ``int`` above 2**63 is an ``OverflowError``, a ``str`` with lone surrogates a
``UnicodeEncodeError``). Every public function checks its arguments here first, so that a bad
value is an :class:`InputError` whose ``file`` is the keyword and whose message starts with it,
as the command's flags are named in its errors (issue 36).
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import InputError

# The widest integer the module passes to C++ (std::int64_t); a narrower argument gets its own bound.
INT64_MAX = (1 << 63) - 1
INT32_MAX = (1 << 31) - 1
# ctwin builds at most 2^24 GPUs (core/limits.hpp's kMaxGpus); threads at most 1024, as the command's --jobs.
MAX_GPUS = 1 << 24
MAX_JOBS = 1024
# A GEMM dimension, sequence length or micro-batch: core/limits.hpp's kMaxGemmDim and kMaxSeqLen.
MAX_DIM = 1 << 24


def refuse(name: str, expected: str, value: Any) -> InputError:
    """The error for argument ``name``: what it takes and what it got (shortened)."""
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return InputError(f"{name}: expected {expected}, got {shown}", file=name)


def integer(name: str, value: Any, low: int = 0, high: int = INT64_MAX) -> int:
    """An integer (int, or numpy's, as a DataFrame gives them) in [low, high]. A bool is refused
    (True is not a count), so is a float even when whole (8.0 hides a computation gone wrong),
    and a value outside the range is never wrapped."""
    if _is_flag(value) or not isinstance(value, numbers.Integral):
        raise refuse(name, f"a whole number from {low} to {high}", value)
    number = int(value)
    if not low <= number <= high:
        raise refuse(name, f"a whole number from {low} to {high}", value)
    return number


def optional_integer(name: str, value: Any, low: int = 0, high: int = INT64_MAX) -> int | None:
    return None if value is None else integer(name, value, low, high)


def real(name: str, value: Any, low: float = -math.inf, high: float = math.inf) -> float:
    """A finite int or float in [low, high]; a bool, a string, NaN and infinities are refused."""
    if _is_flag(value) or not isinstance(value, numbers.Real):
        raise refuse(name, f"a number from {low:g} to {high:g}", value)
    try:
        number = float(value)
    except OverflowError:
        raise refuse(name, f"a number from {low:g} to {high:g}", value) from None
    if not math.isfinite(number) or not low <= number <= high:
        raise refuse(name, f"a finite number from {low:g} to {high:g}", value)
    return number


def _is_flag(value: Any) -> bool:
    """True for bool and numpy's bool_ (which is no subclass of bool)."""
    return isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", None) == "b"


def flag(name: str, value: Any) -> bool:
    """True or False; 1, "yes" and None are refused (a truthy string would silently mean True)."""
    if not _is_flag(value) or getattr(value, "shape", ()) != ():
        raise refuse(name, "True or False", value)
    return bool(value)


def _utf8(name: str, value: str, expected: str) -> str:
    if "\0" in value:
        raise refuse(name, expected + " without NUL characters", value)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise refuse(name, expected + " that is valid Unicode", value) from None
    return value


def text(name: str, value: Any, choices: Sequence[str] | None = None) -> str:
    """A str (one of ``choices`` when given)."""
    if not isinstance(value, str):
        raise refuse(name, "a string" if choices is None else "one of " + ", ".join(repr(c) for c in choices), value)
    if choices is not None and value not in choices:
        raise refuse(name, "one of " + ", ".join(repr(c) for c in choices), value)
    return _utf8(name, value, "a string")


def optional_text(name: str, value: Any, choices: Sequence[str] | None = None) -> str:
    """A str, or "" for None (how ``_core`` reads an argument left out)."""
    return "" if value is None else text(name, value, choices)


def path(name: str, value: Any) -> str | bytes:
    """A file or folder as a str or os.PathLike. A name that is not UTF-8 (legal on Linux, and
    what ``os.listdir`` gives as lone surrogates) goes to C++ as its bytes, which ctwin opens
    as they are and writes with U+FFFD in its reports."""
    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise refuse(name, "a path (str or os.PathLike)", value)
    try:
        given = os.fspath(value)
    except TypeError:
        raise refuse(name, "a path (str or os.PathLike)", value) from None
    if not isinstance(given, str):
        raise refuse(name, "a path (str or os.PathLike)", value)
    if "\0" in given:
        raise refuse(name, "a path without NUL characters", value)
    try:
        given.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(given)
    return given


def optional_path(name: str, value: Any) -> str | bytes:
    """A path, or "" for None."""
    return "" if value is None else path(name, value)


def paths(name: str, value: Any) -> list[str | bytes]:
    """One path or a list of them ([] for None)."""
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [path(name, value)]
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Sequence):
        raise refuse(name, "a path or a list of paths", value)
    return [path(f"{name}[{i}]", item) for i, item in enumerate(value)]


def texts(name: str, value: Any, one_allowed: bool = False) -> list[str]:
    """A list (or tuple) of str, [] for None; with ``one_allowed`` a single str is a list of one."""
    if value is None:
        return []
    if isinstance(value, str):
        if one_allowed:
            return [text(name, value)]
        raise refuse(name, "a list of strings", value)
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Sequence):
        raise refuse(name, "a list of strings" + (" or one string" if one_allowed else ""), value)
    return [text(f"{name}[{i}]", item) for i, item in enumerate(value)]


def mapping(name: str, value: Any) -> Mapping[str, Any]:
    """A mapping from str keys ({} for None)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise refuse(name, "a mapping {field: value}", value)
    for key in value:
        text(f"{name} key", key)
    return value


def instance(name: str, value: Any, kind: type, what: str) -> Any:
    """None or an instance of ``kind``."""
    if value is not None and not isinstance(value, kind):
        raise refuse(name, what, value)
    return value


def options(kind: type, **fields: Any) -> Any:
    """A ``_core`` options object with ``fields`` set, each value checked above first; a setter
    that parses its text names the keyword when it refuses one."""
    made = kind()
    for name, value in fields.items():
        setattr(made, name, value)
    return made
