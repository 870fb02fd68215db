"""The load generators (the load driver always, k6 where the user installed it) against the API service's
trivial MCP endpoint and against a tiny scripted MCP server in this process: real processes, real HTTP,
tiny timelines. Both must send the same messages and record the same verdicts."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mcpbench.loads.timing import Timing
from mcpbench import loadgen
from mcpbench.loads import ClosedLoad, OpenLoad
from mcpbench.runtime.local_infra import Infra
from mcpbench.loadgen import LoadError, Tick
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.model import COUNTS_FILE, LoadgenCounts, document
from mcpbench.results.read import read_samples

TIMING = Timing(ramp_up_s=0.5, warmup_s=1, duration_s=2, ramp_down_s=0.5, warmup_cap_s=None)
TOOLS = {"search_products", "get_user_cart", "checkout"}


# What each generator calls itself in initialize's clientInfo.
CLIENT_NAME = {"driver": "mcpbench-load-driver", "k6": "mcpbench-k6"}


def run_load(generator: str, url: str, load, timing: Timing, out_dir: Path, cpus=None, **hooks):
    """One local generator process, as the suite runs it."""
    return loadgen.create(generator, cpus).run(url, load, timing, MeasurementDir(out_dir), **hooks)


@pytest.fixture
def k6_only(generator_name: str) -> str:
    if generator_name != "k6":
        pytest.skip("about k6 itself")
    return generator_name


def http_counts(samples) -> list[int]:
    return samples["http_ms"].str.split(";").map(len).tolist()


@pytest.mark.parametrize("mode, http_per_call", [("session", {3, 4}), ("stateless", {1}), ("persistent", {1}),
                                                 ("stateless-2026", {1})])
def test_every_mode_drives_all_tools_and_records_one_sample_per_call(
        infra: Infra, tmp_path: Path, mode: str, http_per_call: set[int], generator_name: str) -> None:
    run = run_load(generator_name, f"{infra.api_url}/calibrate/mcp", ClosedLoad(mode, 3), TIMING, tmp_path, None)
    samples = run.samples
    assert run.exit_code == 0
    assert run.start_epoch_s is not None
    assert set(samples["tool"]) == TOOLS | {"tools/list"}
    assert samples["ok"].all(), samples[samples["ok"] == 0].head()
    assert set(http_counts(samples)) <= http_per_call
    assert samples["t_s"].between(0, TIMING.total_s + 6).all()
    assert (tmp_path / "samples.csv.gz").exists() and not (tmp_path / "k6-summary.json").exists()
    assert len(read_samples(tmp_path / "samples.csv.gz")) == len(samples)
    # The generator's own counts agree with the samples: every iteration is 3 tool calls + tools/list, and
    # every HTTP request is in some sample's http_ms (persistent: plus initialize + initialized per VU).
    counts = json.loads((tmp_path / COUNTS_FILE).read_text())
    assert run.counts is not None and document(run.counts) == counts  # as the generator wrote them
    assert set(counts) >= {"iterations", "http_reqs", "dropped_iterations"}
    assert LoadgenCounts.model_validate(counts)  # what the results format accepts
    assert counts["iterations"] * 4 == len(samples)
    opening = 2 * 3 if mode == "persistent" else 0
    assert counts["http_reqs"] == sum(http_counts(samples)) + opening
    assert counts["dropped_iterations"] == 0


def test_the_open_model_sends_tool_calls_at_the_arrival_rate(infra: Infra, tmp_path: Path, generator_name: str) -> None:
    timing = Timing(ramp_up_s=0.5, warmup_s=0.5, duration_s=4, ramp_down_s=0.5, warmup_cap_s=None)
    run = run_load(generator_name, f"{infra.api_url}/calibrate/mcp", OpenLoad("stateless", 5, 20.0), timing, tmp_path, None)
    inside = run.samples[run.samples["t_s"].between(*timing.window)]
    assert "tools/list" not in set(run.samples["tool"])
    assert 0.8 * 20 * 4 <= len(inside) <= 1.2 * 20 * 4
    assert run.counts is not None and run.counts.iterations == len(run.samples)


def test_a_wrong_answer_counts_as_an_error(infra: Infra, tmp_path: Path, generator_name: str) -> None:
    # The API service's plain /health answers 200 with JSON that is no JSON-RPC reply at all.
    run = run_load(generator_name, f"{infra.api_url}/health", ClosedLoad("stateless", 1), TIMING, tmp_path, None)
    assert not run.samples["ok"].any()
    assert set(run.samples["error_kind"]) <= {"bad_response", "http_405", "http_404"}


def test_a_relative_output_directory_works(infra: Infra, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, generator_name: str) -> None:
    # `mcpbench run --results-dir results/x` hands a relative path down, and the generator runs inside it.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rel").mkdir()
    run = run_load(generator_name, f"{infra.api_url}/calibrate/mcp", ClosedLoad("stateless", 1), TIMING, Path("rel"), None)
    assert run.exit_code == 0 and len(run.samples) > 0
    assert (tmp_path / "rel" / "samples.csv.gz").exists() and (tmp_path / "rel" / COUNTS_FILE).exists()


def test_k6s_own_error_is_on_the_first_line_of_the_failure(
        infra: Infra, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, k6_only: str) -> None:
    # The console prints a failure's first line only; "k6 produced no samples" alone says nothing.
    broken = tmp_path / "broken.js"
    broken.write_text("throw new Error('the script is broken');\nexport default function () {}\n")
    monkeypatch.setattr("mcpbench.loadgen.k6.K6_SCRIPT", broken)
    with pytest.raises(LoadError) as failure:
        run_load(k6_only, f"{infra.api_url}/calibrate/mcp", ClosedLoad("stateless", 1), TIMING, tmp_path, None)
    assert "the script is broken" in str(failure.value).splitlines()[0]


def test_stopped_with_sigint_the_generator_still_writes_its_counts(infra: Infra, tmp_path: Path,
                                                                   generator_name: str) -> None:
    # The orchestrator ends a test early with SIGINT (Tick.STOP). k6 1.8.1 then aborts the run (exit code
    # 105, "ExternalAbort": iterations in flight are interrupted), but handleSummary still runs; the driver
    # lets iterations in flight finish and exits 0.
    timing = Timing(ramp_up_s=0.5, warmup_s=1, duration_s=60, ramp_down_s=0.5, warmup_cap_s=None)
    run = run_load(generator_name, f"{infra.api_url}/calibrate/mcp", ClosedLoad("session", 3), timing, tmp_path, None,
                 on_tick=lambda elapsed, live: Tick.STOP if elapsed >= 3 else Tick.GO_ON)
    assert run.stopped_early and run.exit_code == {"k6": 105, "driver": 0}[generator_name]
    assert run.samples["t_s"].max() < 20
    assert run.counts is not None
    # Completed iterations only are counted: an iteration interrupted in its think time has all 4 samples
    # but is not counted, so up to 4 samples per VU are beyond iterations * 4.
    assert 0 < run.counts.iterations * 4 <= len(run.samples) <= (run.counts.iterations + 3) * 4
    assert sum(http_counts(run.samples)) <= run.counts.http_reqs <= sum(http_counts(run.samples)) + 3 * 3


# --- a scripted MCP server: what the calibrate endpoint cannot do (fail a DELETE, an initialize…) ---

PAYLOADS = {
    "search_products": {"total_found": 2251, "products": [{"id": i} for i in range(10)],
                        "top10_popular_ids": list(range(10))},
    "get_user_cart": {"cart": {"items": [{"product_id": 1}]}, "recent_history": [1, 2, 3, 4, 5]},
    "checkout": {"status": "confirmed", "total": 12.5, "items_count": 2},
}


class Scripted:
    """How the scripted server behaves; every request it got, in order."""

    def __init__(self, **behaviour) -> None:
        self.session_ids = behaviour.get("session_ids", True)
        self.delete_status = behaviour.get("delete_status", 200)
        self.initialize: Callable[[int], dict] | None = behaviour.get("initialize")  # id -> reply
        # Sessions whose first call is answered 404 (expired): a set of ids, or True for every session.
        self.expire: set[str] | bool = behaviour.get("expire", set())
        self.tool_text: dict[str, object] = behaviour.get("tool_text", {})
        self.sse = behaviour.get("sse", False)
        self.slow: dict[str, float] = behaviour.get("slow", {})  # tool -> seconds before its reply
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        self.sessions = 0
        self.called: set[str] = set()  # sessions that made a call already

    def reply(self, handler: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        session = handler.headers.get("Mcp-Session-Id")
        with self.lock:
            self.requests.append((handler.command, dict(handler.headers), body))
            if handler.command == "DELETE":
                return self.delete_status, {}, b""
            message = json.loads(body)
            if "id" not in message:
                return 202, {}, b""
            if message["method"] == "initialize":
                headers = {}
                if self.session_ids:
                    self.sessions += 1
                    headers["Mcp-Session-Id"] = f"s{self.sessions}"
                if self.initialize:
                    return 200, headers, json.dumps(self.initialize(message["id"])).encode()
                return 200, headers, self.rpc(message["id"], {"protocolVersion": "2024-11-05", "capabilities": {},
                                                             "serverInfo": {"name": "scripted", "version": "1"}})
            if (self.expire is True or session in self.expire) and session not in self.called:
                self.called.add(session)
                return 404, {}, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}'
        if message["method"] == "tools/list":
            return 200, {}, self.rpc(message["id"], {"tools": [{"name": t} for t in sorted(TOOLS)]})
        name = message["params"]["name"]
        time.sleep(self.slow.get(name, 0))
        text = self.tool_text.get(name, json.dumps(PAYLOADS[name]))
        return 200, {}, self.rpc(message["id"], {"content": [{"type": "text", "text": text}], "isError": False})

    def rpc(self, request_id: int, result: dict) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()


@pytest.fixture
def scripted() -> Iterator[Callable[..., tuple[str, Scripted]]]:
    servers: list[ThreadingHTTPServer] = []

    def start(**behaviour) -> tuple[str, Scripted]:
        script = Scripted(**behaviour)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle_one(self) -> None:
                status, headers, body = script.reply(self)
                self.send_response(status)
                if script.sse and body and status == 200:
                    body = b"event: message\ndata: " + body + b"\n\n"
                    headers["Content-Type"] = "text/event-stream"
                else:
                    headers.setdefault("Content-Type", "application/json")
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                try:
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # k6 gave up on the request (the timeout test)

            do_POST = do_DELETE = handle_one

            def log_message(self, *args) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/mcp", script

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_the_2026_revision_sends_self_contained_requests(scripted, tmp_path: Path, generator_name: str) -> None:
    # 2026-07-28: no initialize, no session, no DELETE; the revision and client in params._meta, and the
    # revision, method and tool name in headers.
    url, script = scripted(session_ids=False)
    run = run_load(generator_name, url, ClosedLoad("stateless-2026", 1), TIMING, tmp_path, None)
    assert run.samples["ok"].all(), run.samples[run.samples["ok"] == 0].head()
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": CLIENT_NAME[generator_name], "version": "1"}}
    first = script.requests[:4]
    assert [json.loads(body)["method"] for _, _, body in first] == ["tools/call"] * 3 + ["tools/list"]
    for (method, raw_headers, body), tool in zip(first, ["search_products", "get_user_cart", "checkout", "tools/list"]):
        message = json.loads(body)
        headers = {name.lower(): value for name, value in raw_headers.items()}  # names are case-insensitive
        assert method == "POST" and "mcp-session-id" not in headers
        assert message["params"]["_meta"] == meta
        assert headers["mcp-protocol-version"] == "2026-07-28"
        assert headers["mcp-method"] == message["method"]
        assert headers.get("mcp-name") == (None if tool == "tools/list" else tool)
    assert not any(json.loads(body)["method"] == "initialize" for m, _, body in script.requests if m == "POST")
    assert set(http_counts(run.samples)) == {1}


def test_the_server_sees_the_same_messages_as_before(scripted, tmp_path: Path, generator_name: str) -> None:
    # The script builds bodies from templates; they must be the very bytes JSON.stringify gave.
    url, script = scripted()
    run = run_load(generator_name, url, ClosedLoad("session", 1), TIMING, tmp_path, None)
    assert run.samples["ok"].all(), run.samples[run.samples["ok"] == 0].head()
    user = "user-00001"
    arguments = {
        "search_products": '{"category":"Electronics","min_price":50,"max_price":500,"limit":10}',
        "get_user_cart": f'{{"user_id":"{user}"}}',
        "checkout": f'{{"user_id":"{user}","items":[{{"product_id":42,"quantity":2}},'
                    '{"product_id":1337,"quantity":1}]}',
    }
    expected, rpc_id = [], 0
    for session, tool in enumerate(["search_products", "get_user_cart", "checkout", "tools/list"], start=1):
        rpc_id += 1
        expected.append(("POST", f"{session}", '{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":'
                         '"2024-11-05","capabilities":{},"clientInfo":{"name":"' + CLIENT_NAME[generator_name] + '","version":"1"}},'
                         f'"id":{rpc_id}}}'))
        expected.append(("POST", f"s{session}", '{"jsonrpc":"2.0","method":"notifications/initialized"}'))
        rpc_id += 1
        call = ('{"jsonrpc":"2.0","method":"tools/list","params":{}' if tool == "tools/list" else
                f'{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"{tool}","arguments":{arguments[tool]}}}')
        expected.append(("POST", f"s{session}", f'{call},"id":{rpc_id}}}'))
        expected.append(("DELETE", f"s{session}", ""))
    seen = [(method, headers.get("Mcp-Session-Id", str(i // 4 + 1)), body.decode())
            for i, (method, headers, body) in enumerate(script.requests[:16])]
    assert seen == expected
    for method, headers, _ in script.requests[:16]:
        if method == "POST":
            assert headers["Content-Type"] == "application/json"
            assert headers["Accept"] == "application/json, text/event-stream"
    assert set(http_counts(run.samples)) == {4}


@pytest.mark.parametrize("status, kind", [(500, "http_500"), (404, "http_404"), (405, ""), (204, "")])
def test_a_failed_delete_fails_the_session(scripted, tmp_path: Path, status: int, kind: str, generator_name: str) -> None:
    url, _ = scripted(delete_status=status)
    run = run_load(generator_name, url, ClosedLoad("session", 2), TIMING, tmp_path, None)
    samples = run.samples
    assert len(samples) > 0
    assert set(samples["error_kind"]) == {kind}
    assert set(samples["ok"]) == {0 if kind else 1}
    assert set(http_counts(samples)) == {4}      # the DELETE's duration is there
    assert samples["call_ms"].notna().all()      # the call itself was made and timed


@pytest.mark.parametrize("reply, kind", [
    (lambda i: {"jsonrpc": "2.0", "id": i, "error": {"code": -32603, "message": "no"}}, "jsonrpc_-32603"),
    (lambda i: {"jsonrpc": "2.0", "id": i}, "bad_response"),
    (lambda i: ["not", "a", "reply"], "bad_response"),
])
def test_a_failed_initialize_ends_the_session(scripted, tmp_path: Path, reply, kind: str, generator_name: str) -> None:
    url, script = scripted(initialize=reply)
    run = run_load(generator_name, url, ClosedLoad("session", 2), TIMING, tmp_path, None)
    assert len(run.samples) > 0
    assert set(run.samples["error_kind"]) == {kind} and not run.samples["ok"].any()
    assert set(http_counts(run.samples)) == {1} and run.samples["call_ms"].isna().all()
    assert {json.loads(body)["method"] for method, _, body in script.requests} == {"initialize"}


def test_an_initialize_error_over_sse_is_seen_too(scripted, tmp_path: Path, generator_name: str) -> None:
    url, _ = scripted(sse=True, initialize=lambda i: {"jsonrpc": "2.0", "id": i, "error": {"code": -32000}})
    run = run_load(generator_name, url, ClosedLoad("session", 1), TIMING, tmp_path, None)
    assert set(run.samples["error_kind"]) == {"jsonrpc_-32000"}


def test_sse_replies_pass(scripted, tmp_path: Path, generator_name: str) -> None:
    url, _ = scripted(sse=True)
    run = run_load(generator_name, url, ClosedLoad("stateless", 1), TIMING, tmp_path, None)
    assert run.samples["ok"].all() and set(run.samples["tool"]) == TOOLS | {"tools/list"}


@pytest.mark.parametrize("text", [
    '{"total_found": 2251, "products": [0,1,2,3,4,5,6,7,8,9], "top10_popular_ids": [0,1,2,3,4,5,6,7,8,9],}',
    '{"total_found": 2251, "products": [0,1,2,3,4,5,6,7,8,9], "top10_popular_ids": [0,1,2,3,4,5,6,7,8,9]} x',
    '{"total_found": 2250, "products": [0,1,2,3,4,5,6,7,8,9], "top10_popular_ids": [0,1,2,3,4,5,6,7,8,9]}',
    PAYLOADS["search_products"],  # an object, not the JSON text of one
])
def test_the_tool_payload_is_checked_as_strictly_as_json_parse(scripted, tmp_path: Path, text, generator_name: str) -> None:
    url, _ = scripted(tool_text={"search_products": text})
    run = run_load(generator_name, url, ClosedLoad("stateless", 1), TIMING, tmp_path, None)
    search = run.samples[run.samples["tool"] == "search_products"]
    others = run.samples[run.samples["tool"] != "search_products"]
    assert len(search) > 0 and set(search["error_kind"]) == {"check_failed"}
    assert others["ok"].all()


def test_a_persistent_session_that_expires_is_reopened_once(scripted, tmp_path: Path, generator_name: str) -> None:
    # The first session's first call gets 404 (session expired): the script opens a new session and
    # repeats the call there, so no sample fails.
    url, script = scripted(expire={"s1"})
    run = run_load(generator_name, url, ClosedLoad("persistent", 1), TIMING, tmp_path, None)
    assert len(run.samples) > 0 and run.samples["ok"].all(), run.samples.head()
    sessions = [headers.get("Mcp-Session-Id") for _, headers, body in script.requests
                if json.loads(body).get("method") == "tools/call"]
    assert sessions[0] == "s1" and set(sessions[1:]) == {"s2"}
    initializes = [r for r in script.requests if json.loads(r[2]).get("method") == "initialize"]
    assert len(initializes) == 2


def test_a_persistent_session_expiring_again_is_recorded_after_one_retry(scripted, tmp_path: Path, generator_name: str) -> None:
    url, script = scripted(expire=True)
    run = run_load(generator_name, url, ClosedLoad("persistent", 1), TIMING, tmp_path, None)
    samples = run.samples
    assert len(samples) > 0 and set(samples["error_kind"]) == {"http_404"}
    assert set(http_counts(samples)) == {1} and samples["call_ms"].notna().all()
    initializes = [r for r in script.requests if json.loads(r[2]).get("method") == "initialize"]
    assert len(initializes) == 2 * len(samples)


def test_a_persistent_session_that_cannot_open_is_retried_once_then_recorded(scripted, tmp_path: Path, generator_name: str) -> None:
    url, script = scripted(initialize=lambda i: {"jsonrpc": "2.0", "id": i, "error": {"code": -32603}})
    run = run_load(generator_name, url, ClosedLoad("persistent", 1), TIMING, tmp_path, None)
    samples = run.samples
    assert len(samples) > 0 and set(samples["error_kind"]) == {"jsonrpc_-32603"}
    assert set(http_counts(samples)) == {1}
    initializes = [r for r in script.requests if json.loads(r[2]).get("method") == "initialize"]
    assert len(initializes) == 2 * len(samples)
    assert all(json.loads(r[2]).get("method") == "initialize" for r in script.requests)


def test_a_request_timeout_is_a_timeout(scripted, tmp_path: Path, generator_name: str) -> None:
    # A reply later than the request timeout is error_kind "timeout", recorded at about the timeout.
    url, _ = scripted(slow={"checkout": 1.5})
    timing = Timing(ramp_up_s=0.5, warmup_s=1, duration_s=2, ramp_down_s=0.5, warmup_cap_s=None,
                    request_timeout_s=0.4)
    run = run_load(generator_name, url, ClosedLoad("stateless", 1), timing, tmp_path, None)
    checkout = run.samples[run.samples["tool"] == "checkout"]
    assert len(checkout) > 0 and set(checkout["error_kind"]) == {"timeout"}
    assert checkout["call_ms"].between(380, 1000).all()
    assert run.samples[run.samples["tool"] != "checkout"]["ok"].all()
