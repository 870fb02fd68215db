"""The three workload tools (docs/workload.md §3) on the official MCP Python SDK's low-level `Server` (mcp 2.3.0
`mcp.server.lowlevel`), without the MCPServer layer: two request handlers (`tools/list`, `tools/call`), input schemas
written by hand, arguments checked by hand. The tools' bodies, the pools, the ASGI app (transport security, body
limit, stateless JSON replies) and the launch are the python server's own (`mcpbench_workload`), so what differs
from `mcpbench_fastmcp` is only what MCPServer adds on top of this Server: pydantic schemas and argument models, its
Context per call, its result conversion, its resource/prompt/subscription handlers and request-state middleware.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp_types import CallToolRequestParams, CallToolResult, ListToolsResult, PaginatedRequestParams, TextContent, Tool

from mcpbench_lowlevel import dimension_tools, surface
from mcpbench_workload import backend
from mcpbench_workload.app import asgi_app

logger = logging.getLogger(__name__)

# As MCPServer(log_level="WARNING") configures it (mcp/server/mcpserver/utilities/logging.py, without rich): the
# SDK's INFO lines off, its warnings (a refused Host or Origin) and errors on stderr.
logging.basicConfig(level=logging.WARNING, format="%(message)s")

# The input schemas, written out: exactly what MCPServer derives with pydantic from the same functions' signatures
# (key for key, in pydantic's order; tests/servers/test_python_lowlevel.py compares them with MCPServer's).
INPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "search_products": {
        "properties": {
            "category": {"default": "Electronics", "title": "Category", "type": "string"},
            "min_price": {"default": 50.0, "title": "Min Price", "type": "number"},
            "max_price": {"default": 500.0, "title": "Max Price", "type": "number"},
            "limit": {"default": 10, "title": "Limit", "type": "integer"},
        },
        "title": "search_productsArguments",
        "type": "object",
    },
    "get_user_cart": {
        "properties": {
            "user_id": {"default": "user-00042", "title": "User Id", "type": "string"},
        },
        "title": "get_user_cartArguments",
        "type": "object",
    },
    "checkout": {
        "$defs": {
            "CartItem": {
                "properties": {
                    "product_id": {"title": "Product Id", "type": "integer"},
                    "quantity": {"title": "Quantity", "type": "integer"},
                },
                "required": ["product_id", "quantity"],
                "title": "CartItem",
                "type": "object",
            },
        },
        "properties": {
            "user_id": {"default": "user-00042", "title": "User Id", "type": "string"},
            "items": {
                "default": [{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}],
                "items": {"$ref": "#/$defs/CartItem"},
                "title": "Items",
                "type": "array",
            },
        },
        "title": "checkoutArguments",
        "type": "object",
    },
}


class _Invalid(Exception):
    """An argument that does not match its schema; the message says what it must be."""


# Each argument is checked against its schema's JSON type and converted as MCPServer's pydantic model converts an
# accepted value (an integer given for a number becomes a float, 10.0 for an integer becomes 10), so the tools get
# the same values. Unlike pydantic's lax mode, nothing off the schema is coerced (no "10" for 10, no true for 1).
def _string(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise _Invalid("a string")


def _number(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise _Invalid("a number")


def _integer(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise _Invalid("an integer")


def _cart_items(value: Any) -> list[backend.CartItem]:
    # A new dict per item with its two fields only, as pydantic validates the CartItem TypedDict.
    if isinstance(value, list) and all(isinstance(i, dict) and "product_id" in i and "quantity" in i for i in value):
        try:
            return [{"product_id": _integer(i["product_id"]), "quantity": _integer(i["quantity"])} for i in value]
        except _Invalid:
            pass
    raise _Invalid("an array of {product_id: integer, quantity: integer} objects")


ToolBody = Callable[..., Awaitable[str]]

# name -> (the shared body, its arguments' checks). An argument not given keeps the body's default (the schema's
# `default`); one the schema does not name is ignored, as MCPServer ignores it.
TOOLS: dict[str, tuple[ToolBody, dict[str, Callable[[Any], Any]]]] = {
    "search_products": (
        backend.search_products,
        {"category": _string, "min_price": _number, "max_price": _number, "limit": _integer},
    ),
    "get_user_cart": (backend.get_user_cart, {"user_id": _string}),
    "checkout": (backend.checkout, {"user_id": _string, "items": _cart_items}),
}

# Built once: the handler returns the same result (the SDK serialises it into a new dict per reply).
LIST_TOOLS = ListToolsResult(
    tools=[
        Tool(name=name, description=body.__doc__, input_schema=INPUT_SCHEMAS[name])
        for name, (body, _checks) in TOOLS.items()
    ]
    + [
        Tool(name=name, description=description, input_schema=schema)
        for name, (description, schema, _body, _reads) in dimension_tools.TOOLS.items()
    ]
)

# Issue 37's dimension tools, only when EXTRA_TOOLS / DIMENSION_TOOLS ask (dimension_tools.py): called and checked
# as the workload tools.
_CHECKS = {"string": _string, "integer": _integer}
for _name, (_description, _schema, _body, _reads) in dimension_tools.TOOLS.items():
    INPUT_SCHEMAS[_name] = _schema
    TOOLS[_name] = (_body, {key: _CHECKS[kind] for key, kind in _reads.items()})


def _tool_error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


async def list_tools(_ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None) -> ListToolsResult:
    return LIST_TOOLS


async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
    """Errors are tool results with isError and MCPServer's texts: an unknown tool, arguments off the schema, the
    tool's own ToolError (checkout's empty items), and a crash (its text stays in the server's log)."""
    name = params.name
    tool = TOOLS.get(name)
    if tool is None:
        return _tool_error(f"Unknown tool: {name}")
    body, checks = tool
    given = params.arguments or {}
    for key in INPUT_SCHEMAS[name].get("required", ()):
        if key not in given:
            return _tool_error(f"Error executing tool {name}: {key} is required")
    arguments = {}
    for key, check in checks.items():
        if key in given:
            try:
                arguments[key] = check(given[key])
            except _Invalid as exc:
                return _tool_error(f"Error executing tool {name}: {key} must be {exc}")
    if name in dimension_tools.WITH_CONTEXT:
        arguments["ctx"] = ctx
    try:
        text = await body(**arguments)
    except ToolError as exc:
        return _tool_error(f"Error executing tool {name}: {exc}")
    except Exception:
        logger.exception("Tool %r raised an unexpected exception", name)
        return _tool_error(f"Error executing tool {name}")
    return CallToolResult(content=[TextContent(type="text", text=text)])


server = Server(
    "mcpbench-python-lowlevel",
    version="0.1.0",  # serverInfo needs one (as MCPServer's)
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    # The 2026-07-28 era checks a tools/call's Mcp-Param-* headers against the tool's input schema; without this
    # lookup the SDK would run the tools/list handler on every call to find it (MCPServer passes its own lookup).
    get_tool_input_schema=INPUT_SCHEMAS.get,
    # The surface's resources, prompt and completion, only under DIMENSION_TOOLS=1 (surface.py).
    **surface.HANDLERS,
)


async def serve_stdio() -> None:
    """One process on the SDK's stdio transport until stdin closes: `stdio_server()` + `Server.run` (both protocol
    eras, concurrent requests), inside the same `backends()` as an HTTP worker's lifespan. What MCPServer's
    `run_stdio_async()` does, written out (mcpbench_fastmcp.server.serve_stdio has the details)."""
    async with backend.backends(), stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


app = asgi_app(server)
