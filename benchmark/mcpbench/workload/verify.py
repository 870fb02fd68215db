"""`mcpbench verify`: protocol, workload and bad-input checks against a running server."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from functools import partial

import httpx
import redis

from mcpbench.records import Closed, described
from mcpbench.workload import dimension_tools as dims
from mcpbench.workload import surface
from mcpbench.workload.checks import Check, Status, worst
from mcpbench.workload.conformance import Conformance
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.mcp_client import REVISION_2026, JsonRpc, McpClient, Reply, tool_payload
from mcpbench.workload.seed import user_id as seed_user_id
from mcpbench.workload.tools import CHECKS, DEFAULT_ARGUMENTS, TOOL_NAMES

# A name no allow-list holds (RFC 2606 reserves .example): what a rebinding attacker's page is called.
FOREIGN_HOST = "rebinding.example"
# tools/list pages verify follows at most (a server whose cursor never ends is not followed for ever).
MAX_PAGES = 200
# The checks of how a server is deployed (docs/server-contract.md HOST, ALLOWED_HOSTS) rather than of what it
# answers: a --what-if twin that changes the deployment on purpose fails them and is still measured.
DEPLOYMENT_CHECKS = ("DNS rebinding: ", "listens on loopback only", "conformance: dns-rebinding-protection")


def is_deployment_check(check: Check) -> bool:
    return check.name.startswith(DEPLOYMENT_CHECKS)


class ToolsListed(Closed):
    """What one client's whole tools/list costs: its tools, its pages, and the reply bytes of all pages
    together (the body as the client read it, SSE framing included). Fixed for a server and its settings."""

    tools: int = described("the tools it lists, every page")
    pages: int = described("the pages they came in (nextCursor followed; the Go SDK pages at 1,000 tools)")
    bytes: int = described("one client's whole tools/list: the reply bytes of every page, SSE framing included")


class Verify(Closed):
    """verify.json: a server's verdict, its checks in order. Only what a verification read is set (Verify.of):
    a file written without tools_list or conformance reads them as null."""

    status: Status = described("the worst of its checks")
    checks: list[Check] = described("every check, in order")
    tools_list: ToolsListed | None = described("tools/list's size, read once per server and run (null: not read, or "
                                               "written before it was recorded)", None)
    conformance: Conformance | None = described("`verify --conformance`: the official MCP conformance suite's "
                                                "applicable scenarios (null: not run)", None)
    probes: list[Check] | None = described("`verify --probes`: the robustness probes (workload/probes.py), each "
                                           "passed, warned or failed with what came back; not part of `status` "
                                           "(null: not run)", None)

    @classmethod
    def of(cls, checks: list[Check], tools_list: ToolsListed | None = None,
           conformance: Conformance | None = None, probes: list[Check] | None = None) -> Verify:
        """The verdict of `checks` (the worst of them); tools_list and conformance set only where they were read
        (None: tools/list was not read, as of a workload file's own checks; the suite did not run)."""
        verdict = cls(status=worst(checks), checks=checks)
        if tools_list is not None:
            verdict.tools_list = tools_list
        if conformance is not None:
            verdict.conformance = conformance
        if probes is not None:
            verdict.probes = probes
        return verdict

    def failures(self) -> list[Check]:
        return [check for check in self.checks if check.status == "fail"]


def rejected(reply: Reply, allow_tool_error: bool) -> tuple[Status, str]:
    """A bad request is handled when it gets a JSON-RPC error, a 4xx, or (tool level) isError.

    A 5xx that still carries a JSON-RPC error is a rejection dressed as a server fault (some SDKs answer
    an unknown method with 500 / -32603): a warning, since the client is told, but wrongly."""
    if 400 <= reply.status < 500:
        return "pass", f"HTTP {reply.status}"
    if reply.status >= 500:
        if reply.error:
            code = reply.error.get("code")
            told = f"JSON-RPC error {code}" if code is not None else f"an error {reply.error.get('message', '')[:60]!r}"
            return "warn", f"HTTP {reply.status} with {told} (a server error code for a client mistake)"
        return "fail", f"HTTP {reply.status} (a server error, not a rejection)"
    if reply.error:
        return "pass", f"JSON-RPC error {reply.error.get('code')}"
    if allow_tool_error and reply.result and reply.result.get("isError"):
        return "pass", "tool result with isError"
    return "fail", f"HTTP {reply.status} with a success reply: {reply.body[:160]!r}"


class _Verifier:
    def __init__(self, url: str, server_type: str, settings: ToolSettings, unsupported: dict[str, str],
                 redis_url: str | None = None):
        self.url = url
        # the bench's Redis, where stepped_work leaves its steps and the surface's answers are read (None: not read)
        self.store = redis.Redis.from_url(redis_url, socket_timeout=5, decode_responses=True) if redis_url else None
        self.server_type = server_type
        self.settings = settings
        self.unsupported = unsupported
        self.checks: list[Check] = []
        self.listed: ToolsListed | None = None

    def add(self, name: str, status: Status, reason: str) -> None:
        self.checks.append(Check(name=name, status=status, reason=reason))

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
                if self.settings.sessions and not reply.session_id:
                    self.add(dims.SESSIONS, "fail", f"{dims.SESSIONS}=1 ignored: initialize issued no "
                                                    "Mcp-Session-Id, so the server keeps no session to abandon")
            self.guarded("initialize", initialize)

            def initialized() -> None:
                reply = client.notify("notifications/initialized")
                ok = 200 <= reply.status < 300
                self.add("notifications/initialized", "pass" if ok else "fail", f"HTTP {reply.status}")
            self.guarded("notifications/initialized", initialized)

            def tools_list() -> None:
                reply, tools, listed = self.list_all(client)
                self.listed = listed
                missing = [name for name in TOOL_NAMES if name not in tools]
                if missing:
                    self.add("tools/list", "fail", f"missing tools {missing}; got {sorted(tools)}")
                    return
                schemaless = [name for name in TOOL_NAMES
                              if (tools[name].get("inputSchema") or {}).get("type") != "object"]
                if schemaless:
                    self.add("tools/list", "fail", f"no object input schema for {schemaless}")
                    return
                wrong = dims.check_listed(tools, self.settings)
                if wrong:
                    self.add("tools/list", "fail", "; ".join(wrong))
                    return
                extra = sorted(set(tools) - set(TOOL_NAMES) - self.settings.tool_names())
                said = (f"{len(tools)} tools with input schemas, {len(reply.body.encode()):,} bytes"
                        + (f" in the first of {listed.pages} pages ({listed.bytes:,} in all)"
                           if listed.pages > 1 else "")
                        + f" ({reply.framing} reply)")
                # A reference server registers its dimension tools only when a setting asks (docs/workload.md §6):
                # by default tools/list is the three tools, whose wire pattern the v2 comparison rests on.
                self.add("tools/list", "fail" if extra else "pass",
                         said + (f"; tools no setting asked for: {extra[:5]}" if extra else ""))
            self.guarded("tools/list", tools_list)

            for tool in TOOL_NAMES:
                self.guarded(f"tool {tool}", partial(self.tool, client, tool))
            if self.settings.extra_tools:
                self.guarded("extra tool", lambda: self.extra_tool(client))
            if self.settings.dimension_tools:
                for size in dims.PAYLOAD_SIZES:
                    self.guarded(f"{dims.ECHO_PAYLOAD} {dims.size_text(size)}",
                                 partial(self.echo_payload, client, size))
            if self.settings.dimension_tools and (store := self.store):
                self.guarded(dims.STEPPED_WORK, lambda: self.stepped_work(client, store))
                self.guarded(dims.CANCELLATION, lambda: self.cancellation(client, store))
            if self.settings.dimension_tools:
                self.surface(client)
            if self.settings.dimension_tools and self.settings.sse_replies:
                # streaming is asked of a server started for it (SSE_REPLIES=1): by default an SDK may reply JSON
                self.guarded(dims.STREAM_PROGRESS, lambda: self.stream_progress(client))

            def delete() -> None:
                status = client.delete_session()
                ok = 200 <= status < 300 or status in (404, 405)
                self.add("DELETE /mcp", "pass" if ok else "warn", f"HTTP {status}")
            self.guarded("DELETE /mcp", delete)

    @staticmethod
    def list_all(client: McpClient) -> tuple[Reply, dict[str, JsonRpc], ToolsListed]:
        """tools/list followed through its pages (nextCursor: the Go SDK pages at 1,000 tools): the first
        page's reply, every tool by name, and what the whole list cost (tools, pages, bytes)."""
        reply = client.request("tools/list")
        tools: dict[str, JsonRpc] = {}
        page, pages, size = reply, 1, 0
        while True:
            size += len(page.body.encode())
            tools.update({tool["name"]: tool for tool in (page.result or {}).get("tools", [])})
            cursor = (page.result or {}).get("nextCursor")
            if not cursor or pages >= MAX_PAGES:
                return reply, tools, ToolsListed(tools=len(tools), pages=pages, bytes=size)
            page = client.request("tools/list", {"cursor": cursor})
            pages += 1

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

    def extra_tool(self, client: McpClient) -> None:
        name = dims.extra_tool_name(self.settings.extra_tools)
        problems = dims.check_extra_call(client.call_tool(name, {"query": "verify"}), name, self.server_type)
        self.add("extra tool", "fail" if problems else "pass",
                 "; ".join(problems) if problems
                 else f"{name} answered (the last of {dims.EXTRA_TOOLS}={self.settings.extra_tools})")

    def echo_payload(self, client: McpClient, size: int) -> None:
        """A wrong payload (truncated, altered) fails; a refusal is the server's limit: a failure up to the
        argument's own size (every server must take those), above it a warning that names the limit."""
        verdict = dims.check_payload(dims.call_payload(client, size), size)
        name = f"{dims.ECHO_PAYLOAD} {dims.size_text(size)}"
        if verdict.problem:
            self.add(name, "fail", verdict.problem)
        elif verdict.refused:
            self.add(name, "fail" if size <= dims.MAX_ARGUMENT else "warn", f"limit: refused: {verdict.refused}")
        else:
            self.add(name, "pass", f"{size:,} characters as the reference (argument {len(dims.argument(size)):,})")

    def stream_progress(self, client: McpClient) -> None:
        """Its notifications, in order and before the result, on the call's own SSE reply (docs/workload.md §6);
        without a progress token, none. A server whose manifest says its SDK cannot stream (`unsupported.progress`)
        must still answer right; that it streams nothing is then a warning that gives its reason."""
        token = dims.progress_token("verify")
        count = dims.VERIFY_PROGRESS
        streamed = dims.call_progress(client, count, token)
        why = self.unsupported.get(dims.PROGRESS)
        if why:
            wrong = dims.check_progress_answer(streamed, count, token, self.server_type)
            self.add(dims.STREAM_PROGRESS, "fail" if wrong else "warn",
                     "; ".join(wrong) if wrong else f"unsupported (its manifest): {why}")
            return
        problems = dims.check_progress(streamed, count, token, self.server_type)
        if problems:
            self.add(dims.STREAM_PROGRESS, "fail", "; ".join(problems))
            return
        untokened = dims.check_progress(dims.call_progress(client, 2, None), 2, None, self.server_type)
        if untokened:
            self.add(dims.STREAM_PROGRESS, "fail", "without a progress token: " + "; ".join(untokened))
            return
        first_ms = streamed.notifications[0][0] * 1000
        self.add(dims.STREAM_PROGRESS, "pass", f"{count} progress notifications in order before the result "
                 f"(first after {first_ms:.1f} ms, result after {streamed.result_s * 1000:.1f} ms); "
                 "none without a token")

    def stepped_work(self, client: McpClient, store: redis.Redis) -> None:
        """3 steps 10 ms apart: its answer, and 3 times in order in its Redis list (docs/workload.md §6)."""
        key = f"verify-{uuid.uuid4().hex[:8]}"
        begun = time.time_ns() // 1_000_000
        reply = client.call_tool(dims.STEPPED_WORK, dims.stepped_arguments(key, 3, 10))
        ended = time.time_ns() // 1_000_000
        times = dims.step_times(store, key)
        problems = dims.check_stepped(reply, times, key, 3, (begun, ended), self.server_type)
        self.add(dims.STEPPED_WORK, "fail" if problems else "pass",
                 "; ".join(problems) if problems else f"3 steps written in order over {ended - begun} ms")

    def cancellation(self, client: McpClient, store: redis.Redis) -> None:
        """One stepped_work call cancelled part-way, as the cancellation dimension cancels them: the steps the server
        still wrote after it. Work that ran on is the SDK's behaviour, measured, not a fault: a warning (with the
        manifest's reason where it gives one); a call that did nothing before it fails (there was nothing to stop)."""
        done = dims.cancel_once(client, store)
        said = (f"cancelled by {done.how} after {done.before} of {dims.CANCEL_STEPS} steps: {done.after} written "
                "after it" + ("; a reply still came (the spec says none should)" if done.replied else
                              "; no reply came" if done.replied is False else ""))
        if done.before == 0:
            self.add(dims.CANCELLATION, "fail", f"{said}: stepped_work did nothing in its first "
                     f"{dims.CANCEL_AFTER_S * 1000:.0f} ms")
        elif done.stopped and not done.replied:
            self.add(dims.CANCELLATION, "pass", f"stopped: {said}")
        else:
            why = self.unsupported.get(dims.CANCELLATION)
            self.add(dims.CANCELLATION, "warn", ("ran on" if not done.stopped else "replied") + f": {said}"
                     + (f" (its manifest: {why})" if why else ""))

    def surface(self, client: McpClient) -> None:
        """The resources, prompt and completion of docs/workload.md §7, each once. What a server's manifest says
        its SDK lacks (`unsupported.resources` …) is a warning with the reason when it fails, as progress is."""
        def popular(reply: Reply) -> list[str]:
            # checkout moved the ranking: Redis's ten at the time of the check
            return surface.check_popular(reply, surface.popular(self.store) if self.store else None)

        checks: list[tuple[str, str, str, JsonRpc | None, Callable[[Reply], list[str]]]] = [
            ("resources/list", surface.RESOURCES, "resources/list", None,
             lambda reply: surface.check_listed(reply, "resources", "uri", surface.POPULAR_URI)),
            ("resources/templates/list", surface.RESOURCES, "resources/templates/list", None,
             lambda reply: surface.check_listed(reply, "resourceTemplates", "uriTemplate", surface.PRODUCT_URI)),
            ("resources/read product", surface.RESOURCES, "resources/read",
             surface.read_params(surface.product_uri(surface.VERIFY_PRODUCT)), surface.check_product),
            ("resources/read popular", surface.RESOURCES, "resources/read", surface.read_params(surface.POPULAR_URI),
             popular),
            ("prompts/list", surface.PROMPTS, "prompts/list", None,
             lambda reply: surface.check_listed(reply, "prompts", "name", surface.PROMPT)),
            ("prompts/get", surface.PROMPTS, "prompts/get", surface.prompt_params(seed_user_id(surface.VERIFY_USER)),
             lambda reply: surface.check_prompt(reply, surface.seeded_prompt_text(surface.VERIFY_USER))),
        ] + [(f"completion/complete {prefix}", surface.COMPLETION, "completion/complete",
              surface.complete_params(prefix),
              lambda reply, values=values: surface.check_completion(reply, values))   # type: ignore[misc]
             for prefix, values in surface.COMPLETED.items()]
        for name, key, method, params, check in checks:
            def one(name: str = name, key: str = key, method: str = method, params: JsonRpc | None = params,
                    check: Callable[[Reply], list[str]] = check) -> None:
                reply = client.request(method, params)
                try:
                    failed = surface.failed(reply)
                    problems = [failed] if failed else check(reply)
                except (json.JSONDecodeError, ValueError, KeyError, TypeError) as exc:
                    problems = [f"{type(exc).__name__}: {exc}"]
                why = self.unsupported.get(key)
                if problems and why:
                    self.add(name, "warn", f"unsupported (its manifest): {why}")
                elif problems:
                    self.add(name, "fail", "; ".join(problems))
                else:
                    self.add(name, "pass", f"as the reference ({reply.framing} reply)")
            self.guarded(name, one)

    def stateless_call(self) -> None:
        # The `stateless` load mode sends tools/call with no initialize and no session.
        with McpClient(self.url) as client:
            reply = client.call_tool("search_products", DEFAULT_ARGUMENTS["search_products"])
            ok = reply.status == 200 and reply.result is not None and not reply.result.get("isError")
            self.add("tools/call without a session", "pass" if ok else "warn",
                     "answered" if ok else f"HTTP {reply.status}: {reply.body[:160]!r} — the stateless mode will fail")

    def self_contained_call(self) -> None:
        # Mode stateless-2026: every tool answered to a self-contained 2026-07-28 request, as the spec
        # has it (a result of resultType "complete"), with the workload's checks holding.
        without_type = []
        with McpClient(self.url) as client:
            for tool in TOOL_NAMES:
                reply = client.call_tool_2026(tool, DEFAULT_ARGUMENTS[tool])
                if reply.status != 200 or reply.error or not reply.result or reply.result.get("isError"):
                    self.add(f"protocol {REVISION_2026}", "fail",
                             f"{tool}: HTTP {reply.status}: {reply.body[:200]!r} — the manifest lists {REVISION_2026}")
                    return
                problems = CHECKS[tool](tool_payload(reply))
                if problems:
                    self.add(f"protocol {REVISION_2026}", "fail", f"{tool}: " + "; ".join(problems))
                    return
                if "resultType" not in reply.result:
                    without_type.append(tool)
                elif reply.result["resultType"] != "complete":
                    self.add(f"protocol {REVISION_2026}", "fail",
                             f"{tool}: resultType {reply.result['resultType']!r}, expected 'complete'")
                    return
        if without_type:
            self.add(f"protocol {REVISION_2026}", "warn",
                     f"answered, but without the revision's resultType: {', '.join(without_type)}")
        else:
            self.add(f"protocol {REVISION_2026}", "pass", "every tool answered a self-contained request")

    # ---- docs/workload.md §5: the details a server can get wrong while every tool check still holds ----

    def _checkout(self, client: McpClient, user_id: str, items: list[dict[str, int]] | None = None) -> Reply:
        arguments = {"user_id": user_id,
                     "items": DEFAULT_ARGUMENTS["checkout"]["items"] if items is None else items}
        return client.call_tool("checkout", arguments)

    def _rate_limit_count(self, client: McpClient, user_id: str) -> int:
        reply = self._checkout(client, user_id)
        if reply.status != 200 or reply.error or not reply.result or reply.result.get("isError"):
            raise ValueError(f"checkout for {user_id!r}: HTTP {reply.status}: {reply.body[:200]!r}")
        count = tool_payload(reply).get("rate_limit_count")
        if not isinstance(count, int):
            raise TypeError(f"checkout for {user_id!r}: rate_limit_count is {count!r}")
        return count

    def history_entry(self, client: McpClient) -> None:
        """checkout's RPUSH writes {"user_id", "items" (as given), "ts" (unix seconds)}. A user id nothing
        seeds or loads has no history, so the one entry get_user_cart then reads is the one checkout wrote."""
        name = "spec: checkout's history entry"
        user_id = f"user-verify{uuid.uuid4().hex[:12]}"
        items = [{"product_id": 7, "quantity": 3}, {"product_id": 99999, "quantity": 1}]
        started = time.time()
        reply = self._checkout(client, user_id, items)
        if reply.status != 200 or reply.error or not reply.result or reply.result.get("isError"):
            self.add(name, "fail", f"checkout for {user_id!r}: HTTP {reply.status}: {reply.body[:200]!r}")
            return
        reply = client.call_tool("get_user_cart", {"user_id": user_id})
        if reply.status != 200 or reply.error or not reply.result or reply.result.get("isError"):
            self.add(name, "fail", f"get_user_cart for {user_id!r}: HTTP {reply.status}: {reply.body[:200]!r}")
            return
        history = tool_payload(reply).get("recent_history")
        if not isinstance(history, list) or len(history) != 1:
            self.add(name, "fail", f"one checkout for a new user left {history!r} as its history, expected 1 entry")
            return
        entry = history[0]
        problems = []
        if not isinstance(entry, dict) or set(entry) != {"user_id", "items", "ts"}:
            problems.append(f"fields {sorted(entry) if isinstance(entry, dict) else type(entry).__name__}, "
                            "expected exactly user_id, items, ts")
        else:
            if entry["user_id"] != user_id:
                problems.append(f"user_id is {entry['user_id']!r}, expected {user_id!r}")
            if entry["items"] != items:
                problems.append(f"items are {entry['items']!r}, expected them as given: {items!r}")
            ts = entry["ts"]
            if not isinstance(ts, int) or not started - 60 <= ts <= time.time() + 60:
                problems.append(f"ts is {ts!r}, expected the unix time in seconds (about {int(started)})")
        self.add(name, "fail" if problems else "pass",
                 "; ".join(problems) + f" (entry {json.dumps(entry)[:200]})" if problems
                 else '{"user_id", "items" as given, "ts" in seconds}')

    def rate_limit_key(self, client: McpClient) -> None:
        """The counter is bench:ratelimit:user-{N % 100:05d}, N the integer after the user id's last '-' (0
        when that is not a number). Each probe id's key differs when N is built from all of the id's digits;
        the spec puts it on the same counter as its partner, which the INCR results show: A, B, A count on."""
        name = "spec: rate-limit key"
        pairs = [("user-00042-7", "user-00007"),   # all digits: 427 -> user-00027
                 ("user-00042-x", "user-00100")]   # all digits: 42 -> user-00042; the spec: 0 -> user-00000
        problems = []
        for probe, partner in pairs:
            counts = [self._rate_limit_count(client, user) for user in (probe, partner, probe)]
            if counts[1] != counts[0] + 1 or counts[2] != counts[1] + 1:
                problems.append(f"{probe!r} and {partner!r} counted {counts}, not on one counter")
        self.add(name, "fail" if problems else "pass",
                 "; ".join(problems) + " — the key is the integer after the last '-' (0 if none), % 100"
                 if problems else "the integer after the user id's last '-' (0 if none), % 100")

    def empty_items(self, client: McpClient) -> None:
        """checkout with "items": [] is a tool error (isError) and does no I/O: the rate-limit counter it would
        have incremented is the same before and after it."""
        name = "bad input: checkout with empty items"
        user_id = "user-00007"
        before = self._rate_limit_count(client, user_id)
        reply = self._checkout(client, user_id, [])
        after = self._rate_limit_count(client, user_id)
        if reply.status != 200 or reply.error or not reply.result or not reply.result.get("isError"):
            got = (f"JSON-RPC error {reply.error.get('code')}" if reply.error
                   else "a success result" if reply.result else f"HTTP {reply.status}")
            self.add(name, "fail", f"{got}: {reply.body[:160]!r}; the spec's answer is a tool result with isError")
        elif after != before + 1:
            self.add(name, "fail", f"isError, but the rate-limit counter moved {before} -> {after} around it "
                                   "(expected +1): it ran the checkout's I/O")
        else:
            self.add(name, "pass", "tool result with isError, no I/O")

    def workload_details(self) -> None:
        with McpClient(self.url) as client:
            client.initialize()
            self.guarded("spec: checkout's history entry", lambda: self.history_entry(client))
            self.guarded("spec: rate-limit key", lambda: self.rate_limit_key(client))
            self.guarded("bad input: checkout with empty items", lambda: self.empty_items(client))

    def bad_input(self) -> None:
        cases: list[tuple[str, bytes, bool]] = [
            ("malformed JSON", b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"', False),
            ("unknown method", json.dumps({"jsonrpc": "2.0", "id": 2, "method": "no/such_method"}).encode(), False),
            ("unknown tool", json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                         "params": {"name": "no_such_tool", "arguments": {}}}).encode(), True),
            ("wrong argument types", json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
                "name": "search_products",
                "arguments": {"category": 7, "min_price": "cheap", "limit": "ten"}}}).encode(),
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
                    status, reason = rejected(reply, tool_level)
                    self.add(f"bad input: {name}", status, reason)
                self.guarded(f"bad input: {name}", one)

        def still_alive() -> None:
            with McpClient(self.url) as client:
                client.initialize()
                reply = client.call_tool("search_products", DEFAULT_ARGUMENTS["search_products"])
                ok = reply.status == 200 and reply.result is not None and not reply.result.get("isError")
                self.add("still serving after bad input", "pass" if ok else "fail", f"HTTP {reply.status}")
        self.guarded("still serving after bad input", still_alive)


    def dns_rebinding(self) -> None:
        """docs/server-contract.md's ALLOWED_HOSTS: a browser on a page whose name rebinds to this machine sends
        that name as Host, and its own page as Origin; the server must refuse both (a 4xx, nothing served), and
        still answer the names it is given. Each probe is an initialize, which every server otherwise answers."""
        port = httpx.URL(self.url).port
        probes = [("DNS rebinding: foreign Host refused", {"Host": f"{FOREIGN_HOST}:{port}"}, False),
                  ("DNS rebinding: foreign Origin refused", {"Origin": f"http://{FOREIGN_HOST}"}, False),
                  ("DNS rebinding: localhost accepted",
                   {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}, True)]
        for name, headers, accept in probes:
            def probe(name: str = name, headers: dict[str, str] = headers, accept: bool = accept) -> None:
                with McpClient(self.url) as client:
                    reply = client.initialize(headers)
                if accept:
                    ok = reply.status == 200 and reply.result is not None
                    self.add(name, "pass" if ok else "fail",
                             f"HTTP {reply.status}" + ("" if ok else f": {reply.body[:160]!r} — the contract's "
                                                       "ALLOWED_HOSTS names localhost"))
                else:
                    ok = 400 <= reply.status < 500
                    self.add(name, "pass" if ok else "fail",
                             f"HTTP {reply.status}" + ("" if ok else " — served: the server's DNS-rebinding "
                                                       "protection is off (docs/server-contract.md, ALLOWED_HOSTS)"))
            self.guarded(name, probe)


