"""The dimension tools (docs/workload.md §6): what a reference server registers beside the three workload tools
when a contract setting turns it on — `EXTRA_TOOLS=N` tools for tools/list at scale, `DIMENSION_TOOLS=1` for
`echo_payload` (reply size), `stream_progress` (streamed progress) and `stepped_work` (work a cancellation should
stop), `SSE_REPLIES=1` for replies a notification can ride on, `SESSIONS=1` for sessions kept — their reference
answers, and verify's checks of them.

Off by default, so the lineup's tools/list, its wire pattern and every figure measured without them stay as
they were.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx
import redis

from mcpbench.workload.mcp_client import ACCEPT, JsonRpc, McpClient, Reply, parse_message, tool_payload

EXTRA_TOOLS = "EXTRA_TOOLS"          # the environment settings, docs/server-contract.md
DIMENSION_TOOLS = "DIMENSION_TOOLS"
SSE_REPLIES = "SSE_REPLIES"
SESSIONS = "SESSIONS"
ECHO_PAYLOAD = "echo_payload"
STREAM_PROGRESS = "stream_progress"
MAX_PROGRESS = 1000                  # stream_progress's count at most (docs/workload.md §6)
VERIFY_PROGRESS = 3                  # the notifications verify asks for
# The streamed-progress dimension's name, which a manifest whose SDK cannot stream opts out of ([server] unsupported =
# { progress = "why" }): verify then holds stream_progress to its answer alone.
PROGRESS = "progress"
STEPPED_WORK = "stepped_work"
MAX_STEPS = 1000                     # stepped_work's steps at most (docs/workload.md §6)
# The cancellation dimension's name, which a manifest opts out of ([server] unsupported = { cancellation = "why" }).
CANCELLATION = "cancellation"
PAYLOAD_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
MAX_PAYLOAD = 16 * 1024 * 1024
# What a request to echo_payload carries at most: every server refuses request bodies of 1 MiB and more
# (docs/server-contract.md, bad input), so the payload sweep's argument stops here while its reply grows on.
MAX_ARGUMENT = 64 * 1024
# The payload sweep's reply sizes (docs/workload.md §6): what `mcpbench dimension --dimension payload` measures and
# verify checks, each.
PAYLOAD_SIZES = (1024, 64 * 1024, 1024 * 1024, 4 * 1024 * 1024)
# The properties every extra tool's input schema has, with their JSON types.
EXTRA_SCHEMA_TYPES = {"query": "string", "limit": "integer", "sort": "string", "filters": "object"}


def extra_tool_name(index: int) -> str:
    """The index-th extra tool (from 1)."""
    return f"extra_{index:05d}"


def payload(size: int) -> str:
    """echo_payload's reference answer: `size` characters of the alphabet, repeated."""
    whole, rest = divmod(size, len(PAYLOAD_ALPHABET))
    return PAYLOAD_ALPHABET * whole + PAYLOAD_ALPHABET[:rest]


def size_text(size: int) -> str:
    """A payload size as its check and its point are named: "64 KiB", "1 MiB"."""
    return f"{size // (1024 * 1024)} MiB" if size >= 1024 * 1024 else f"{size // 1024} KiB"


def argument(size: int) -> str:
    """The `data` a request of the payload sweep carries for a reply of `size`: as large, up to MAX_ARGUMENT."""
    return payload(min(size, MAX_ARGUMENT))


@dataclass(frozen=True)
class ToolSettings:
    """The contract settings a server was started with (read from its environment)."""

    extra_tools: int = 0
    dimension_tools: bool = False
    sse_replies: bool = False     # reply over SSE where the SDK has the choice (a JSON reply carries no notification)
    sessions: bool = False        # the SDK's stateful transport: Mcp-Session-Id issued, each session kept

    @classmethod
    def from_environment(cls, env: dict[str, str]) -> ToolSettings:
        extra = env.get(EXTRA_TOOLS, "").strip()
        return cls(extra_tools=int(extra) if extra.isdigit() else 0,
                   dimension_tools=env.get(DIMENSION_TOOLS, "").strip() == "1",
                   sse_replies=env.get(SSE_REPLIES, "").strip() == "1",
                   sessions=env.get(SESSIONS, "").strip() == "1")

    def tool_names(self) -> set[str]:
        """The tools a server started with these settings registers beside the three workload tools."""
        names = {extra_tool_name(i) for i in range(1, self.extra_tools + 1)}
        return names | ({ECHO_PAYLOAD, STREAM_PROGRESS, STEPPED_WORK} if self.dimension_tools else set())

    def environment(self) -> dict[str, str]:
        return {EXTRA_TOOLS: str(self.extra_tools), DIMENSION_TOOLS: "1" if self.dimension_tools else "0",
                **({SSE_REPLIES: "1"} if self.sse_replies else {}), **({SESSIONS: "1"} if self.sessions else {})}


