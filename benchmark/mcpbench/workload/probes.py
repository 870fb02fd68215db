"""Robustness probes (`mcpbench verify --probes`; docs/probes.md): what a careless or hostile client sends a
server that faces the open internet, each probe bounded in requests and seconds and the same on every run.

Three kinds, each a Check named `probe: …` in verify.json `probes`:
- **protocol fuzz**, a fixed corpus of malformed or odd JSON-RPC: each must get a JSON-RPC error, a 4xx or a tool
  error (a request that is valid, only odd, may also be answered), never a 5xx, a hang or a crash;
- **concurrency**: identical calls at one instant right after start (the class of deadlock that hangs a server on
  its first concurrent calls after a lazy start), all answered and alike; many sessions initialised at once;
- **slow and greedy clients**: a body trickled a byte at a time, connections opened and left silent, 64 KiB of
  headers, while a normal client's calls must still be answered within the server's normal latency.

After each probe a normal call must be answered within the server's normal latency (NORMAL_FACTOR times the
slowest of its first normal calls, at least NORMAL_FLOOR_S): a probe after which it is not is failed, as a hang
(no answer) or a crash (connection refused) of the server's.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx

from mcpbench.workload.checks import Check, Status
from mcpbench.workload.mcp_client import ACCEPT, JsonRpc, McpClient, Reply, reply_of, tool_payload
from mcpbench.workload.tools import DEFAULT_ARGUMENTS
from mcpbench.workload.verify import rejected

PREFIX = "probe: "
# A reply later than this is a hang (the load's own request timeout is 30 s; a probe's request is one small call).
PROBE_TIMEOUT_S = 10.0
HANG = f"no answer within {PROBE_TIMEOUT_S:.0f} s (a hang)"
# The normal latency a server must keep after a probe and while the slow clients hold it: this many times the
# slowest of its first NORMAL_CALLS normal calls, and never less than NORMAL_FLOOR_S (a host's hiccup on a 2-core
# machine is tens of ms; a hang is seconds).
NORMAL_CALLS = 5
NORMAL_FACTOR = 10.0
NORMAL_FLOOR_S = 1.0
# Concurrency: identical calls released at one instant, and sessions initialised at once.
CONCURRENT_CALLS = 16
CONCURRENT_SESSIONS = 64
# Slow and greedy clients, and the normal client's rate while they hold the server.
TRICKLE_INTERVAL_S = 0.1
SILENT_CONNECTIONS = 200
SILENT_HOLD_S = 4.0
BIG_HEADER_BYTES = 64 * 1024
NORMAL_RATE_PER_S = 5.0
NESTING = 10_000
LARGE_STRING = 1024 * 1024

NORMAL_TOOL = "search_products"
UNKNOWN_REVISION = "1999-01-01"


def _request(request_id: object, method: str = "tools/list", params: JsonRpc | None = None, **extra: object) -> bytes:
    payload: JsonRpc = {"jsonrpc": "2.0", "id": request_id, "method": method, **extra}
    if params is not None:
        payload["params"] = params
    return json.dumps(payload).encode()


def _nested(depth: int) -> bytes:
    """search_products whose `category` is an array nested `depth` deep (json.dumps would recurse that deep)."""
    head = b'{"jsonrpc": "2.0", "id": 15, "method": "tools/call", "params": {"name": "search_products", ' \
           b'"arguments": {"category": '
    return head + b"[" * depth + b"]" * depth + b"}}}"


@dataclass(frozen=True)
class Case:
    """One request of the fuzz corpus: its bytes, the headers it changes, and whether a success is a right answer
    (an odd but valid request: a string id, a batch of the 2025-03-26 revision) or an accepted bad one (a warning)."""

    name: str
    body: bytes
    may_succeed: bool = False
    headers: tuple[tuple[str, str | None], ...] = ()   # over the normal ones; None leaves the header out
    # a success is right only from a server that issues no session ids (which may ignore a session header)
    stateless_only: bool = False


CORPUS: tuple[Case, ...] = (
    Case("id: a string", _request("probe-1"), may_succeed=True),
    Case("id: zero", _request(0), may_succeed=True),
    Case("id: negative", _request(-7), may_succeed=True),
    Case("id: a fraction", _request(1.5), may_succeed=True),
    Case("id: 2^70", _request(2**70), may_succeed=True),
    Case("id: 1e400 (beyond a double)", b'{"jsonrpc": "2.0", "id": 1e400, "method": "tools/list"}', may_succeed=True),
    Case("id: true", _request(True)),
    Case("id: an object", _request({"a": 1})),
    Case("id: an array", _request([1])),
    Case("id: null", _request(None)),
    Case("jsonrpc missing", json.dumps({"id": 11, "method": "tools/list"}).encode()),
    Case("jsonrpc \"1.0\"", json.dumps({"jsonrpc": "1.0", "id": 12, "method": "tools/list"}).encode()),
    Case("a batch of two requests", b"[" + _request(13) + b", " + _request(14) + b"]", may_succeed=True),
    Case("an empty batch", b"[]"),
    Case(f"params nested {NESTING:,} deep", _nested(NESTING)),
    Case("a 1 MiB string argument", _request(16, "tools/call", {
        "name": "get_user_cart", "arguments": {"user_id": "u" * LARGE_STRING}}), may_succeed=True),
    Case("invalid UTF-8 in an argument", b'{"jsonrpc": "2.0", "id": 17, "method": "tools/call", "params": '
         b'{"name": "search_products", "arguments": {"category": "\xff\xfe\xfd"}}}', may_succeed=True),
    Case("duplicate keys", b'{"jsonrpc": "2.0", "id": 18, "method": "no/such_method", "method": "tools/list"}',
         may_succeed=True),
    Case("an unknown protocolVersion", _request(19, "initialize", {
        "protocolVersion": UNKNOWN_REVISION, "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}),
         may_succeed=True),
    Case("a forged session id", _request(20), may_succeed=True, stateless_only=True,
         headers=(("Mcp-Session-Id", f"forged-{uuid.UUID(int=20).hex}"),)),
    Case("Content-Type text/plain", _request(21), headers=(("Content-Type", "text/plain"),)),
    Case("no Accept header", _request(22), headers=(("Accept", None),)),
)


def judge(reply: Reply, may_succeed: bool) -> tuple[Status, str]:
    """A fuzz case's reply: refused as verify's bad input is (a 4xx, a JSON-RPC error, a tool error; a 5xx carrying
    a JSON-RPC error warns, one without fails), or answered: right for an odd valid request, a warning for a bad
    one the server took."""
    status, said = rejected(reply, allow_tool_error=True)
    if status != "fail" or reply.status >= 500:
        return status, said
    if may_succeed:
        return "pass", f"answered (HTTP {reply.status})"
    return "warn", f"accepted: HTTP {reply.status}, {reply.body[:120]!r}"


class Prober:
    """The probes of one running server at `url`, in order; `checks` gathers their verdicts."""

    def __init__(self, url: str):
        self.url = url
        self.normal_s = NORMAL_FLOOR_S  # raised once the first normal calls are timed (calibrate)
        self.checks: list[Check] = []
        self.issues_sessions = False

    # -- the normal client --------------------------------------------------------------------------------------

    def normal_call(self) -> tuple[float | None, str]:
        """One normal call on a new session (initialize, search_products): its seconds, or None and why not."""
        started = time.perf_counter()
        try:
            with McpClient(self.url, timeout_s=PROBE_TIMEOUT_S) as client:
                client.initialize()
                reply = client.call_tool(NORMAL_TOOL, DEFAULT_ARGUMENTS[NORMAL_TOOL])
        except httpx.TimeoutException:
            return None, HANG
        except httpx.TransportError as exc:
            return None, f"{type(exc).__name__}: {exc} (the server is not accepting connections)"
        if reply.status != 200 or reply.error or not reply.result or reply.result.get("isError"):
            return None, f"HTTP {reply.status}: {reply.body[:120]!r}"
        return time.perf_counter() - started, ""

    def calibrate(self) -> None:
        """The server's normal latency: the slowest of NORMAL_CALLS normal calls, times NORMAL_FACTOR."""
        seconds = [s for s, _ in (self.normal_call() for _ in range(NORMAL_CALLS)) if s is not None]
        if seconds:
            self.normal_s = max(NORMAL_FLOOR_S, NORMAL_FACTOR * max(seconds))

    def still_normal(self) -> str:
        """'' when a normal call is answered within the normal latency; else what happened."""
        seconds, why = self.normal_call()
        if seconds is None:
            return f"then a normal call failed: {why}"
        if seconds > self.normal_s:
            return f"then a normal call took {seconds * 1000:.0f} ms (normal: under {self.normal_s * 1000:.0f} ms)"
        return ""

    def add(self, name: str, status: Status, reason: str) -> None:
        """A probe's verdict, failed when the server is not normal after it."""
        broken = self.still_normal()
        if broken:
            status, reason = "fail", f"{reason}; {broken}"
        self.checks.append(Check(name=PREFIX + name, status=status, reason=reason))

    # -- concurrency ----------------------------------------------------------------------------------------------

    def first_concurrent_calls(self) -> None:
        """CONCURRENT_CALLS identical calls released together, the first calls the server gets after its start
        (each on a session of its own, initialised first): all answered, and alike."""
        name = f"{CONCURRENT_CALLS} identical calls at once, first after start"
        clients = [McpClient(self.url, timeout_s=PROBE_TIMEOUT_S) for _ in range(CONCURRENT_CALLS)]
        gate = threading.Barrier(CONCURRENT_CALLS)

        def one(client: McpClient) -> str:
            try:
                client.initialize()
                gate.wait(timeout=PROBE_TIMEOUT_S)
                reply = client.call_tool(NORMAL_TOOL, DEFAULT_ARGUMENTS[NORMAL_TOOL])
            except httpx.TimeoutException:
                return "!" + HANG
            except (httpx.TransportError, threading.BrokenBarrierError) as exc:
                return f"!{type(exc).__name__}"
            if reply.status != 200 or not reply.result or reply.result.get("isError"):
                return f"!HTTP {reply.status}: {reply.body[:80]!r}"
            return json.dumps(tool_payload(reply), sort_keys=True)

        try:
            with ThreadPoolExecutor(CONCURRENT_CALLS) as pool:
                answers = list(pool.map(one, clients))
        finally:
            for client in clients:
                client.close()
        failed = [a[1:] for a in answers if a.startswith("!")]
        if failed:
            self.add(name, "fail", f"{len(failed)} of {CONCURRENT_CALLS} not answered: {failed[0]}")
        elif len(set(answers)) > 1:
            self.add(name, "fail", f"answered, but {len(set(answers))} different answers to the same call")
        else:
            self.add(name, "pass", f"all {CONCURRENT_CALLS} answered alike")

    def sessions_at_once(self) -> None:
        name = f"{CONCURRENT_SESSIONS} sessions initialised at once"

        def one(_: int) -> str:
            try:
                with McpClient(self.url, timeout_s=PROBE_TIMEOUT_S) as client:
                    reply = client.initialize()
            except httpx.TimeoutException:
                return HANG
            except httpx.TransportError as exc:
                return type(exc).__name__
            if reply.session_id:
                self.issues_sessions = True
            return "" if reply.status == 200 and reply.result else f"HTTP {reply.status}: {reply.body[:80]!r}"

        with ThreadPoolExecutor(CONCURRENT_SESSIONS) as pool:
            failed = [why for why in pool.map(one, range(CONCURRENT_SESSIONS)) if why]
        if failed:
            self.add(name, "fail", f"{len(failed)} of {CONCURRENT_SESSIONS} not initialised: {failed[0]}")
        else:
            self.add(name, "pass", f"all {CONCURRENT_SESSIONS} initialised"
                     + (" (a session id each)" if self.issues_sessions else " (stateless: no session ids)"))

    # -- protocol fuzz ----------------------------------------------------------------------------------------------

    def fuzz(self) -> None:
        """The corpus, each case on a session the client initialised (a stateful server would otherwise turn every
        case away for want of one), its headers over the normal ones (None: left out)."""
        with McpClient(self.url, timeout_s=PROBE_TIMEOUT_S) as client, \
                httpx.Client(timeout=PROBE_TIMEOUT_S) as http:
            client.initialize()
            normal = {"Content-Type": "application/json", "Accept": ACCEPT,
                      **({"Mcp-Session-Id": client.session_id} if client.session_id else {})}
            for case in CORPUS:
                headers = {**normal, **dict(case.headers)}
                try:
                    request = http.build_request("POST", self.url, content=case.body,
                                                 headers={k: v for k, v in headers.items() if v is not None})
                    for name, value in headers.items():
                        if value is None:
                            request.headers.pop(name, None)  # httpx's default (Accept: */*) too
                    reply = reply_of(http.send(request))
                except httpx.TimeoutException:
                    self.add(case.name, "fail", HANG)
                    continue
                except httpx.TransportError as exc:
                    # closing the connection on a request it will not take is a refusal; still_normal says
                    # whether the server survived it
                    self.add(case.name, "warn", f"connection dropped ({type(exc).__name__})")
                    continue
                may_succeed = case.may_succeed and not (case.stateless_only and client.session_id)
                status, said = judge(reply, may_succeed)
                agreed = (reply.result or {}).get("protocolVersion")
                if agreed == UNKNOWN_REVISION:
                    status, said = "warn", f"answered, agreeing to the unknown revision {agreed} (the spec: answer " \
                                           "with a revision the server supports)"
                self.add(case.name, status, said)
        self.deleted_session()

    def deleted_session(self) -> None:
        """The session id of a session the client deleted: a 404 (the spec), or not applicable when it issues none."""
        name = "the session id of a deleted session"
        with McpClient(self.url, timeout_s=PROBE_TIMEOUT_S) as client:
            client.initialize()
            if not client.session_id:
                self.add(name, "pass", "not applicable: the server issues no session ids")
                return
            deleted = client.delete_session()
            reply = client.request("tools/list")
        if reply.status == 404:
            self.add(name, "pass", f"HTTP 404 (DELETE answered {deleted})")
        elif deleted in (404, 405):
            self.add(name, "pass", f"DELETE not supported (HTTP {deleted}): the session lives on")
        else:
            status, said = judge(reply, may_succeed=False)
            self.add(name, status, f"{said} after DELETE answered {deleted} (the spec asks for 404)")

    # -- slow and greedy clients -------------------------------------------------------------------------------

    def _address(self) -> tuple[str, int]:
        url = httpx.URL(self.url)
        return url.host, url.port or 80

    def _raw_head(self, length: int) -> bytes:
        """A POST's request line and headers as bytes, for a body the probe sends itself."""
        url = httpx.URL(self.url)
        host, port = self._address()
        return (f"POST {url.raw_path.decode()} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                f"Accept: {ACCEPT}\r\nContent-Length: {length}\r\n\r\n").encode()

    def _while_normal(self, name: str, hold: Callable[[], str]) -> None:
        """`hold` runs in a thread until it returns; meanwhile a normal client calls at NORMAL_RATE_PER_S, each
        call to be answered within the normal latency."""
        said: list[str] = []

        def run() -> None:
            try:
                said.append(hold())
            except OSError as exc:  # the server refused the slow client itself: said, the normal calls decide
                said.append(f"{type(exc).__name__}: {exc}")

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        slow: list[str] = []
        calls = 0
        while thread.is_alive():
            calls += 1
            seconds, why = self.normal_call()
            if seconds is None:
                slow.append(why)
            elif seconds > self.normal_s:
                slow.append(f"{seconds * 1000:.0f} ms")
            time.sleep(1 / NORMAL_RATE_PER_S)
        thread.join()
        own = said[0] if said else ""
        if slow:
            self.add(name, "fail", f"{len(slow)} of {calls} normal calls meanwhile not answered within "
                     f"{self.normal_s * 1000:.0f} ms: {slow[0]}" + (f"; {own}" if own else ""))
        else:
            self.add(name, "pass", f"{calls} normal calls meanwhile, each within {self.normal_s * 1000:.0f} ms"
                     + (f"; {own}" if own else ""))

    def slow_body(self) -> None:
        body = _request(30)

        def hold() -> str:
            with socket.create_connection(self._address(), timeout=PROBE_TIMEOUT_S) as sock:
                sock.sendall(self._raw_head(len(body)))
                try:
                    for byte in body:
                        sock.sendall(bytes([byte]))
                        time.sleep(TRICKLE_INTERVAL_S)
                    answer = sock.recv(64).split(b"\r\n", 1)[0].decode(errors="replace")
                except OSError as exc:
                    return f"the server closed the trickle ({type(exc).__name__})"
            return f"{len(body)} bytes trickled over {len(body) * TRICKLE_INTERVAL_S:.1f} s, answered {answer!r}"

        self._while_normal(f"a body trickled a byte every {TRICKLE_INTERVAL_S * 1000:.0f} ms", hold)

    def silent_connections(self) -> None:
        def hold() -> str:
            opened: list[socket.socket] = []
            try:
                for _n in range(SILENT_CONNECTIONS):
                    try:
                        opened.append(socket.create_connection(self._address(), timeout=PROBE_TIMEOUT_S))
                    except OSError as exc:
                        return f"{len(opened)} opened, then {type(exc).__name__}"
                time.sleep(SILENT_HOLD_S)
            finally:
                for sock in opened:
                    sock.close()
            return f"{SILENT_CONNECTIONS} held {SILENT_HOLD_S:.0f} s"

        self._while_normal(f"{SILENT_CONNECTIONS} connections opened and left silent", hold)

    def big_headers(self) -> None:
        name = f"headers of {BIG_HEADER_BYTES // 1024} KiB"
        try:
            with McpClient(self.url, timeout_s=PROBE_TIMEOUT_S) as client:
                client.initialize()
                reply = client.post_raw(_request(31), {"X-Probe": "h" * BIG_HEADER_BYTES})
        except httpx.TimeoutException:
            self.add(name, "fail", HANG)
            return
        except httpx.TransportError as exc:
            self.add(name, "pass", f"connection closed ({type(exc).__name__})")
            return
        status, said = judge(reply, may_succeed=True)
        self.add(name, status, said)


def first_concurrent(url: str) -> Prober:
    """The probe that must come first after the server's start: identical calls at one instant."""
    prober = Prober(url)
    prober.first_concurrent_calls()
    return prober


def run_rest(prober: Prober) -> list[Check]:
    """The other probes, after verify's own checks: the server's normal latency timed, then each probe."""
    prober.calibrate()
    for probe in (prober.sessions_at_once, prober.fuzz, prober.big_headers, prober.slow_body,
                  prober.silent_connections):
        try:
            probe()
        except (httpx.HTTPError, OSError, ValueError, KeyError, TypeError) as exc:
            # what the server sent broke a probe's own reading of it: said as the probe's outcome, never a crash
            prober.add(probe.__name__.replace("_", " "), "fail", f"{type(exc).__name__}: {exc}")
    return prober.checks
