"""The verifier must catch a server that answers wrongly. The server here is deliberately broken; it is
the verifier, not a server, that is under test."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from mcpbench.runtime.local_infra import Infra
from mcpbench.verify import verify

TOOLS = [{"name": n, "inputSchema": {"type": "object"}} for n in ("search_products", "get_user_cart", "checkout")]


class WrongServer(BaseHTTPRequestHandler):
    """Speaks MCP, but search_products miscounts and malformed JSON makes it answer 500."""

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            message = json.loads(body)
        except json.JSONDecodeError:
            return self.reply(500, {"oops": True})
        method = message.get("method")
        if method == "notifications/initialized":
            return self.reply(202, None)
        if method == "initialize":
            return self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2024-11-05", "capabilities": {}, "serverInfo": {"name": "wrong"}}})
        if method == "tools/list":
            return self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": TOOLS}})
        data = {"total_found": 2250, "products": [], "top10_popular_ids": list(range(10)), "server_type": "wrong"}
        return self.reply(200, {"jsonrpc": "2.0", "id": message.get("id"),
                                "result": {"content": [{"type": "text", "text": json.dumps(data)}]}})

    def reply(self, status: int, payload: object) -> None:
        raw = json.dumps(payload).encode() if payload is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def wrong_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), WrongServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()


def test_wrong_answers_and_server_errors_fail_verify(wrong_server: str) -> None:
    verdict = verify(wrong_server, "wrong")
    assert verdict.status == "fail"
    by_name = {check.name: check for check in verdict.checks}
    assert by_name["initialize"].status == "pass"
    assert by_name["tool search_products"].status == "fail"
    assert "total_found is 2250" in by_name["tool search_products"].reason
    assert by_name["bad input: malformed JSON"].status == "fail"  # a 500 is not a rejection
    assert by_name["bad input: unknown tool"].status == "fail"  # it answered success


def test_nothing_listening_fails_every_check_without_raising(infra: Infra) -> None:
    from mcpbench.ports import free_port

    verdict = verify(f"http://127.0.0.1:{free_port()}/mcp", "nobody")
    assert verdict.status == "fail"
    assert all(check.status != "pass" for check in verdict.checks)


def test_how_a_rejection_is_judged() -> None:
    from mcpbench.mcp_client import Reply
    from mcpbench.verify import _rejected

    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}}
    tool_error = {"jsonrpc": "2.0", "id": 1, "result": {"isError": True, "content": []}}
    success = {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}
    assert _rejected(Reply(400, "text/plain", None, None, "bad"), False)[0] == "pass"
    assert _rejected(Reply(200, "application/json", None, error, "{}"), False)[0] == "pass"
    assert _rejected(Reply(500, "application/json", None, error, "{}"), False)[0] == "warn"
    assert _rejected(Reply(500, "text/plain", None, None, "boom"), False)[0] == "fail"
    assert _rejected(Reply(200, "application/json", None, tool_error, "{}"), True)[0] == "pass"
    assert _rejected(Reply(200, "application/json", None, tool_error, "{}"), False)[0] == "fail"
    assert _rejected(Reply(200, "application/json", None, success, "{}"), True)[0] == "fail"