def check_listed(tools: dict[str, JsonRpc], settings: ToolSettings) -> list[str]:
    """What is wrong with the listed dimension tools: a setting ignored, an extra tool without its schema."""
    problems = []
    wanted = settings.tool_names()
    missing = sorted(wanted - set(tools))
    if missing:
        ignored = [f"{EXTRA_TOOLS}={settings.extra_tools}"] if any(m.startswith("extra_") for m in missing) else []
        ignored += [f"{DIMENSION_TOOLS}=1"] if {ECHO_PAYLOAD, STREAM_PROGRESS, STEPPED_WORK} & set(missing) else []
        problems.append(f"{' and '.join(ignored)} ignored: {len(missing)} tool(s) missing "
                        f"({', '.join(missing[:3])}{'…' if len(missing) > 3 else ''})")
    for name in sorted(wanted & set(tools)):
        if not name.startswith("extra_"):
            continue
        schema = tools[name].get("inputSchema") or {}
        properties = schema.get("properties") or {}
        wrong = [f"{key} ({(properties.get(key) or {}).get('type')!r}, expected {kind!r})"
                 for key, kind in EXTRA_SCHEMA_TYPES.items() if (properties.get(key) or {}).get("type") != kind]
        if schema.get("type") != "object" or wrong or "query" not in (schema.get("required") or []):
            problems.append(f"{name}'s input schema is not the contract's: "
                            + (", ".join(wrong) if wrong else "query not required or not an object schema"))
            break  # one tool says it; all are registered alike
    return problems


def check_extra_call(reply: Reply, name: str, server_type: str) -> list[str]:
    if reply.status != 200 or reply.error or not reply.result or reply.result.get("isError"):
        return [f"{name}: HTTP {reply.status}: {reply.body[:200]!r}"]
    data = tool_payload(reply)
    expected = {"tool": name, "query": "verify", "server_type": server_type}
    return [] if data == expected else [f"{name} answered {str(data)[:200]}, expected {expected}"]


@dataclass(frozen=True)
class PayloadVerdict:
    """echo_payload at one size: fine, refused (an error reply: a limit of the server's), or wrong."""

    size: int
    problem: str = ""        # a wrong answer: truncated, altered, miscounted
    refused: str = ""        # a limit: the server answered with an error instead of the payload

    @property
    def ok(self) -> bool:
        return not self.problem and not self.refused


def check_payload(reply: Reply, size: int) -> PayloadVerdict:
    if reply.status != 200 or reply.error or not reply.result or reply.result.get("isError"):
        what = (f"JSON-RPC error {reply.error.get('code')}: {str(reply.error.get('message'))[:120]}" if reply.error
                else f"a tool error: {reply.body[:160]!r}" if reply.result
                else f"HTTP {reply.status}: {reply.body[:160]!r}")
        return PayloadVerdict(size, refused=what)
    data = tool_payload(reply)
    got = data.get("payload")
    problems = []
    if not isinstance(got, str):
        problems.append(f"payload is {type(got).__name__}, expected a string")
    elif len(got) != size:
        problems.append(f"payload is {len(got):,} characters, expected {size:,} (truncated)" if len(got) < size
                        else f"payload is {len(got):,} characters, expected {size:,}")
    elif got != payload(size):
        at = next(i for i, (a, b) in enumerate(zip(got, payload(size), strict=True)) if a != b)
        problems.append(f"payload differs from the reference at character {at:,}")
    if data.get("size") != size:
        problems.append(f"size is {data.get('size')!r}, expected {size}")
    if data.get("received") != len(argument(size)):
        problems.append(f"received is {data.get('received')!r}, expected {len(argument(size))} (the data argument)")
    return PayloadVerdict(size, problem="; ".join(problems))


def call_payload(client: McpClient, size: int) -> Reply:
    return client.call_tool(ECHO_PAYLOAD, {"size": size, "data": argument(size)})


@dataclass(frozen=True)
class StreamedReply:
    """A tools/call answered over Streamable HTTP, read as it arrived: the progress notifications before the
    result (each with the seconds from the request's start), the result's message, and how it was framed."""

    status: int
    content_type: str
    notifications: tuple[tuple[float, JsonRpc], ...]
    message: JsonRpc | None
    result_s: float
    body_head: str


def progress_token(vu: int | str) -> str:
    return f"mcpbench-{vu}"


