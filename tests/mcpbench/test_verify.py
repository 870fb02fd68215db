"""The verifier must catch a server that answers wrongly. The server here is deliberately broken; it is
the verifier, not a server, that is under test."""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from mcpbench.runtime.local_infra import Infra
from mcpbench.workload import dimension_tools as dims
from mcpbench.workload import surface
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.verify import verify

TOOLS = [{"name": n, "inputSchema": {"type": "object"}} for n in ("search_products", "get_user_cart", "checkout")]
EXTRA_SCHEMA = {"type": "object", "required": ["query"], "properties": {
    "query": {"type": "string"}, "limit": {"type": "integer"}, "sort": {"type": "string"}, "filters": {"type": "object"}}}


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


class SpecServer(BaseHTTPRequestHandler):
    """A small but complete MCP server that keeps the workload's state (rate-limit counters, history lists)
    in memory and follows docs/workload.md, unless a class attribute breaks one rule the way a real server
    did: history entries shaped {"order_id", …} (rust, nodejs), the rate-limit key from all of the id's
    digits (baseline, python, quarkus, micronaut), an empty order run anyway (rust) or refused wrongly."""

    history_entry = "spec"  # or "order_id"
    rate_limit_key = "spec"  # or "all digits"
    empty_items = "tool error"  # or "run it", "invalid params", "tool error after INCR"
    revision_2026 = "served"  # or "refused" (an SDK without the 2026-07-28 revision), "untyped" (no resultType)
    host_check = "allow-list"  # or "off" (an SDK's DNS-rebinding protection turned off), "loopback IPs only"
    extra_tools = 0  # the dimension tools it registers (docs/workload.md §6), as if started with these settings
    dimension_tools = False
    payload_rule = "spec"  # or "truncate at 1 MiB", "refuse above 1 MiB", "altered"
    progress_rule = "spec"  # or "json" (an SDK replying JSON: its notifications dropped), "after the result"
    surface_rule = "spec"  # or "no completion" (an SDK without it: method not found), "wrong prompt"
    page_size = 0  # tools/list's page (0: one page; the Go SDK pages at 1,000), the cursor the next page's index
    counters: dict[str, int]
    histories: dict[str, list[str]]

    def log_message(self, *args: object) -> None:
        pass

    def do_DELETE(self) -> None:
        self.reply(405, None)

    def host_refused(self) -> bool:
        """docs/server-contract.md's ALLOWED_HOSTS check, as the SDKs do it: the host names of Host and Origin."""
        allowed = {"off": None, "allow-list": {"localhost", "127.0.0.1"}, "loopback IPs only": {"127.0.0.1"}}[
            self.host_check]
        if allowed is None:
            return False
        origin = self.headers.get("Origin")
        names = [self.headers.get("Host", "").rsplit(":", 1)[0]] + ([origin.split("://")[-1].rsplit(":", 1)[0]]
                                                                     if origin else [])
        return any(name not in allowed for name in names)

    def do_POST(self) -> None:
        if self.host_refused():
            return self.reply(403, None)
        length = int(self.headers.get("Content-Length", 0))
        if length > 1024 * 1024:
            return self.reply(413, None)
        try:
            message = json.loads(self.rfile.read(length))
        except json.JSONDecodeError:
            return self.reply(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
        method, ident, params = message.get("method"), message.get("id"), message.get("params") or {}
        if ident is None:
            return self.reply(202, None)
        self_contained = self.headers.get("MCP-Protocol-Version") == "2026-07-28"
        if self_contained and self.revision_2026 == "refused":
            return self.reply(400, {"jsonrpc": "2.0", "id": ident,
                                    "error": {"code": -32022, "message": "unsupported protocol version"}})
        if method == "initialize":
            return self.result(ident, {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                                       "serverInfo": {"name": "spec"}})
        if method == "tools/list":
            extras = [{"name": dims.extra_tool_name(i), "inputSchema": EXTRA_SCHEMA} for i in range(1, self.extra_tools + 1)]
            echo = [{"name": name, "inputSchema": {"type": "object"}} for name in (dims.ECHO_PAYLOAD, dims.STREAM_PROGRESS, dims.STEPPED_WORK)
                    if self.dimension_tools]
            tools = TOOLS + extras + echo
            if not self.page_size:
                return self.result(ident, {"tools": tools})
            start = int(params.get("cursor") or 0)
            end = start + self.page_size
            return self.result(ident, {"tools": tools[start:end], **({"nextCursor": str(end)} if end < len(tools) else {})})
        if self.dimension_tools and method in surface.METHODS:
            return self.surface(ident, method, params)
        if method != "tools/call":
            return self.error(ident, -32601, "method not found")
        tools = {"search_products": self.search, "get_user_cart": self.cart, "checkout": self.checkout,
                 **({dims.ECHO_PAYLOAD: self.echo_payload} if self.dimension_tools else {}),
                 **{dims.extra_tool_name(i): lambda query, i=i: {"tool": dims.extra_tool_name(i), "query": query}
                    for i in range(1, self.extra_tools + 1)}}
        if self.dimension_tools and params["name"] == dims.STREAM_PROGRESS:
            return self.stream_progress(ident, params)
        tool = tools.get(params["name"])
        if tool is None:
            return self.error(ident, -32602, "unknown tool")
        try:
            data = tool(**(params.get("arguments") or {}))
        except (TypeError, ValueError) as exc:
            return self.error(ident, -32602, str(exc))
        except LookupError as exc:  # the tool's own refusal
            return self.result(ident, {"content": [{"type": "text", "text": str(exc)}], "isError": True})
        typed = {"resultType": "complete"} if self_contained and self.revision_2026 == "served" else {}
        return self.result(ident, {"content": [{"type": "text", "text": json.dumps({**data, "server_type": "spec"})}],
                                   **typed})

    def surface(self, ident: object, method: str, params: dict) -> None:
        """docs/workload.md §7's answers, from the seed's formulas (this server keeps no Redis)."""
        popular = [f"product:{i}" for i in range(10)]
        if method == "completion/complete" and self.surface_rule == "no completion":
            return self.error(ident, -32601, "method not found")
        if method == "resources/list":
            return self.result(ident, {"resources": [{"uri": surface.POPULAR_URI, "name": "popular"}]})
        if method == "resources/templates/list":
            return self.result(ident, {"resourceTemplates": [{"uriTemplate": surface.PRODUCT_URI, "name": "product"}]})
        if method == "resources/read":
            uri = params["uri"]
            document = surface.PRODUCT_42 if uri == surface.product_uri(42) else {"popular": popular}
            return self.result(ident, {"contents": [{"uri": uri, "mimeType": "application/json",
                                                     "text": json.dumps(document)}]})
        if method == "prompts/list":
            return self.result(ident, {"prompts": [{"name": surface.PROMPT}]})
        if method == "prompts/get":
            n = int(params["arguments"]["user_id"].rsplit("-", 1)[-1]) + (self.surface_rule == "wrong prompt")
            text = surface.seeded_prompt_text(n).replace(f"user-{n:05d}", params["arguments"]["user_id"])
            return self.result(ident, {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]})
        prefix = params["argument"]["value"]
        values = [user for user in (f"user-{n:05d}" for n in range(1, 10_001)) if user.startswith(prefix)][:10]
        return self.result(ident, {"completion": {"values": values}})

    def search(self, category: str = "Electronics", min_price: float = 50.0, max_price: float = 500.0,
               limit: int = 10) -> dict[str, object]:
        if not isinstance(category, str) or not isinstance(limit, int):
            raise TypeError("wrong argument types")
        products = [{"id": i, "sku": f"SKU-{i:06d}", "name": "x", "price": 50.0 + i, "rating": 4.0, "popularity_rank": 0}
                    for i in range(1, limit + 1)]
        return {"category": category, "total_found": 2251, "products": products, "top10_popular_ids": list(range(10))}

    def echo_payload(self, size: int, data: str = "") -> dict[str, object]:
        if self.payload_rule == "refuse above 1 MiB" and size > 1024 * 1024:
            raise ValueError("reply too large")
        text = dims.payload(size)
        if self.payload_rule == "truncate at 1 MiB":
            text = text[:1024 * 1024]
        elif self.payload_rule == "altered":
            text = text[:-1] + "!"
        return {"size": size, "received": len(data), "payload": text}

    def stream_progress(self, ident: object, params: dict) -> None:
        count = (params.get("arguments") or {}).get("count")
        token = (params.get("_meta") or {}).get("progressToken")
        notes = [{"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": i, "total": count}}
                 for i in range(1, count + 1)] if token is not None else []
        answer = {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": json.dumps(
            {"count": count, "sent": len(notes), "server_type": "spec"})}]}}
        if self.progress_rule == "json":
            return self.reply(200, answer)
        events = notes + [answer] if self.progress_rule == "spec" else [answer] + notes
        raw = "".join(f"event: message\ndata: {json.dumps(e)}\n\n" for e in events).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def cart(self, user_id: str = "user-00042") -> dict[str, object]:
        history = [json.loads(entry) for entry in self.histories[user_id][:5]]
        return {"user_id": user_id, "cart": {"items": [{"product_id": 1, "qty": 1}], "item_count": 1, "estimated_total": 1.0},
                "recent_history": history}

    def checkout(self, user_id: str = "user-00042", items: list | None = None) -> dict[str, object]:
        items = [{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}] if items is None else items
        if not items and self.empty_items == "tool error":
            raise LookupError("items must not be empty")
        if not items and self.empty_items == "invalid params":
            raise ValueError("items must not be empty")
        last = user_id.rsplit("-", 1)[-1]
        number = (int(last) if last.isdecimal() else 0) if self.rate_limit_key == "spec" else \
            int("".join(c for c in user_id if c.isdigit()) or 0)
        key = f"user-{number % 100:05d}"
        self.counters[key] += 1
        if not items and self.empty_items == "tool error after INCR":
            raise LookupError("items must not be empty")
        entry = {"order_id": f"ORD-{user_id}"} if self.history_entry == "order_id" else {"user_id": user_id}
        self.histories[user_id].append(json.dumps({**entry, "items": items, "ts": int(time.time())}))
        return {"order_id": f"ORD-{user_id.replace('-', '')}-{len(items)}", "user_id": user_id, "total": 10.0 * len(items) + 5.99,
                "items_count": len(items), "rate_limit_count": self.counters[key], "status": "confirmed"}

    def result(self, ident: object, result: object) -> None:
        self.reply(200, {"jsonrpc": "2.0", "id": ident, "result": result})

    def error(self, ident: object, code: int, message: str) -> None:
        self.reply(200, {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}})

    reply = WrongServer.reply


