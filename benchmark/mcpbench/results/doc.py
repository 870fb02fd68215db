"""docs/results-format.md's field tables, generated from the model: `python -m mcpbench.results.doc` after
changing a model."""

from __future__ import annotations

import json
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from mcpbench.results.assertions import ASSERTIONS_FILE, Assertions
from mcpbench.results.gate import GATE_FILE, Gate
from mcpbench.results.model import FILES

# Every file the doc describes: the results format's, and the verdict files with versions of their own.
DOCUMENTED: dict[str, type[BaseModel]] = {**FILES, GATE_FILE: Gate, ASSERTIONS_FILE: Assertions}

DOC = Path(__file__).resolve().parents[3] / "docs" / "results-format.md"
DOC_BEGIN = "<!-- fields: generated from benchmark/mcpbench/results/model.py by `python -m mcpbench.results.doc` -->"
DOC_END = "<!-- fields: end -->"


def _type_name(annotation: Any) -> str:
    """A field's type as the doc says it (no `|`: it would split a markdown table cell)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is type(None):
        return "null"
    if origin in (Union, UnionType):
        return " or ".join(_type_name(a) for a in args)
    if origin is Literal:
        return " / ".join(json.dumps(a) for a in args)
    if origin is list:
        return f"list of {_type_name(args[0])}"
    if origin is dict:
        return f"{{{_type_name(args[0])}: {_type_name(args[1])}}}"
    return getattr(annotation, "__name__", "any")


def _models_of(model: type[BaseModel], seen: list[type[BaseModel]]) -> list[type[BaseModel]]:
    """`model` and every model its fields use, depth first, each once."""
    if model not in seen:
        seen.append(model)
        for info in model.model_fields.values():
            for inner in _inner_models(info.annotation):
                _models_of(inner, seen)
    return seen


def _inner_models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in getattr(annotation, "__args__", ()) for m in _inner_models(arg)]


def field_tables() -> str:
    """One markdown table per model, every field with its type and meaning, file by file."""
    out: list[str] = []
    done: list[type[BaseModel]] = []
    for filename, model in DOCUMENTED.items():
        out.append(f"### {filename}\n")
        for part in _models_of(model, []):
            if part in done:
                continue
            done.append(part)
            extra = " (may hold further keys)" if part.model_config.get("extra") == "allow" else ""
            out.append(f"`{part.__name__}`{extra}\n\n| field | type | meaning |\n|---|---|---|")
            for name, info in part.model_fields.items():
                optional = "" if info.is_required() else " (optional)"
                out.append(f"| `{info.alias or name}` | `{_type_name(info.annotation)}` | "
                           f"{info.description}{optional} |")
            out.append("")
    return "\n".join(out)


def render_doc(text: str) -> str:
    """The doc with its generated region replaced by today's field_tables()."""
    head, _, rest = text.partition(DOC_BEGIN)
    _, _, tail = rest.partition(DOC_END)
    return f"{head}{DOC_BEGIN}\n\n{field_tables()}\n{DOC_END}{tail}"


if __name__ == "__main__":  # python -m mcpbench.results.doc: regenerate the doc's tables after changing a model
    DOC.write_text(render_doc(DOC.read_text()))
    print(f"wrote {DOC}")