def _progress_failed(reply: StreamedReply) -> str | None:
    """The call failed outright (no 200, no result, an error or a tool error): nothing else can be judged."""
    if reply.status != 200 or not reply.message or reply.message.get("error") or \
            (reply.message.get("result") or {}).get("isError"):
        return f"HTTP {reply.status} ({reply.content_type or 'no content type'}): {reply.body_head[:200]!r}"
    return None


def _progress_answer(reply: StreamedReply, count: int, token: str | None, server_type: str) -> list[str]:
    """The result itself: {count, sent, server_type}, sent = count with a token, 0 without one."""
    try:
        data = tool_payload(Reply(reply.status, reply.content_type, None, reply.message, reply.body_head))
    except (ValueError, TypeError):
        data = None
    expected = {"count": count, "sent": count if token is not None else 0, "server_type": server_type}
    return [] if data == expected else [f"answered {str(data)[:200]}, expected {expected}"]


def _progress_stream(reply: StreamedReply, count: int, token: str | None) -> list[str]:
    """The notifications: every one of them, in order (progress 1 … count, total count, the call's token), on the
    call's own SSE reply before its result; without a token, none."""
    got = [n.get("params") or {} for _, n in reply.notifications if n.get("method") == "notifications/progress"]
    wanted = count if token is not None else 0
    if wanted and "text/event-stream" not in reply.content_type:
        return [f"replied {reply.content_type or 'nothing'}, not an SSE stream: no notification can ride on it "
                f"(the server ignores {SSE_REPLIES}=1, or its SDK cannot stream)"]
    if len(got) != wanted:
        return [f"{len(got)} progress notification(s) before the result, expected {wanted}"
                + ("" if token is not None else " (the call carried no progress token)")]
    wrong = [p for i, p in enumerate(got, 1)
             if p.get("progressToken") != token or p.get("progress") != i or p.get("total") != count]
    return [f"progress notification {wrong[0]} is not the contract's (progressToken {token!r}, "
            f"progress 1 … {count} in order, total {count})"] if wrong else []


def check_progress_answer(reply: StreamedReply, count: int, token: str | None, server_type: str) -> list[str]:
    """What is wrong with stream_progress's answer alone (a server whose SDK cannot stream is held to this)."""
    failed = _progress_failed(reply)
    return [failed] if failed else _progress_answer(reply, count, token, server_type)


def check_progress(reply: StreamedReply, count: int, token: str | None, server_type: str) -> list[str]:
    """What is wrong with stream_progress's answer to a call asking for `count` notifications under `token`
    (docs/workload.md §6): its notifications (_progress_stream), then its result (_progress_answer)."""
    failed = _progress_failed(reply)
    if failed:
        return [failed]
    return _progress_stream(reply, count, token) + _progress_answer(reply, count, token, server_type)


def call_progress(client: McpClient, count: int, token: str | None) -> StreamedReply:
    """stream_progress called once in the client's session, its reply read line by line as it streams, each
    notification timed from the request's start."""
    params: JsonRpc = {"name": STREAM_PROGRESS, "arguments": {"count": count},
                       **({"_meta": {"progressToken": token}} if token is not None else {})}
    started = time.monotonic()
    notifications: list[tuple[float, JsonRpc]] = []
    message: JsonRpc | None = None
    lines: list[str] = []
    with client.stream("tools/call", params) as response:
        content_type = response.headers.get("content-type", "")
        sse = "text/event-stream" in content_type
        for line in response.iter_lines():
            lines.append(line)
            if not sse or not line.startswith("data:"):
                continue
            try:
                parsed = json.loads(line[5:])
            except json.JSONDecodeError:
                continue
            if isinstance(parsed, dict) and "method" in parsed and "id" not in parsed and message is None:
                notifications.append((time.monotonic() - started, parsed))  # one after the result is none
            elif isinstance(parsed, dict) and ("result" in parsed or "error" in parsed):
                message = parsed
    if not sse:
        try:
            message = parse_message(content_type, "\n".join(lines))
        except json.JSONDecodeError:
            message = None
    return StreamedReply(response.status_code, content_type, tuple(notifications), message,
                         time.monotonic() - started, "\n".join(lines)[:400])


def steps_list(key: str) -> str:
    """The Redis list stepped_work appends a call's steps to."""
    return f"bench:steps:{key}"


def stepped_arguments(key: str, steps: int, interval_ms: int) -> JsonRpc:
    return {"key": key, "steps": steps, "interval_ms": interval_ms}


def step_times(store: redis.Redis, key: str) -> list[int]:
    """The Unix-ms times of a call's steps, its list deleted (a later call of the same key starts empty)."""
    pipe = store.pipeline()
    pipe.lrange(steps_list(key), 0, -1)
    pipe.delete(steps_list(key))
    values, _ = pipe.execute()
    return [int(v) for v in values]