@pytest.fixture
def spec_server() -> Iterator[Callable[..., str]]:
    """Starts a SpecServer with some of its rules broken; its URL."""
    servers = []

    def start(**broken: str) -> str:
        seeded = {"user-00042": [json.dumps({"order_id": f"ORD-00042-{j:02d}", "ts": j}) for j in range(1, 21)]}
        handler = type("Server", (SpecServer,), {**broken, "counters": defaultdict(int),
                                                  "histories": defaultdict(list, seeded)})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/mcp"

    yield start
    for server in servers:
        server.shutdown()


WORKLOAD_DETAILS = ("spec: checkout's history entry", "spec: rate-limit key", "bad input: checkout with empty items")


def test_a_server_that_follows_the_spec_passes_every_check(spec_server: Callable[..., str]) -> None:
    verdict = verify(spec_server(), "spec")
    assert verdict.status == "pass", [(c.name, c.reason) for c in verdict.checks if c.status != "pass"]
    assert set(WORKLOAD_DETAILS) <= {check.name for check in verdict.checks}


@pytest.mark.parametrize(("broken", "failing", "reason"), [
    ({"history_entry": "order_id"}, "spec: checkout's history entry", "fields ['items', 'order_id', 'ts']"),
    ({"rate_limit_key": "all digits"}, "spec: rate-limit key", "'user-00042-7' and 'user-00007' counted"),
    ({"empty_items": "run it"}, "bad input: checkout with empty items", "a success result"),
    ({"empty_items": "invalid params"}, "bad input: checkout with empty items", "JSON-RPC error -32602"),
    ({"empty_items": "tool error after INCR"}, "bad input: checkout with empty items", "(expected +1): it ran"),
], ids=["history-order_id", "ratelimit-all-digits", "empty-items-run", "empty-items-invalid-params",
        "empty-items-after-incr"])
