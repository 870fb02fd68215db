from mcpbench.workload.mcp_client import parse_message


def test_a_json_reply_is_parsed() -> None:
    assert parse_message("application/json", '{"jsonrpc":"2.0","id":1,"result":{"x":1}}')["result"] == {"x": 1}


def test_an_sse_framed_reply_gives_its_response_message_not_its_notifications() -> None:
    body = (
        "event: message\n"
        'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n'
        "event: message\n"
        'data: {"jsonrpc":"2.0","id":7,"result":{"tools":[]}}\n\n'
    )
    assert parse_message("text/event-stream; charset=utf-8", body) == {"jsonrpc": "2.0", "id": 7, "result": {"tools": []}}


def test_an_empty_body_has_no_message() -> None:
    assert parse_message("application/json", "  ") is None


def test_a_priming_event_without_data_is_skipped():
    # MCP 2025-11-25: a server primes a stream with an event id and empty data, which SSE never dispatches
    body = 'id: 0\ndata:\n\nid: 1\nevent: message\ndata: {"jsonrpc":"2.0","id":2,"result":{}}\n\n'
    assert parse_message("text/event-stream", body) == {"jsonrpc": "2.0", "id": 2, "result": {}}
