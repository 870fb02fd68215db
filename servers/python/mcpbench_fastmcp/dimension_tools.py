"""The dimension tools on MCPServer, for issue 37 (tools/list at scale, payload size, streamed progress,
cancellation); off unless the contract's EXTRA_TOOLS / DIMENSION_TOOLS turn them on
(`mcpbench_workload.dimension_tools`). Registered with `add_tool`, as the workload tools: MCPServer takes no schema as
data, it derives each input schema (pydantic) from the function's annotated signature, so the contract's schema is
written as annotations."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field, WithJsonSchema
from typing_extensions import TypedDict

from mcpbench_workload import dimension_tools as dims


class Filters(TypedDict, total=False):
    category: str
    min_price: float
    in_stock: bool


# Given as data: pydantic would put the TypedDict in $defs behind a $ref, the contract has the object inline.
FILTERS_SCHEMA = {
    "type": "object",
    "description": "optional filters",
    "properties": {"category": {"type": "string"}, "min_price": {"type": "number"}, "in_stock": {"type": "boolean"}},
}


Sort = Literal["relevance", "price", "rating", "newest"]


def _extra(name: str) -> Any:
    async def extra_tool(
        query: Annotated[str, Field(description="free-text search query")],
        limit: Annotated[int, Field(ge=1, le=100, description="how many records to return")] = 10,
        sort: Annotated[Sort, Field(description="sort order")] = "relevance",
        filters: Annotated[Filters | None, WithJsonSchema(FILTERS_SCHEMA)] = None,
    ) -> str:
        return await dims.extra_tool(name, query)

    return extra_tool


async def echo_payload(size: Annotated[int, Field(ge=0, le=dims.MAX_PAYLOAD)], data: str = "") -> str:
    return await dims.echo_payload(size, data)


async def stream_progress(count: Annotated[int, Field(ge=0, le=dims.MAX_PROGRESS)], ctx: Context) -> str:
    # MCPServer injects the Context (a parameter annotated with it; not in the input schema). ctx.report_progress
    # sends notifications/progress against the call's token, related to this request, so the SDK writes it on the
    # call's own SSE reply (SSE_REPLIES=1, mcpbench_workload/app.py); without a token it would send nothing.
    has_token = (ctx.request_context.meta or {}).get("progress_token") is not None
    return await dims.stream_progress(count, ctx.report_progress if has_token else None)


async def stepped_work(
    key: Annotated[
        str,
        Field(
            min_length=1,
            max_length=dims.MAX_KEY,
            description="names the Redis list bench:steps:<key> the steps are appended to",
        ),
    ],
    steps: Annotated[int, Field(ge=1, le=dims.MAX_STEPS, description="how many steps to do")],
    interval_ms: Annotated[int, Field(ge=0, le=dims.MAX_INTERVAL_MS, description="milliseconds between steps")],
    ctx: Context,
) -> str:
    # Progress as stream_progress's. A cancelled call (notifications/cancelled, or the stream closed) is the SDK's:
    # it cancels the call's scope, so the body's next await raises CancelledError (dims.stepped_work).
    has_token = (ctx.request_context.meta or {}).get("progress_token") is not None
    return await dims.stepped_work(key, steps, interval_ms, ctx.report_progress if has_token else None)


def register(mcp: MCPServer[Any]) -> None:
    for name, description in dims.EXTRA.items():
        mcp.add_tool(_extra(name), name=name, description=description, structured_output=False)
    if dims.DIMENSION_TOOLS:
        mcp.add_tool(echo_payload, name=dims.ECHO_PAYLOAD, description=dims.ECHO_DESCRIPTION, structured_output=False)
        mcp.add_tool(
            stream_progress, name=dims.STREAM_PROGRESS, description=dims.PROGRESS_DESCRIPTION, structured_output=False
        )
        mcp.add_tool(
            stepped_work, name=dims.STEPPED_WORK, description=dims.STEPPED_DESCRIPTION, structured_output=False
        )