def test_verify_catches_each_workload_deviation(spec_server: Callable[..., str], broken: dict[str, str],
                                                failing: str, reason: str) -> None:
    verdict = verify(spec_server(**broken), "spec")
    by_name = {check.name: check for check in verdict.checks}
    assert verdict.status == "fail"
    assert [check.name for check in verdict.failures()] == [failing]
    assert reason in by_name[failing].reason, by_name[failing].reason
    assert all(by_name[name].status == "pass" for name in WORKLOAD_DETAILS if name != failing)


def test_nothing_listening_fails_every_check_without_raising(infra: Infra) -> None:
    from mcpbench.host.ports import free_port

    verdict = verify(f"http://127.0.0.1:{free_port()}/mcp", "nobody")
    assert verdict.status == "fail"
    assert all(check.status != "pass" for check in verdict.checks)


def test_how_a_rejection_is_judged() -> None:
    from mcpbench.workload.mcp_client import Reply
    from mcpbench.workload.verify import rejected

    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}}
    tool_error = {"jsonrpc": "2.0", "id": 1, "result": {"isError": True, "content": []}}
    success = {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}
    assert rejected(Reply(400, "text/plain", None, None, "bad"), False)[0] == "pass"
    assert rejected(Reply(200, "application/json", None, error, "{}"), False)[0] == "pass"
    assert rejected(Reply(500, "application/json", None, error, "{}"), False)[0] == "warn"
    assert rejected(Reply(500, "text/plain", None, None, "boom"), False)[0] == "fail"
    assert rejected(Reply(200, "application/json", None, tool_error, "{}"), True)[0] == "pass"
    assert rejected(Reply(200, "application/json", None, tool_error, "{}"), False)[0] == "fail"
    assert rejected(Reply(200, "application/json", None, success, "{}"), True)[0] == "fail"


