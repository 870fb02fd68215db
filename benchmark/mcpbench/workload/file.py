"""A workload file (docs/workload-file.md): the calls a load makes — each a tool with its arguments and a
weight, the checks on its reply — read at the edge into typed objects, a mistake in it one line naming the
file, the line and the field; and compiled for the load driver (its --workload), which makes those calls.
The lineup's own workload is one such file (lineup.toml): compiled, its bodies are load.js's byte for byte.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from functools import cache, cached_property
from pathlib import Path
from typing import Final, Literal

import pandas as pd
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from mcpbench.loads.base import METHODS, tool_calls, with_kinds
from mcpbench.records import Closed, described
from mcpbench.workload.dimension_tools import MAX_PROGRESS

LINEUP = Path(__file__).with_name("lineup.toml")

# {vu} / {iteration}, optionally %N (cycled through N values) and :0W (zero-padded to W digits); the load
# driver's placeholder (benchmark/load-driver/plan.go) is the same expression.
PLACEHOLDER = re.compile(r"\{(vu|iteration)(?:%([1-9][0-9]*))?(?::0([1-9][0-9]?))?\}")
# Anything that looks meant as one: `{vu%0}`, `{iteration:5}` would otherwise go out as literal text.
_PLACEHOLDER_LIKE = re.compile(r"\{(?:vu|iteration)\b[^{}]*\}")

TOOLS_CALL: Final = "tools/call"
RESOURCES_READ: Final = "resources/read"
# The requests a client makes of an MCP server that a workload may call (initialize and the notifications are
# the session's own, made by the load driver as the session pattern says).
Method = Literal["tools/call", "tools/list", "resources/list", "resources/templates/list", "resources/read",
                 "prompts/list", "prompts/get", "completion/complete", "ping"]
# What each method's params must hold, checked at the edge so a mistake is a line of the file, not an error
# code in every sample: member -> what it is.
_REQUIRED: Final[dict[str, dict[str, type]]] = {
    "resources/read": {"uri": str},
    "prompts/get": {"name": str},
    "completion/complete": {"ref": dict, "argument": dict},
}
# The value the 2026-07-28 revision's Mcp-Name header carries, by method: the params member that names what
# is called (a tool's is its `tool`).
_MCP_NAME: Final = {"resources/read": "uri", "prompts/get": "name"}
# The paged list methods (followed page by page: one call is several requests).
_PAGED: Final = frozenset({"tools/list", "resources/list", "resources/templates/list", "prompts/list"})


class CallKind(Closed):
    """What a measurement's context records of one call of its workload, by its samples' name."""

    method: str = described("the MCP method (tools/call for a tool)")
    counted: bool = described("counted among the calls (calls/s, call latency, errors); false: a method made "
                              "in the closed iteration only, with figures of its own (the lineup's tools/list)")


class WorkloadError(ValueError):
    """A workload file that cannot be used; the message is one line: file, line, field, what is wrong."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReplyCheck(_Strict):
    """A check on a reply: the value at `pointer` (RFC 6901) in the tool result's first text content parsed
    as JSON (or its structured content), or in a method's result; with nothing else, that it exists."""

    pointer: str = ""
    equals: JsonValue = None
    exists: bool = True
    length: int | None = Field(default=None, ge=0)
    min_length: int | None = Field(default=None, ge=0)
    above: float | None = None

    @field_validator("pointer")
    @classmethod
    def _pointer(cls, value: str) -> str:
        if value and not value.startswith("/"):
            raise ValueError(f"{value!r} is no JSON pointer: it starts with / (\"\" is the whole result)")
        return value

    @model_validator(mode="after")
    def _absent_alone(self) -> ReplyCheck:
        if not self.exists and (self.equals is not None or self.length is not None or self.min_length is not None
                                or self.above is not None):
            raise ValueError("exists = false cannot be combined with equals, length, min_length or above")
        return self

    def problem(self, document: JsonValue) -> str | None:
        """What is wrong with the document for this check (None: it holds) — the load driver's verdict
        (plan.go check.holds), said in words for verify."""
        found, value = _at(document, self.pointer)
        where = self.pointer or "the result"
        if not self.exists:
            return f"{where} is {_short(value)}, expected it absent" if found else None
        if not found:
            return f"{where} is missing"
        if self.length is not None or self.min_length is not None:
            if not isinstance(value, list | str):
                return f"{where} is {_short(value)}, not an array or a string"
            unit = "elements" if isinstance(value, list) else "characters"
            if self.length is not None and len(value) != self.length:
                return f"{where} has {len(value)} {unit}, expected {self.length}"
            if self.min_length is not None and len(value) < self.min_length:
                return f"{where} has {len(value)} {unit}, expected at least {self.min_length}"
        if self.above is not None and not (isinstance(value, int | float) and not isinstance(value, bool)
                                           and value > self.above):
            return f"{where} is {_short(value)}, expected a number above {self.above:g}"
        if self.equals is not None and not _equal(value, self.equals):
            return f"{where} is {_short(value)}, expected {_short(self.equals)}"
        return None

    def compiled(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {"pointer": self.pointer}
        if not self.exists:
            out["absent"] = True
        for name in ("length", "min_length", "above"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.equals is not None:
            out["equals"] = self.equals
        return out


class Call(_Strict):
    """One request of the workload: a tool with its arguments, or an MCP method with its params."""

    tool: str | None = None
    method: Method = TOOLS_CALL
    name: str | None = Field(default=None, description="what its samples are called (default: the tool or method)")
    arguments: dict[str, JsonValue] = Field(default_factory=dict)
    params: dict[str, JsonValue] = Field(default_factory=dict, description="a method's params (not a tool call's)")
    # A tool call is always an arrival: counted in calls/s and latency, and made by the open model's arrivals.
    # A method call is one when the file says so; otherwise it is made in the closed iteration only and its
    # figures are its own (the lineup's tools/list).
    arrival: bool = Field(default=False, description="a method call counted as a call and made by arrivals")
    weight: int = Field(default=1, ge=1)
    check: list[ReplyCheck] = Field(default_factory=list)
    # Streamed progress (docs/workload.md §6): the call carries a progress token (params._meta.progressToken) and
    # its reply must bring this many notifications/progress before the result; the first one's arrival is timed.
    progress: int = Field(default=0, ge=0, le=MAX_PROGRESS,
                          description="notifications/progress the call asks for and must receive before its result")
    # A client that gave up on the call (load-driver/cancel.go): notifications/cancelled in a session and over
    # stdio, the response stream closed without one. Such a call is never counted: it has no latency to rank.
    cancel_after_ms: int = Field(default=0, ge=0, le=600_000,
                                 description="the client cancels the call this long after sending it (0: never)")
    work_list: str | None = Field(default=None, min_length=1, max_length=200,
                                  description="the Redis list the call's work appends Unix-ms times to (placeholders "
                                              "allowed): read after the load, the steps done after the cancellation")

    @field_validator("params")
    @classmethod
    def _params(cls, value: dict[str, JsonValue], info: ValidationInfo) -> dict[str, JsonValue]:
        method = info.data.get("method")
        if value and method == TOOLS_CALL:
            raise ValueError("a tool call's are `tool` and `arguments`, not `params`")
        for member, kind in _REQUIRED.get(str(method), {}).items():
            if not isinstance(value.get(member), kind):
                what = "a string" if kind is str else "a table"
                raise ValueError(f"{method} needs params.{member}, {what} (docs/workload-file.md)")
        if isinstance(value.get("_meta"), dict) or "cursor" in value:
            raise ValueError("_meta and cursor are the load driver's to send (pages are followed)")
        return value

    @model_validator(mode="after")
    def _tool_or_method(self) -> Call:
        if self.method == TOOLS_CALL and not self.tool:
            raise ValueError("a call names its `tool` (or a `method`, such as \"resources/read\")")
        if self.progress and self.method != TOOLS_CALL:
            raise ValueError(f"{self.method} streams no progress (`progress` is a tool call's)")
        if self.method != TOOLS_CALL and (self.tool or self.arguments):
            raise ValueError(f"{self.method} takes no tool and no arguments (its are `params`)")
        if self.method == TOOLS_CALL and self.arrival:
            raise ValueError("a tool call is always an arrival (`arrival` is a method call's)")
        if self.work_list and not self.cancel_after_ms:
            raise ValueError("a work_list is read for a cancelled call only: give cancel_after_ms")
        if self.cancel_after_ms and self.method in _PAGED:
            raise ValueError(f"{self.method} is paged: a cancelled call is a single request")
        if self.cancel_after_ms and self.arrival:
            raise ValueError("a cancelled call is never counted (`arrival` makes a method call counted)")
        for text in _strings({**self.arguments, **self.params, "work_list": self.work_list or ""}):
            for meant in _PLACEHOLDER_LIKE.findall(text):
                if not PLACEHOLDER.fullmatch(meant):
                    raise ValueError(f"{meant}: a placeholder is {{vu}} or {{iteration}}, with %N and :0W "
                                     "optional (for instance {vu%1000:05})")
        return self

    @property
    def label(self) -> str:
        return self.name or self.tool or self.method

    @property
    def counted(self) -> bool:
        """Counted among the calls (calls/s, call latency, errors) and made by the open model's arrivals; a call
        the client cancels never is (made in the closed iteration only)."""
        return (self.method == TOOLS_CALL or self.arrival) and not self.cancel_after_ms

    def rendered_arguments(self, vu: int = 1, iteration: int = 0) -> dict[str, JsonValue]:
        """The arguments as a VU sends them (the placeholders put in, as the load driver does)."""
        return _rendered(self.arguments, vu, iteration)

    def rendered_params(self, vu: int = 1, iteration: int = 0) -> dict[str, JsonValue]:
        """A method's params as a VU sends them."""
        return _rendered(self.params, vu, iteration)

    def problem(self, result: JsonValue) -> str | None:
        """What is wrong with a reply's result for this call (None: the checks hold): the document its checks
        read is the first text content as JSON (text that is no JSON as a string), or the structured content;
        resources/read's first contents' text; another method's result object."""
        if not isinstance(result, dict):
            return f"the result is {_short(result)}"
        if self.method == RESOURCES_READ:
            contents = result.get("contents")
            first = contents[0] if isinstance(contents, list) and contents else None
            text = first.get("text") if isinstance(first, dict) else None
            if not isinstance(text, str):
                return "no text in the first contents" if self.check else None
            document: JsonValue = _parsed(text)
        elif self.method != TOOLS_CALL:
            document = result
        else:
            if result.get("isError"):
                return f"a tool error: {_short(result.get('content'))}"
            content = result.get("content")
            first = content[0] if isinstance(content, list) and content else None
            text = first.get("text") if isinstance(first, dict) else None
            if isinstance(text, str):
                document = _parsed(text)
            elif "structuredContent" in result:
                document = result["structuredContent"]
            else:
                return "no text content and no structured content" if self.check else None
        for check in self.check:
            problem = check.problem(document)
            if problem:
                return problem
        return None

    def params_text(self) -> str:
        """params' members as JSON text without braces, as JSON.stringify writes them (no spaces, keys in
        the file's order, 50.0 as 50)."""
        if self.method != TOOLS_CALL:
            return _json(self.params)[1:-1]
        # The token names the VU: a client's tokens need only be unique among its own requests in flight.
        meta = ',"_meta":{"progressToken":"mcpbench-{vu}"}' if self.progress else ""
        return f'"name":{_json(self.tool)},"arguments":{_json(self.arguments)}{meta}'

    @property
    def mcp_name(self) -> str:
        """What the 2026-07-28 revision's Mcp-Name header says of this call (placeholders as in params;
        "": the method names nothing)."""
        if self.method == TOOLS_CALL:
            return self.tool or ""
        value = self.params.get(_MCP_NAME.get(self.method, ""))
        return value if isinstance(value, str) else ""


class WorkloadFile(_Strict):
    """What a workload file holds."""

    description: str | None = None
    session: Literal["session", "persistent", "stateless", "stateless-2026", "stdio"] | None = Field(
        default=None, description="the session pattern the calls are made in when --mode is not given")
    setup: str | None = Field(default=None, min_length=1,
                              description="a command run (bash, in the server's directory) before every measurement")
    # The lineup's tools read the suite's Redis and API service; another server's calls read nothing of the suite's,
    # so neither is started nor re-seeded for it (ServerSpec.uses_infra).
    seeded: bool = Field(default=False, description="the calls read the suite's Redis seed and API service (the "
                                                    "lineup's tools): both run, Redis re-seeded before every "
                                                    "measurement")
    call: list[Call] = Field(min_length=1)
    # A client that crashed, slept or forgot its DELETE: session mode's session per call, left open. Over stdio, a
    # client that hangs with the pipes open: it sends on and reads no reply until the load's watch.
    abandon: bool = Field(default=False, description="leave each session open after its call (session mode); over "
                                                     "stdio, read no reply until the watch")
    # A client that died while listening: the TCP connection under an open stream gone without a word.
    drop_stream: bool = Field(default=False, description="after each abandoned session's call, open its GET stream "
                                                         "and drop the TCP connection under it unread (needs abandon)")

    @model_validator(mode="after")
    def _labels(self) -> WorkloadFile:
        if self.abandon and self.session not in (None, "session", "stdio"):
            raise ValueError(f"abandon leaves session mode's sessions open, or stops reading a stdio server; "
                             f"session = {self.session!r} is neither")
        if self.drop_stream and not self.abandon:
            raise ValueError("drop_stream drops the streams of abandoned sessions: it needs abandon = true")
        if self.drop_stream and self.session == "stdio":
            raise ValueError("drop_stream drops HTTP streams; session = 'stdio' has none")
        labels = [c.label for c in self.call]
        taken = [c.label for c in self.call if c.counted and c.label in METHODS]
        if taken:
            raise ValueError(f"a counted call cannot be called {taken[0]!r}: that names an uncounted method's "
                             "samples in earlier runs")
        twice = sorted({label for label in labels if labels.count(label) > 1})
        if twice:
            raise ValueError(f"two calls are called {twice[0]!r}: give one a `name` (its samples are by name)")
        if not any(c.counted for c in self.call):
            raise ValueError("no tool call and no method call with `arrival = true` (the calls counted, and the "
                             "open model's arrivals)")
        return self


class Workload:
    """A read workload file: its calls, and the load driver's --workload made from them."""

    def __init__(self, path: Path, spec: WorkloadFile, headers: dict[str, str] | None = None,
                 work_redis: str | None = None):
        self.path = path
        self.spec = spec
        self.headers = dict(headers or {})  # sent with every HTTP request (a target's --header)
        self.work_redis = work_redis        # the Redis (URL) the work lists are read from, as the driver reaches it

    def with_headers(self, headers: dict[str, str]) -> Workload:
        return Workload(self.path, self.spec, {**self.headers, **headers}, self.work_redis) if headers else self

    @property
    def reads_work(self) -> bool:
        """Some cancelled call's work is read from Redis after the load (its work_list)."""
        return any(c.work_list for c in self.calls)

    def reading_work_from(self, redis_url: str) -> Workload:
        """This workload with the Redis its work lists are read from (the bench's, as the load driver reaches it)."""
        return Workload(self.path, self.spec, self.headers, redis_url)

    @classmethod
    def read(cls, path: Path) -> Workload:
        """The file, checked; WorkloadError (one line: file, line, field) when it cannot be used."""
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise WorkloadError(f"{path}: cannot read it ({exc})") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise WorkloadError(f"{path}: not TOML: {exc}") from None
        try:
            return cls(path, WorkloadFile.model_validate(data))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = [part for part in first["loc"]
                   if not (isinstance(part, str) and part.startswith(("function-", "json-")))]
            field = ".".join(str(p) for p in loc)
            line = _line_of(text, loc)
            where = f"{path}:{line}" if line else str(path)
            message = first["msg"].removeprefix("Value error, ")
            raise WorkloadError(f"{where}: {field + ': ' if field else ''}{message}") from None

    @cached_property
    def calls(self) -> tuple[Call, ...]:
        return tuple(self.spec.call)

    @property
    def names(self) -> tuple[str, ...]:
        """The calls' sample names, in the file's order."""
        return tuple(c.label for c in self.calls)

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(c.label for c in self.calls if c.method == TOOLS_CALL)

    @property
    def closed_iteration(self) -> tuple[str, ...]:
        """The closed model's iteration: its samples' names in order, each call `weight` times (the load
        driver's plan.closed)."""
        return tuple(c.label for c in self.calls for _ in range(c.weight))

    @property
    def tool_calls_per_iteration(self) -> int:
        """Counted calls in the closed model's iteration (each call `weight` times)."""
        return sum(c.weight for c in self.calls if c.counted)

    def kinds(self) -> dict[str, CallKind]:
        """Each call's samples' name: its method and whether it is counted (what a measurement's context
        records, so the analysis tells calls from uncounted methods)."""
        return {c.label: CallKind(method=c.method, counted=c.counted) for c in self.calls}

    def counted_calls(self, samples: pd.DataFrame) -> pd.DataFrame:
        """The samples of this workload's counted calls (its uncounted methods' left out)."""
        return tool_calls(with_call_kinds(samples, self.kinds()))

    def driver_json(self) -> str:
        """The load driver's --workload (benchmark/load-driver/plan.go)."""
        calls: list[JsonValue] = [{"name": c.label, "method": c.method, "tool": c.tool or "",
                                   "params": c.params_text(), "weight": c.weight,
                                   "checks": [k.compiled() for k in c.check],
                                   **({"mcp_name": c.mcp_name} if c.mcp_name != (c.tool or "") else {}),
                                   **({"arrival": True} if c.arrival else {}),
                                   **({"progress": c.progress} if c.progress else {}),
                                   **({"cancel_after_ms": c.cancel_after_ms} if c.cancel_after_ms else {}),
                                   **({"work_list": c.work_list} if c.work_list else {})}
                                  for c in self.calls]
        plan: dict[str, JsonValue] = {"calls": calls}
        if self.work_redis:
            plan["work_redis"] = self.work_redis
        if self.spec.abandon:
            plan["abandon"] = True
        if self.spec.drop_stream:
            plan["drop_stream"] = True
        if self.headers:
            plan["headers"] = {**self.headers}
        return _json(plan)


def with_call_kinds(samples: pd.DataFrame, calls: Mapping[str, CallKind] | None) -> pd.DataFrame:
    """The samples with each one's method and whether it is a counted call, as a workload's calls say
    (loads.with_kinds; a measurement's context records them); as they are for the lineup's (None)."""
    if calls is None:
        return samples
    return with_kinds(samples, {name: call.method for name, call in calls.items()},
                      [name for name, call in calls.items() if not call.counted])


@cache
def lineup() -> Workload:
    """The lineup's workload (docs/workload.md): the three tools and tools/list."""
    return Workload.read(LINEUP)


def _json(value: JsonValue) -> str:
    return json.dumps(_as_js(value), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _as_js(value: JsonValue) -> JsonValue:
    """A value as JavaScript holds it: one kind of number, so 50.0 is written 50 (JSON.stringify)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {k: _as_js(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_js(v) for v in value]
    return value


def _rendered(values: dict[str, JsonValue], vu: int, iteration: int) -> dict[str, JsonValue]:
    def render(value: JsonValue) -> JsonValue:
        if isinstance(value, str):
            return PLACEHOLDER.sub(lambda m: _placeholder(m, vu, iteration), value)
        if isinstance(value, dict):
            return {k: render(v) for k, v in value.items()}
        if isinstance(value, list):
            return [render(v) for v in value]
        return value
    return {k: render(v) for k, v in values.items()}


def _parsed(text: str) -> JsonValue:
    """A reply's text as the checks read it: JSON, or the text itself when it is no JSON."""
    try:
        parsed: JsonValue = json.loads(text)
    except ValueError:
        return text
    return parsed


def _placeholder(match: re.Match[str], vu: int, iteration: int) -> str:
    name, cycle, width = match.group(1), match.group(2), match.group(3)
    value = vu if name == "vu" else iteration
    if cycle:
        value = (value - 1) % int(cycle) + 1 if name == "vu" else value % int(cycle)
    return str(value).zfill(int(width)) if width else str(value)


def _at(document: JsonValue, pointer: str) -> tuple[bool, JsonValue]:
    """RFC 6901: (found, value); null on the way or at the end is not found, as in the load driver."""
    value = document
    if pointer:
        for token in pointer[1:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(value, dict) and token in value:
                value = value[token]
            elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
                value = value[int(token)]
            else:
                return False, None
        if value is None:
            return False, None
    return True, value


def _equal(a: JsonValue, b: JsonValue) -> bool:
    """JSON equality: numbers as numbers (2 == 2.0), booleans apart from numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _short(value: JsonValue) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "…"


def _strings(value: JsonValue):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _line_of(text: str, loc: list) -> int | None:
    """The line a validation error's location points at: the n-th [[call]] (and its n-th [[call.check]])
    table, then the first line in it that sets the field; None when it cannot be told."""
    lines = text.splitlines()
    start, end = 0, len(lines)

    def nth_table(header: str, n: int, lo: int, hi: int) -> int | None:
        seen = -1
        for i in range(lo, hi):
            if lines[i].strip().startswith(header):
                seen += 1
                if seen == n:
                    return i
        return None

    def table_end(lo: int) -> int:
        for i in range(lo + 1, len(lines)):
            if lines[i].strip().startswith("["):
                return i
        return len(lines)

    parts = list(loc)
    if len(parts) >= 2 and parts[0] == "call" and isinstance(parts[1], int):
        found = nth_table("[[call]]", parts[1], 0, len(lines))
        if found is None:
            return None
        start, end = found, table_end(found)
        parts = parts[2:]
        if len(parts) >= 2 and parts[0] == "check" and isinstance(parts[1], int):
            check_end = len(lines)
            for i in range(found + 1, len(lines)):
                if lines[i].strip() == "[[call]]":
                    check_end = i
                    break
            nested = nth_table("[[call.check]]", parts[1], found + 1, check_end)
            if nested is None:
                return start + 1
            start, end = nested, table_end(nested)
            parts = parts[2:]
    key = next((p for p in parts if isinstance(p, str)), None)
    if key is not None:
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*[=.]")
        for i in range(start, end):
            if pattern.match(lines[i]):
                return i + 1
    return start + 1 if loc else None
