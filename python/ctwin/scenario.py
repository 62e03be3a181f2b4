"""Training scenarios as values."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

from . import _args, _core
from .errors import InputError


def _value_json(path: str, value: Any) -> str:
    """A changed field's value as JSON; NaN, infinities and objects JSON cannot hold are refused
    naming the field (json.dumps would write NaN, which no JSON reader takes)."""
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise InputError(f"{path}: not a JSON value: {error}", file=path) from None


class Scenario:
    """A training scenario: model, cluster, GPU count, training settings and split.

    Build one with :meth:`load`, :meth:`from_dict` or :meth:`from_json`; derive changed copies
    with :meth:`with_`. Nothing is checked until the scenario is evaluated (or :meth:`validate`
    is called), so a chain of changes may pass through states that are not valid on their own.
    """

    __slots__ = ("_core",)

    def __init__(self, core: _core.Scenario):
        self._core = core

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Scenario":
        """Reads a scenario file. Relative paths, in the call and inside the file, are also tried
        under ctwin's data directory, so ``Scenario.load("scenarios/default.json")`` works from
        anywhere."""
        return cls(_core.Scenario.load(_args.path("path", path)))

    @classmethod
    def from_dict(cls, document: Mapping[str, Any], source: str = "<scenario>") -> "Scenario":
        """A scenario from a dict shaped like a scenario file; ``source`` names it in errors."""
        if not isinstance(document, Mapping):
            raise _args.refuse("document", "a mapping shaped like a scenario file", document)
        try:
            text = json.dumps(document, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise InputError(f"document: not JSON: {error}", file="document") from None
        return cls(_core.Scenario.from_json_text(text, _args.text("source", source)))

    @classmethod
    def from_json(cls, text: str, source: str = "<scenario>") -> "Scenario":
        """A scenario from JSON text; ``source`` names it in errors."""
        return cls(_core.Scenario.from_json_text(_args.text("text", text), _args.text("source", source)))

    def with_(self, changes: Mapping[str, Any] | None = None, /, **fields: Any) -> "Scenario":
        """A copy with fields changed, by dotted path::

            s.with_({"parallel.tp": 4, "cluster.server.nics.bandwidth": "800Gbps"})
            s.with_(network="analytical")

        Values keep their JSON type; quantities take their unit as a string ("400Gbps")."""
        core = self._core
        for path, value in {**_args.mapping("changes", changes), **fields}.items():
            core = core.with_(_args.text("changes key", path), _value_json(path, value))
        return Scenario(core)

    def validate(self) -> "Scenario":
        """Reads the scenario strictly; raises :class:`ctwin.InputError` naming the field at fault."""
        self._core.validate()
        return self

    def to_dict(self) -> dict:
        """The scenario's document as loaded, before its changes (see :attr:`changes`)."""
        return json.loads(self._core.document_json())

    @property
    def changes(self) -> dict:
        """The changes made with :meth:`with_`, by dotted path, in order."""
        return {path: json.loads(value) for path, value in self._core.changes()}

    @property
    def source(self) -> str:
        """Where the scenario came from: its file, or the name given."""
        return self._core.source

    def __repr__(self) -> str:
        changes = ", ".join(f"{k}={v!r}" for k, v in self.changes.items())
        return f"Scenario({self.source!r}{', ' + changes if changes else ''})"


def as_scenario(value: Any, name: str = "scenario") -> Scenario:
    """A :class:`Scenario`, or one loaded from a file or bundled name; anything else is an
    :class:`InputError` naming ``name``."""
    if isinstance(value, Scenario):
        return value
    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise _args.refuse(name, "a Scenario, a scenario file or a bundled scenario name", value)
    return Scenario(_core.Scenario.load(_args.path(name, value)))