BOTH_REVISIONS = ["2024-11-05", "2026-07-28"]


def test_a_server_listing_the_2026_revision_is_checked_with_self_contained_requests(
        spec_server: Callable[..., str]) -> None:
    verdict = verify(spec_server(), "spec", BOTH_REVISIONS)
    by_name = {check.name: check for check in verdict.checks}
    assert verdict.status == "pass", [(c.name, c.reason) for c in verdict.checks if c.status != "pass"]
    assert by_name["protocol 2026-07-28"].status == "pass"


def test_a_server_that_lists_the_2026_revision_but_refuses_it_fails(spec_server: Callable[..., str]) -> None:
    verdict = verify(spec_server(revision_2026="refused"), "spec", BOTH_REVISIONS)
    assert [check.name for check in verdict.failures()] == ["protocol 2026-07-28"]
    assert "HTTP 400" in verdict.failures()[0].reason
    # not listed: not asked, so an SDK without the revision is no failure
    unlisted = verify(spec_server(revision_2026="refused"), "spec", ["2024-11-05"])
    assert unlisted.status == "pass" and "protocol 2026-07-28" not in {c.name for c in unlisted.checks}


def test_a_2026_reply_without_its_result_type_is_a_warning(spec_server: Callable[..., str]) -> None:
    verdict = verify(spec_server(revision_2026="untyped"), "spec", BOTH_REVISIONS)
    by_name = {check.name: check for check in verdict.checks}
    assert by_name["protocol 2026-07-28"].status == "warn"
    assert "resultType" in by_name["protocol 2026-07-28"].reason


@pytest.mark.parametrize(("host_check", "failing"), [
    ("off", ["DNS rebinding: foreign Host refused", "DNS rebinding: foreign Origin refused"]),
    ("loopback IPs only", ["DNS rebinding: localhost accepted"]),
])
def test_a_server_without_the_contracts_host_check_fails_verify(spec_server: Callable[..., str], host_check: str,
                                                                 failing: list[str]) -> None:
    verdict = verify(spec_server(host_check=host_check), "spec")
    assert verdict.status == "fail"
    assert [check.name for check in verdict.failures()] == failing
    assert all("HTTP 200" in check.reason if host_check == "off" else "HTTP 403" in check.reason
               for check in verdict.failures())


ON = ToolSettings(extra_tools=5, dimension_tools=True, sse_replies=True)


def test_the_dimension_tools_pass_when_they_are_the_reference_answers(spec_server: Callable[..., str]) -> None:
    verdict = verify(spec_server(extra_tools=5, dimension_tools=True), "spec", settings=ON)
    by_name = {check.name: check for check in verdict.checks}
    assert verdict.status == "pass", [(c.name, c.reason) for c in verdict.checks if c.status != "pass"]
    assert {"extra tool", "echo_payload 1 KiB", "echo_payload 64 KiB", "echo_payload 1 MiB",
            "echo_payload 4 MiB", "stream_progress"} <= set(by_name)
    assert by_name["stream_progress"].reason.startswith("3 progress notifications in order before the result")
    assert "11 tools" in by_name["tools/list"].reason


