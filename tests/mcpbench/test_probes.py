"""The robustness probes' corpus and their judgement of a reply (workload/probes.py); the probes against real
servers: tests/e2e/test_probes_e2e.py."""

from __future__ import annotations

import json

import pytest

from mcpbench.workload import probes
from mcpbench.workload.mcp_client import Reply, parse_message


def reply(status: int, body: str = "", content_type: str = "application/json") -> Reply:
    """A reply as McpClient.post_raw makes it: the JSON-RPC message parsed where the body is JSON."""
    return Reply(status, content_type, None, parse_message(content_type, body) if content_type.endswith("json")
                 and body else None, body)


@pytest.mark.parametrize(("answer", "may_succeed", "expected"), [
    (reply(400, "bad", "text/plain"), False, "pass"),
    (reply(200, '{"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "x"}}'), False, "pass"),
    (reply(200, '{"jsonrpc": "2.0", "id": 1, "result": {"isError": true, "content": []}}'), False, "pass"),
    (reply(500, '{"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}}'), True, "warn"),
    (reply(500, "Internal Server Error", "text/plain"), True, "fail"),
    (reply(200, '{"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}'), True, "pass"),
    (reply(200, '{"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}'), False, "warn"),
    (reply(202), False, "warn"),
    # an error that is not an object (a bare string, as one SDK answered a fuzz case): read, never a crash
    (reply(500, '{"jsonrpc": "2.0", "id": 1, "error": "boom"}'), True, "warn"),
])
def test_a_fuzz_reply_is_judged_refused_answered_or_accepted(answer: Reply, may_succeed: bool, expected: str) -> None:
    status, said = probes.judge(answer, may_succeed)
    assert status == expected and said


def test_the_corpus_is_what_its_names_say() -> None:
    cases = {case.name: case for case in probes.CORPUS}
    assert len(cases) == len(probes.CORPUS)  # names are unique: the report keys its matrix by them
    nested = cases[f"params nested {probes.NESTING:,} deep"].body
    assert nested.count(b"[") == probes.NESTING == nested.count(b"]")
    with pytest.raises(RecursionError):
        json.loads(nested)  # deeper than a default parser goes: the point of the case
    with pytest.raises(UnicodeDecodeError):
        cases["invalid UTF-8 in an argument"].body.decode()
    large = json.loads(cases["a 1 MiB string argument"].body)
    assert len(large["params"]["arguments"]["user_id"]) == probes.LARGE_STRING
    assert json.loads(cases["an empty batch"].body) == []
    assert json.loads(cases["id: 2^70"].body)["id"] == 2**70
    assert "jsonrpc" not in json.loads(cases["jsonrpc missing"].body)
