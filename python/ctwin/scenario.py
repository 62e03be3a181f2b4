"""Training scenarios as values."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

from . import _core


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
        return cls(_core.Scenario.load(os.fspath(path)))

    @classmethod
    def from_dict(cls, document: Mapping[str, Any], source: str = "<scenario>") -> "Scenario":
        """A scenario from a dict shaped like a scenario file; ``source`` names it in errors."""
        return cls(_core.Scenario.from_json_text(json.dumps(document), source))

    @classmethod
    def from_json(cls, text: str, source: str = "<scenario>") -> "Scenario":
        """A scenario from JSON text; ``source`` names it in errors."""
        return cls(_core.Scenario.from_json_text(text, source))

    def with_(self, changes: Mapping[str, Any] | None = None, /, **fields: Any) -> "Scenario":
        """A copy with fields changed, by dotted path::

            s.with_({"parallel.tp": 4, "cluster.server.nics.bandwidth": "800Gbps"})
            s.with_(network="analytical")

        Values keep their JSON type; quantities take their unit as a string ("400Gbps")."""
        core = self._core
        for path, value in {**(changes or {}), **fields}.items():
            core = core.with_(path, json.dumps(value))
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