def check_stepped(reply: Reply, times: list[int], key: str, steps: int, span_ms: tuple[int, int],
                  server_type: str) -> list[str]:
    """stepped_work's answer ({key, steps, server_type}) and what it left in Redis: `steps` times, in order, within
    the call's span (the server's clock is the harness's: one host)."""
    if reply.status != 200 or reply.error or not reply.result or reply.result.get("isError"):
        return [f"HTTP {reply.status}: {reply.body[:200]!r}"]
    data = tool_payload(reply)
    expected = {"key": key, "steps": steps, "server_type": server_type}
    problems = [] if data == expected else [f"answered {str(data)[:200]}, expected {expected}"]
    if len(times) != steps:
        problems.append(f"{len(times)} step(s) in {steps_list(key)}, expected {steps}")
    elif times != sorted(times) or times[0] < span_ms[0] - 1000 or times[-1] > span_ms[1] + 1000:
        problems.append(f"the steps' times {times} are not in order within the call ({span_ms[0]} … {span_ms[1]})")
    return problems


# verify's cancelled call: 10 steps 40 ms apart, cancelled after 150 ms (between the 4th and the 5th step), its list
# read 0.4 s after the whole call would have ended: one check per start, so kept short (every server's verify runs it).
CANCEL_STEPS, CANCEL_INTERVAL_MS, CANCEL_AFTER_S = 10, 40, 0.15
CANCEL_SETTLE_S = 0.4
CANCEL_LISTEN_S = 2.0


@dataclass(frozen=True)
class CancelledCall:
    """One stepped_work call the client cancelled: how, the steps before and after, and whether a reply still came
    (None: nothing to listen on, the stream closed)."""

    how: str
    before: int
    after: int
    replied: bool | None

    @property
    def stopped(self) -> bool:
        """At most one step after: the one a server had begun when the cancellation reached it."""
        return self.after <= 1


def _close_after(url: str, payload: bytes, headers: dict[str, str], after_s: float) -> int:
    """POSTs `payload` on a connection of its own and closes the connection `after_s` later, its reply unread: a
    client that gave up, as it looks to the server. The Unix ms of the close."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=5) as sock:
        head = [f"POST {parts.path or '/'}{'?' + parts.query if parts.query else ''} HTTP/1.1",
                f"Host: {parts.netloc}", "Content-Type: application/json", f"Accept: {ACCEPT}",
                f"Content-Length: {len(payload)}", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
        sock.sendall("\r\n".join(head).encode() + payload)
        time.sleep(after_s)
        at = time.time_ns() // 1_000_000
        sock.shutdown(socket.SHUT_RDWR)
    return at


def cancel_once(client: McpClient, store: redis.Redis) -> CancelledCall:
    """stepped_work called and cancelled part-way as the load driver cancels (load-driver/cancel.go): in a session
    by notifications/cancelled, listening for a reply on; without one by closing the stream."""
    key = f"verify-cancel-{uuid.uuid4().hex[:8]}"
    arguments = stepped_arguments(key, CANCEL_STEPS, CANCEL_INTERVAL_MS)
    started = time.monotonic()
    if not client.session_id:
        at = _close_after(client.url, client.body("tools/call", {"name": STEPPED_WORK, "arguments": arguments}),
                          client.extra_headers, CANCEL_AFTER_S)
        replied: bool | None = None
        how = "closing the stream"
    else:
        listener = McpClient(client.url, timeout_s=CANCEL_AFTER_S + CANCEL_LISTEN_S, headers=client.extra_headers)
        listener.session_id = client.session_id
        request_id = listener.next_id()
        answers: list[Reply] = []

        def call() -> None:
            try:
                answers.append(listener.request_with_id(request_id, "tools/call",
                                                        {"name": STEPPED_WORK, "arguments": arguments}))
            except httpx.HTTPError:
                pass  # no reply within the listening: what a server that honours the cancellation may do
        thread = threading.Thread(target=call, daemon=True)
        thread.start()
        time.sleep(CANCEL_AFTER_S)
        at = time.time_ns() // 1_000_000
        client.notify("notifications/cancelled", {"requestId": request_id, "reason": "verify cancelled it"})
        thread.join(CANCEL_LISTEN_S + 1)
        listener.close()
        replied = bool(answers) and answers[0].status == 200 and (answers[0].result is not None
                                                                 or answers[0].error is not None)
        how = "notifications/cancelled"
    time.sleep(max(0.0, CANCEL_STEPS * CANCEL_INTERVAL_MS / 1000 + CANCEL_SETTLE_S - (time.monotonic() - started)))
    times = step_times(store, key)
    after = sum(1 for t in times if t > at)
    return CancelledCall(how, len(times) - after, after, replied)
