"""Workload files (docs/workload-file.md): the lineup's own is one, compiled to exactly what the load
driver's tests hold; a mistake in one is a single line naming the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbench.workload.file import Workload, WorkloadError, lineup
from mcpbench.workload.tools import TOOL_NAMES

ROOT = Path(__file__).resolve().parents[2]


def test_the_lineup_workload_is_the_drivers_testdata() -> None:
    # The Go tests check load.js's bytes and verdicts on this file: the compilation must be it exactly.
    assert lineup().driver_json() + "\n" == (ROOT / "benchmark/load-driver/testdata/lineup.json").read_text()
    assert lineup().tool_names == TOOL_NAMES
    assert lineup().names == (*TOOL_NAMES, "tools/list")


def test_the_documented_example_reads(tmp_path: Path) -> None:
    example = ROOT / "benchmark/third-party/server-everything/workload.toml"
    workload = Workload.read(example)
    assert workload.tool_names and workload.driver_json().startswith('{"calls":[')


@pytest.mark.parametrize(("text", "said"), [
    ('[[call]]\ntool = "echo"\nweigth = 2\n', "mine.toml:3: call.0.weigth: Extra inputs are not permitted"),
    ('[[call]]\ntool = "echo"\n\n[[call]]\ntool = "add"\nweight = 0\n',
     "mine.toml:6: call.1.weight: Input should be greater than or equal to 1"),
    ('[[call]]\ntool = "echo"\n[[call.check]]\npointer = "/a"\n[[call.check]]\npointer = "b"\n',
     "mine.toml:6: call.0.check.1.pointer: 'b' is no JSON pointer"),
    ('[[call]]\ntool = "echo"\narguments = { m = "{vu%0}" }\n', "mine.toml:1: call.0: {vu%0}: a placeholder is"),
    ('[[call]]\narguments = { m = 1 }\n', "mine.toml:1: call.0: a call names its `tool`"),
    ('[[call]]\nmethod = "tools/list"\n', "mine.toml: no tool call and no method call with `arrival = true`"),
    ('[[call]]\nmethod = "resources/raed"\narrival = true\n', "mine.toml:2: call.0.method: Input should be"),
    ('[[call]]\nmethod = "resources/read"\narrival = true\nparams = { url = "product://1" }\n',
     "mine.toml:4: call.0.params: resources/read needs params.uri, a string"),
    ('[[call]]\nmethod = "completion/complete"\narrival = true\nparams = { ref = "cart" }\n',
     "mine.toml:4: call.0.params: completion/complete needs params.ref, a table"),
    ('[[call]]\ntool = "echo"\nparams = { a = 1 }\n', "mine.toml:3: call.0.params: a tool call's are `tool`"),
    ('[[call]]\ntool = "echo"\narrival = true\n', "mine.toml:1: call.0: a tool call is always an arrival"),
    ('[[call]]\nmethod = "prompts/get"\narrival = true\narguments = { name = "cart" }\n',
     "mine.toml:1: call.0: prompts/get takes no tool and no arguments (its are `params`)"),
    ('[[call]]\nmethod = "prompts/list"\narrival = true\nparams = { cursor = "x" }\n',
     "mine.toml:4: call.0.params: _meta and cursor are the load driver's"),
    ('[[call]]\ntool = "echo"\n[[call]]\ntool = "echo"\n', "two calls are called 'echo'"),
    ('[[call]]\ntool = "echo"\nsession = "persistent"\n', "mine.toml:3: call.0.session: Extra inputs"),
    ('session = "sessions"\n[[call]]\ntool = "echo"\n', "mine.toml:1: session: Input should be"),
    ('setup = ""\n[[call]]\ntool = "echo"\n', "mine.toml:1: setup: String should have at least 1 character"),
    ('[[call]]\ntool = "echo"\nwork_list = "w"\n', "mine.toml:1: call.0: a work_list is read for a cancelled call only"),
    ('[[call]]\nmethod = "tools/list"\ncancel_after_ms = 10\n[[call]]\ntool = "e"\n',
     "mine.toml:1: call.0: tools/list is paged: a cancelled call is a single request"),
    ('[[call]]\ntool = "echo"\ncancel_after_ms = -1\n', "mine.toml:3: call.0.cancel_after_ms: Input should be greater"),
    ('[[call]]\ntool = "echo"\ncancel_after_ms = 10\nwork_list = "w{vu:5}"\n[[call]]\ntool = "e"\n',
     "mine.toml:1: call.0: {vu:5}: a placeholder is"),
    ('[[call]\ntool = "echo"\n', "mine.toml: not TOML: "),
    ('', "mine.toml:"),
])
def test_a_broken_workload_file_is_one_line(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    with pytest.raises(WorkloadError) as caught:
        Workload.read(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(tmp_path)), message
    assert said in message, message


def test_numbers_are_written_as_javascript_writes_them(tmp_path: Path) -> None:
    path = tmp_path / "w.toml"
    path.write_text('[[call]]\ntool = "t"\narguments = { a = 50.0, b = 0.5, c = "é" }\n')
    assert Workload.read(path).calls[0].params_text() == '"name":"t","arguments":{"a":50,"b":0.5,"c":"é"}'


def test_a_method_call_has_params_checks_and_is_counted_when_an_arrival(tmp_path: Path) -> None:
    path = tmp_path / "w.toml"
    path.write_text('[[call]]\nmethod = "resources/read"\nname = "product"\narrival = true\n'
                    'params = { uri = "product://{vu%3}" }\n[[call.check]]\npointer = "/id"\nequals = 2\n'
                    '[[call]]\nmethod = "prompts/get"\nparams = { name = "cart", arguments = { user = "u{vu}" } }\n')
    workload = Workload.read(path)
    read, prompt = workload.calls
    assert read.params_text() == '"uri":"product://{vu%3}"' and read.mcp_name == "product://{vu%3}"
    assert prompt.mcp_name == "cart" and prompt.rendered_params(vu=4) == {"name": "cart", "arguments": {"user": "u4"}}
    assert [(n, k.method, k.counted) for n, k in workload.kinds().items()] == [
        ("product", "resources/read", True), ("prompts/get", "prompts/get", False)]
    assert workload.tool_calls_per_iteration == 1
    # resources/read's checks read the first contents' text as JSON, as a tool's read its first text content.
    assert read.problem({"contents": [{"uri": "product://2", "text": '{"id": 2}'}]}) is None
    assert read.problem({"contents": [{"uri": "product://2", "text": '{"id": 3}'}]}) == "/id is 3, expected 2"
    assert read.problem({"contents": [{"uri": "product://2", "blob": "AA=="}]}) == "no text in the first contents"
    assert prompt.problem({"messages": []}) is None
    compiled = workload.driver_json()
    assert '"mcp_name":"product://{vu%3}","arrival":true' in compiled and '"mcp_name":"cart"' in compiled


def test_a_cancelled_call_is_never_counted_and_names_its_work_list(tmp_path: Path) -> None:
    path = tmp_path / "w.toml"
    path.write_text('[[call]]\ntool = "stepped_work"\nname = "gave-up"\ncancel_after_ms = 225\n'
                    'work_list = "bench:steps:c-{vu}-{iteration}"\narguments = { key = "c-{vu}-{iteration}" }\n'
                    '[[call]]\ntool = "get_user_cart"\n')
    workload = Workload.read(path)
    assert [(n, k.counted) for n, k in workload.kinds().items()] == [("gave-up", False), ("get_user_cart", True)]
    assert workload.reads_work and workload.tool_calls_per_iteration == 1
    assert '"cancel_after_ms":225,"work_list":"bench:steps:c-{vu}-{iteration}"' in workload.driver_json()
    assert "work_redis" not in workload.driver_json()
    # the Redis the lists are read from is the bench's, given when it is known; the headers keep it
    read = workload.reading_work_from("redis://127.0.0.1:6390/0").with_headers({"X-Tenant": "a"})
    assert '"work_redis":"redis://127.0.0.1:6390/0"' in read.driver_json() and read.headers == {"X-Tenant": "a"}
