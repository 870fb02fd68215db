"""A small MCP Streamable-HTTP client for readiness and verification (k6 does the load)."""

from __future__ import annotations

import contextlib
import itertools
import json
from dataclasses import dataclass
from typing import Any

import httpx

# A JSON-RPC message of MCP, or a part of one (params, result, error, a tool's arguments or payload).
JsonRpc = dict[str, Any]

ACCEPT = "application/json, text/event-stream"
PROTOCOL_VERSION = "2024-11-05"
# The 2026-07-28 revision: no initialize, no session; each request names its revision and client in
# params._meta and its revision, method and tool in headers.
REVISION_2026 = "2026-07-28"
META_2026 = {
    "io.modelcontextprotocol/protocolVersion": REVISION_2026,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "mcpbench", "version": "1"},
}


@dataclass(frozen=True)
class Reply:
    status: int
    content_type: str
    session_id: str | None
    message: JsonRpc | None  # the JSON-RPC response, from a JSON body or an SSE data line
    body: str

    @property
    def framing(self) -> str:
        if "text/event-stream" in self.content_type:
            return "sse"
        return "json" if self.body.strip() else "empty"

    @property
    def result(self) -> JsonRpc | None:
        """The response's result object (None: none, or not an object as every MCP result is)."""
        value = (self.message or {}).get("result")
        return value if isinstance(value, dict) else None

    @property
    def error(self) -> JsonRpc | None:
        """The response's error object; an error that is not one (a bare string, as some servers send) as its
        message."""
        value = (self.message or {}).get("error")
        if value is None or isinstance(value, dict):
            return value
        return {"code": None, "message": str(value)}


def parse_message(content_type: str, body: str) -> JsonRpc | None:
    """The JSON-RPC response in a body, whether framed as JSON or as a server-sent event stream."""
    if not body.strip():
        return None
    if "text/event-stream" in content_type:
        found = None
        for line in body.splitlines():
            # An event with empty data is never dispatched (the SSE standard): MCP 2025-11-25's priming event.
            if line.startswith("data:") and line[5:].strip():
                candidate = json.loads(line[5:])
                if isinstance(candidate, dict) and ("result" in candidate or "error" in candidate):
                    found = candidate
        return found
    parsed = json.loads(body)
    if isinstance(parsed, list):  # a batch reply: the first response
        parsed = parsed[0] if parsed else None
    return parsed if isinstance(parsed, dict) else None


def reply_of(response: httpx.Response) -> Reply:
    """An HTTP response as a Reply: its JSON-RPC message parsed where there is one (None for a body that is not)."""
    content_type = response.headers.get("content-type", "")
    try:
        message = parse_message(content_type, response.text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        message = None
    return Reply(response.status_code, content_type, response.headers.get("mcp-session-id"), message, response.text)


class McpClient:
    def __init__(self, url: str, timeout_s: float = 10.0, headers: dict[str, str] | None = None):
        """`headers`: sent with every request (a target's --header: Authorization…)."""
        self.url = url
        self.extra_headers = dict(headers or {})
        self._http = httpx.Client(timeout=timeout_s, headers={"Accept": ACCEPT, **self.extra_headers})
        self._ids = itertools.count(1)
        self.session_id: str | None = None

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> McpClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _headers(self, headers: dict[str, str] | None) -> dict[str, str]:
        """A POST's headers: JSON, the session's id once there is one, and the request's own."""
        return {"Content-Type": "application/json", **(headers or {}),
                **({"Mcp-Session-Id": self.session_id} if self.session_id else {})}

    def next_id(self) -> int:
        return next(self._ids)

    def body(self, method: str, params: JsonRpc | None, request_id: int | None = None) -> bytes:
        """A request's bytes, with the next id unless one is given."""
        payload: JsonRpc = {"jsonrpc": "2.0", "id": request_id if request_id is not None else next(self._ids),
                            "method": method}
        if params is not None:
            payload["params"] = params
        return json.dumps(payload).encode()

    def post_raw(self, content: bytes, headers: dict[str, str] | None = None) -> Reply:
        return reply_of(self._http.post(self.url, content=content, headers=self._headers(headers)))

    def request(self, method: str, params: JsonRpc | None = None,
                headers: dict[str, str] | None = None) -> Reply:
        return self.post_raw(self.body(method, params), headers)

    def request_with_id(self, request_id: int, method: str, params: JsonRpc | None = None) -> Reply:
        """A request under an id the caller chose (one it must name later: notifications/cancelled)."""
        return self.post_raw(self.body(method, params, request_id))

    def stream(self, method: str, params: JsonRpc | None = None) -> contextlib.AbstractContextManager[httpx.Response]:
        """A request whose reply is read as it arrives (response.iter_lines()): a stream's notifications timed."""
        return self._http.stream("POST", self.url, content=self.body(method, params), headers=self._headers(None))

    def notify(self, method: str, params: JsonRpc | None = None) -> Reply:
        return self.post_raw(json.dumps({"jsonrpc": "2.0", "method": method,
                                         **({"params": params} if params is not None else {})}).encode())

    def initialize(self, headers: dict[str, str] | None = None) -> Reply:
        reply = self.request("initialize", {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "mcpbench", "version": "1"},
        }, headers)
        if reply.session_id:
            self.session_id = reply.session_id
        return reply

    def call_tool(self, name: str, arguments: JsonRpc) -> Reply:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def call_tool_2026(self, name: str, arguments: JsonRpc) -> Reply:
        """tools/call as a 2026-07-28 request: self-contained, no session."""
        payload = {"jsonrpc": "2.0", "id": next(self._ids), "method": "tools/call",
                   "params": {"name": name, "arguments": arguments, "_meta": META_2026}}
        headers = {"MCP-Protocol-Version": REVISION_2026, "Mcp-Method": "tools/call", "Mcp-Name": name}
        return self.post_raw(json.dumps(payload).encode(), headers)

    def delete_session(self) -> int:
        headers = {"Mcp-Session-Id": self.session_id} if self.session_id else {}
        return self._http.delete(self.url, headers=headers).status_code


def tool_payload(reply: Reply) -> JsonRpc:
    """The JSON object a workload tool returns in its (first) text content item."""
    result = reply.result or {}
    for item in result.get("content") or []:
        if item.get("type") == "text":
            return json.loads(item["text"])
    raise ValueError("no text content in the tool result")
