"""`mcpbench verify`: protocol, workload and bad-input checks against a running server."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Literal

import httpx

from .mcp_client import McpClient, Reply, tool_payload
from .workload import CHECKS, DEFAULT_ARGUMENTS, TOOL_NAMES

Status = Literal["pass", "warn", "fail", "unavailable"]  # unavailable: this machine lacks the toolchain


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    reason: str


@dataclass(frozen=True)
class Verdict:
    checks: list[Check]

    @property
    def status(self) -> Status:
        statuses = {check.status for check in self.checks}
        return "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"

    def failures(self) -> list[Check]:
        return [check for check in self.checks if check.status == "fail"]

    def record(self) -> dict[str, object]:
        return {"status": self.status, "checks": [asdict(check) for check in self.checks]}


def _rejected(reply: Reply, allow_tool_error: bool) -> tuple[Status, str]:
    """A bad request is handled when it gets a JSON-RPC error, a 4xx, or (tool level) isError.

    A 5xx that still carries a JSON-RPC error is a rejection dressed as a server fault (some SDKs answer
    an unknown method with 500 / -32603): a warning, since the client is told, but wrongly."""
    if 400 <= reply.status < 500:
        return "pass", f"HTTP {reply.status}"
    if reply.status >= 500:
        if reply.error:
            return "warn", f"HTTP {reply.status} with JSON-RPC error {reply.error.get('code')} (a server error code for a client mistake)"
        return "fail", f"HTTP {reply.status} (a server error, not a rejection)"
    if reply.error:
        return "pass", f"JSON-RPC error {reply.error.get('code')}"
    if allow_tool_error and reply.result and reply.result.get("isError"):
        return "pass", "tool result with isError"
    return "fail", f"HTTP {reply.status} with a success reply: {reply.body[:160]!r}"


class _Verifier:
    def __init__(self, url: str, server_type: str):
        self.url = url
        self.server_type = server_type
        self.checks: list[Check] = []

    def add(self, name: str, status: Status, reason: str) -> None:
        self.checks.append(Check(name, status, reason))

    def guarded(self, name: str, body: Callable[[], None]) -> None:
        try:
            body()
        except (httpx.HTTPError, json.JSONDecodeError, ValueError, KeyError, TypeError) as exc:
            self.add(name, "fail", f"{type(exc).__name__}: {exc}")

    def session(self) -> None:
        with McpClient(self.url) as client:
            def initialize() -> None:
                reply = client.initialize()
                if reply.status != 200 or not reply.result:
                    self.add("initialize", "fail", f"HTTP {reply.status}: {reply.body[:200]!r}")
                    return
                info = reply.result.get("serverInfo", {})
                framing = f"{reply.framing} reply"
                self.add("initialize", "pass",
                         f"protocol {reply.result.get('protocolVersion')}, server {info.get('name')!r}, {framing}"
                         + (", session id issued" if reply.session_id else ", stateless (no session id)"))
            self.guarded("initialize", initialize)

            def initialized() -> None:
                reply = client.notify("notifications/initialized")
                ok = 200 <= reply.status < 300
                self.add("notifications/initialized", "pass" if ok else "fail", f"HTTP {reply.status}")
            self.guarded("notifications/initialized", initialized)

            def tools_list() -> None:
                reply = client.request("tools/list")
                tools = {tool["name"]: tool for tool in (reply.result or {}).get("tools", [])}
                missing = [name for name in TOOL_NAMES if name not in tools]
                if missing:
                    self.add("tools/list", "fail", f"missing tools {missing}; got {sorted(tools)}")
                    return
                schemaless = [name for name in TOOL_NAMES
                              if (tools[name].get("inputSchema") or {}).get("type") != "object"]
                if schemaless:
                    self.add("tools/list", "fail", f"no object input schema for {schemaless}")
                    return
                extra = sorted(set(tools) - set(TOOL_NAMES))
                self.add("tools/list", "warn" if extra else "pass",
                         f"3 tools with input schemas ({reply.framing} reply)"
                         + (f"; extra tools {extra}" if extra else ""))
            self.guarded("tools/list", tools_list)

            for tool in TOOL_NAMES:
                self.guarded(f"tool {tool}", lambda tool=tool: self.tool(client, tool))

            def delete() -> None:
                status = client.delete_session()
                ok = 200 <= status < 300 or status in (404, 405)
                self.add("DELETE /mcp", "pass" if ok else "warn", f"HTTP {status}")
            self.guarded("DELETE /mcp", delete)

    def tool(self, client: McpClient, tool: str) -> None:
        reply = client.call_tool(tool, DEFAULT_ARGUMENTS[tool])
        name = f"tool {tool}"
        if reply.status != 200 or reply.error or not reply.result:
            self.add(name, "fail", f"HTTP {reply.status}: {reply.body[:200]!r}")
            return
        if reply.result.get("isError"):
            self.add(name, "fail", f"tool error: {reply.body[:300]!r}")
            return
        data = tool_payload(reply)
        problems = CHECKS[tool](data)
        if problems:
            self.add(name, "fail", "; ".join(problems))
            return
        if data.get("server_type") != self.server_type:
            self.add(name, "warn", f"server_type is {data.get('server_type')!r}, expected {self.server_type!r}")
            return
        self.add(name, "pass", f"spec checks hold ({reply.framing} reply)")

    def stateless_call(self) -> None:
        # The `stateless` load mode sends tools/call with no initialize and no session.
        with McpClient(self.url) as client:
            reply = client.call_tool("search_products", DEFAULT_ARGUMENTS["search_products"])
            ok = reply.status == 200 and reply.result is not None and not reply.result.get("isError")
            self.add("tools/call without a session", "pass" if ok else "warn",
                     "answered" if ok else f"HTTP {reply.status}: {reply.body[:160]!r} — the stateless mode will fail")

    def bad_input(self) -> None:
        cases: list[tuple[str, bytes, bool]] = [
            ("malformed JSON", b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"', False),
            ("unknown method", json.dumps({"jsonrpc": "2.0", "id": 2, "method": "no/such_method"}).encode(), False),
            ("unknown tool", json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                         "params": {"name": "no_such_tool", "arguments": {}}}).encode(), True),
            ("wrong argument types", json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
                "name": "search_products", "arguments": {"category": 7, "min_price": "cheap", "limit": "ten"}}}).encode(),
             True),
            ("oversized body (2 MiB)", json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
                "name": "get_user_cart", "arguments": {"user_id": "x" * (2 * 1024 * 1024)}}}).encode(), True),
        ]
        with McpClient(self.url) as client:
            client.initialize()
            for name, body, tool_level in cases:
                def one(name: str = name, body: bytes = body, tool_level: bool = tool_level) -> None:
                    try:
                        reply = client.post_raw(body)
                    except httpx.TransportError as exc:
                        # Closing the connection on a 2 MiB body is a legitimate refusal; the liveness
                        # check below tells whether the server survived it.
                        self.add(f"bad input: {name}", "warn", f"connection dropped ({type(exc).__name__})")
                        return
                    status, reason = _rejected(reply, tool_level)
                    self.add(f"bad input: {name}", status, reason)
                self.guarded(f"bad input: {name}", one)

        def still_alive() -> None:
            with McpClient(self.url) as client:
                client.initialize()
                reply = client.call_tool("search_products", DEFAULT_ARGUMENTS["search_products"])
                ok = reply.status == 200 and reply.result is not None and not reply.result.get("isError")
                self.add("still serving after bad input", "pass" if ok else "fail", f"HTTP {reply.status}")
        self.guarded("still serving after bad input", still_alive)


def verify(url: str, server_type: str) -> Verdict:
    """Run every check against the MCP endpoint `url`; never raises for a misbehaving server."""
    verifier = _Verifier(url, server_type)
    verifier.session()
    verifier.guarded("tools/call without a session", verifier.stateless_call)
    verifier.guarded("bad input", verifier.bad_input)
    return Verdict(verifier.checks)