def verify(url: str, server_type: str, protocols: list[str] | None = None,
           settings: ToolSettings = ToolSettings(), unsupported: dict[str, str] | None = None,
           redis_url: str | None = None) -> Verify:
    """Run every check against the MCP endpoint `url`; never raises for a misbehaving server. `protocols`:
    the revisions its manifest says its SDK accepts; a listed 2026-07-28 is checked too. `settings`: the
    contract settings it was started with, whose tools (workload/dimension_tools.py) are checked too;
    `unsupported`: what its manifest says its SDK cannot do (progress: why), checked as a limit, not a failure;
    `redis_url`: the bench's Redis, where stepped_work's steps and the surface's answers are read (None: stepped_work
    is not checked, and the popular resource only for its ten)."""
    verifier = _Verifier(url, server_type, settings, unsupported or {}, redis_url)
    verifier.session()
    if settings.sessions:
        # A stateful transport turns away a call without its session: the twin is never measured stateless.
        verifier.add("tools/call without a session", "pass", f"not checked: {dims.SESSIONS}=1 asks for a session "
                                                             "on every call")
    else:
        verifier.guarded("tools/call without a session", verifier.stateless_call)
    if REVISION_2026 in (protocols or ()) and settings.sessions:
        # 2026-07-28 is the revision without sessions: an SDK keeping them (SESSIONS=1) may answer only the older.
        verifier.add(f"protocol {REVISION_2026}", "pass", f"not checked: {dims.SESSIONS}=1 keeps sessions, which "
                                                          f"{REVISION_2026} has none of")
    elif REVISION_2026 in (protocols or ()):
        verifier.guarded(f"protocol {REVISION_2026}", verifier.self_contained_call)
    verifier.guarded("workload details", verifier.workload_details)
    verifier.guarded("bad input", verifier.bad_input)
    verifier.dns_rebinding()
    return Verify.of(verifier.checks, verifier.listed)
