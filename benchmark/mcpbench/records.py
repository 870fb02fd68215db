"""What every record of the results format is made of: a pydantic model that one writer owns whole (`Closed`) or
that a runtime or a manifest may add keys to (`Open`), with each field's meaning (`described`).

The lowest layer, so that the module that makes a record (a verify check in workload/, a cgroup's support in
host/) defines it once as its model, and results/model.py names it in the file it belongs to.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Closed(BaseModel):
    """A part one writer owns whole: an unknown key is drift. A value set on a record is checked as it is set
    (validate_assignment), so a typed record is valid whenever it is saved, without a round trip through a dict."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Open(BaseModel):
    """A part a runtime or a manifest may add its own keys to."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)


def described(text: str, default: Any = ...) -> Any:
    """A field with its meaning (rendered into docs/results-format.md)."""
    return Field(default, description=text)