def test_the_surface_is_checked_once_per_method_and_a_limit_its_manifest_names_is_a_warning(
        spec_server: Callable[..., str]) -> None:
    verdict = verify(spec_server(dimension_tools=True), "spec", settings=ToolSettings(dimension_tools=True))
    surfaced = {check.name: check.status for check in verdict.checks if check.name.split(" ")[0] in surface.METHODS}
    assert surfaced == dict.fromkeys(["resources/list", "resources/templates/list", "resources/read product",
                                      "resources/read popular", "prompts/list", "prompts/get",
                                      "completion/complete user-0012", "completion/complete user-1"], "pass")
    wrong = verify(spec_server(dimension_tools=True, surface_rule="wrong prompt"), "spec",
                   settings=ToolSettings(dimension_tools=True))
    assert [check.name for check in wrong.failures()] == ["prompts/get"]
    assert "expected 'Summarise the cart of user-00042" in wrong.failures()[0].reason
    lacking = spec_server(dimension_tools=True, surface_rule="no completion")
    assert {check.name for check in verify(lacking, "spec", settings=ToolSettings(dimension_tools=True)).failures()} \
        == {"completion/complete user-0012", "completion/complete user-1"}
    named = verify(lacking, "spec", settings=ToolSettings(dimension_tools=True),
                   unsupported={surface.COMPLETION: "the SDK has no completion handler"})
    warned = [check for check in named.checks if check.name.startswith("completion/complete")]
    assert named.status != "fail" and [check.status for check in warned] == ["warn", "warn"]
    assert warned[0].reason == "unsupported (its manifest): the SDK has no completion handler"


def test_verify_follows_tools_list_pages_and_records_the_whole_lists_size(spec_server: Callable[..., str]) -> None:
    one = verify(spec_server(extra_tools=5, dimension_tools=True), "spec", settings=ON)
    paged = verify(spec_server(extra_tools=5, dimension_tools=True, page_size=4), "spec", settings=ON)
    assert paged.status == "pass", [(c.name, c.reason) for c in paged.checks if c.status != "pass"]
    assert one.tools_list is not None and paged.tools_list is not None
    assert (one.tools_list.tools, one.tools_list.pages) == (11, 1)
    assert (paged.tools_list.tools, paged.tools_list.pages) == (11, 3)
    # every page's reply counted: three envelopes around the same eleven tools weigh more than one
    assert one.tools_list.bytes < paged.tools_list.bytes < 3 * one.tools_list.bytes
    said = next(c.reason for c in paged.checks if c.name == "tools/list")
    assert f"in the first of 3 pages ({paged.tools_list.bytes:,} in all)" in said, said
    assert paged.model_dump(exclude_unset=True)["tools_list"] == {"tools": 11, "pages": 3,
                                                                  "bytes": paged.tools_list.bytes}


@pytest.mark.parametrize(("server", "failing", "reason"), [
    ({"dimension_tools": True}, "tools/list", "EXTRA_TOOLS=5 ignored: 5 tool(s) missing"),
    ({"extra_tools": 5}, "tools/list", "DIMENSION_TOOLS=1 ignored"),
    ({"extra_tools": 5, "dimension_tools": True, "payload_rule": "truncate at 1 MiB"}, "echo_payload 4 MiB",
     "payload is 1,048,576 characters, expected 4,194,304 (truncated)"),
    ({"extra_tools": 5, "dimension_tools": True, "payload_rule": "altered"}, "echo_payload 1 KiB",
     "differs from the reference at character 1,023"),
    ({"extra_tools": 5, "dimension_tools": True, "progress_rule": "json"}, "stream_progress",
     "replied application/json, not an SSE stream"),
    ({"extra_tools": 5, "dimension_tools": True, "progress_rule": "after the result"}, "stream_progress",
     "0 progress notification(s) before the result, expected 3"),
], ids=["extra-tools-ignored", "dimension-tools-ignored", "truncated", "altered", "progress-as-json", "progress-late"])
def test_verify_names_a_setting_ignored_and_a_payload_truncated(spec_server: Callable[..., str], server: dict,
                                                                failing: str, reason: str) -> None:
    verdict = verify(spec_server(**server), "spec", settings=ON)
    by_name = {check.name: check for check in verdict.checks}
    assert failing in [check.name for check in verdict.failures()]
    assert reason in by_name[failing].reason, by_name[failing].reason


