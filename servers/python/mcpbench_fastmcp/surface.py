"""The surface on MCPServer (docs/workload.md §7: a resource template, a fixed resource, a prompt and a completion);
off unless DIMENSION_TOOLS=1 (`mcpbench_workload.surface`, which holds their names and bodies). MCPServer's own
decorators register them: `resource()` (a URI with a variable is a template, whose function gets it as an argument),
`prompt()` (the argument list derived from the signature, as a tool's schema) and `completion()` (which alone adds
the completions capability: MCPServer always advertises resources and prompts, empty without this)."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import Completion, CompletionArgument, CompletionContext, PromptReference, ResourceTemplateReference
from pydantic import Field

from mcpbench_workload import surface


async def cart_summary(user_id: Annotated[str, Field(description=surface.USER_ID_DESCRIPTION)]) -> str:
    return await surface.cart_summary(user_id)  # a str is one user message with that text


async def complete(
    ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument, _context: CompletionContext | None
) -> Completion | None:
    if isinstance(ref, PromptReference) and ref.name == surface.CART_SUMMARY and argument.name == surface.USER_ID:
        return Completion(values=await surface.complete_user_id(argument.value))
    return None  # nothing to complete: MCPServer answers an empty list


def register(mcp: MCPServer[Any]) -> None:
    if not surface.SURFACE:
        return
    mcp.resource(
        surface.PRODUCT_TEMPLATE,
        name=surface.PRODUCT_NAME,
        description=surface.PRODUCT_DESCRIPTION,
        mime_type=surface.JSON_MIME,
    )(surface.product)
    mcp.resource(
        surface.POPULAR_URI,
        name=surface.POPULAR_NAME,
        description=surface.POPULAR_DESCRIPTION,
        mime_type=surface.JSON_MIME,
    )(surface.popular)
    mcp.prompt(name=surface.CART_SUMMARY, description=surface.CART_SUMMARY_DESCRIPTION)(cart_summary)
    mcp.completion()(complete)