def test_a_refused_large_reply_is_the_servers_limit_and_unasked_tools_fail(spec_server: Callable[..., str]) -> None:
    refused = verify(spec_server(extra_tools=5, dimension_tools=True, payload_rule="refuse above 1 MiB"), "spec",
                     settings=ON)
    by_name = {check.name: check for check in refused.checks}
    assert by_name["echo_payload 4 MiB"].status == "warn"
    assert by_name["echo_payload 4 MiB"].reason.startswith("limit: refused: JSON-RPC error -32602")
    assert by_name["echo_payload 1 MiB"].status == "pass"
    # without the settings a reference server lists the three tools only (docs/workload.md §6)
    unasked = verify(spec_server(extra_tools=5), "spec")
    assert {check.name: check.status for check in unasked.checks}["tools/list"] == "fail"


def test_a_server_whose_sdk_cannot_stream_is_held_to_its_answer_and_warned_with_its_reason(
        spec_server: Callable[..., str]) -> None:
    why = "its transport answers with one JSON body"
    verdict = verify(spec_server(extra_tools=5, dimension_tools=True, progress_rule="json"), "spec", settings=ON,
                     unsupported={"progress": why})
    check = next(c for c in verdict.checks if c.name == "stream_progress")
    assert (check.status, check.reason) == ("warn", f"unsupported (its manifest): {why}") and verdict.status != "fail"


def test_streaming_is_asked_only_of_a_server_started_for_it(spec_server: Callable[..., str]) -> None:
    # a payload twin (DIMENSION_TOOLS=1 without SSE_REPLIES=1) may reply JSON: its stream_progress is not checked
    verdict = verify(spec_server(extra_tools=5, dimension_tools=True, progress_rule="json"), "spec",
                     settings=ToolSettings(extra_tools=5, dimension_tools=True))
    assert verdict.status == "pass" and "stream_progress" not in {c.name for c in verdict.checks}


def _streamed(notes: list[dict], answer: dict, content_type: str = "text/event-stream"):
    from mcpbench.workload.dimension_tools import StreamedReply
    message = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": json.dumps(answer)}]}}
    return StreamedReply(200, content_type, tuple((0.001 * i, {"jsonrpc": "2.0", "method": "notifications/progress",
                                                                "params": n}) for i, n in enumerate(notes)),
                         message, 0.01, "")


@pytest.mark.parametrize("notes, answer, content_type, wrong", [
    ([{"progressToken": "t", "progress": i, "total": 3} for i in (1, 2, 3)], {"count": 3, "sent": 3}, "text/event-stream", None),
    ([], {"count": 3, "sent": 3}, "application/json", "not an SSE stream"),
    ([{"progressToken": "t", "progress": i, "total": 3} for i in (1, 2)], {"count": 3, "sent": 3}, "text/event-stream",
     "2 progress notification(s) before the result, expected 3"),
    ([{"progressToken": "t", "progress": i, "total": 3} for i in (2, 1, 3)], {"count": 3, "sent": 3}, "text/event-stream",
     "is not the contract's"),
    ([{"progressToken": "other", "progress": i, "total": 3} for i in (1, 2, 3)], {"count": 3, "sent": 3},
     "text/event-stream", "is not the contract's"),
    ([{"progressToken": "t", "progress": i, "total": 3} for i in (1, 2, 3)], {"count": 3, "sent": 0}, "text/event-stream",
     "expected {'count': 3, 'sent': 3"),
])
def test_stream_progress_is_held_to_the_reference(notes, answer, content_type, wrong) -> None:
    from mcpbench.workload.dimension_tools import check_progress
    problems = check_progress(_streamed(notes, {**answer, "server_type": "s"}, content_type), 3, "t", "s")
    assert (not problems) if wrong is None else any(wrong in p for p in problems), problems


def test_without_a_token_stream_progress_sends_nothing() -> None:
    from mcpbench.workload.dimension_tools import check_progress
    assert check_progress(_streamed([], {"count": 2, "sent": 0, "server_type": "s"}), 2, None, "s") == []
    sent = _streamed([{"progressToken": None, "progress": 1, "total": 2}], {"count": 2, "sent": 1, "server_type": "s"})
    assert any("the call carried no progress token" in p for p in check_progress(sent, 2, None, "s"))
