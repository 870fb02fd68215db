"""The surface on the low-level Server (docs/workload.md §7: a resource template, a fixed resource, a prompt and a
completion); off unless DIMENSION_TOOLS=1 (`mcpbench_workload.surface`, which holds their names and bodies). As the
tools: the listings written as data, one request handler per method, given to `Server(...)` only when on (`HANDLERS`),
so the SDK advertises the resources, prompts and completions capabilities then and none of them otherwise."""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate
from mcp_types import (
    INVALID_PARAMS,
    CompleteRequestParams,
    CompleteResult,
    Completion,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    Prompt,
    PromptArgument,
    PromptMessage,
    PromptReference,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    TextContent,
    TextResourceContents,
)

from mcpbench_workload import surface

PRODUCT = UriTemplate.parse(surface.PRODUCT_TEMPLATE)

LIST_RESOURCES = ListResourcesResult(
    resources=[
        Resource(
            uri=surface.POPULAR_URI,
            name=surface.POPULAR_NAME,
            description=surface.POPULAR_DESCRIPTION,
            mime_type=surface.JSON_MIME,
        )
    ]
)
LIST_TEMPLATES = ListResourceTemplatesResult(
    resource_templates=[
        ResourceTemplate(
            uri_template=surface.PRODUCT_TEMPLATE,
            name=surface.PRODUCT_NAME,
            description=surface.PRODUCT_DESCRIPTION,
            mime_type=surface.JSON_MIME,
        )
    ]
)
LIST_PROMPTS = ListPromptsResult(
    prompts=[
        Prompt(
            name=surface.CART_SUMMARY,
            description=surface.CART_SUMMARY_DESCRIPTION,
            arguments=[PromptArgument(name=surface.USER_ID, description=surface.USER_ID_DESCRIPTION, required=True)],
        )
    ]
)


async def list_resources(
    _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
) -> ListResourcesResult:
    return LIST_RESOURCES


async def list_resource_templates(
    _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
) -> ListResourceTemplatesResult:
    return LIST_TEMPLATES


async def read_resource(_ctx: ServerRequestContext[Any], params: ReadResourceRequestParams) -> ReadResourceResult:
    """The fixed resource by its URI, the template by the SDK's RFC 6570 matcher (which keeps a `/` or `?` out of the
    id); any other URI is unknown, as MCPServer answers it (-32602)."""
    if params.uri == surface.POPULAR_URI:
        text = await surface.popular()
    elif (match := PRODUCT.match(params.uri)) is not None:
        text = await surface.product(str(match["id"]))
    else:
        raise MCPError(INVALID_PARAMS, f"Unknown resource: {params.uri}")
    return ReadResourceResult(contents=[TextResourceContents(uri=params.uri, mime_type=surface.JSON_MIME, text=text)])


async def list_prompts(_ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None) -> ListPromptsResult:
    return LIST_PROMPTS


async def get_prompt(_ctx: ServerRequestContext[Any], params: GetPromptRequestParams) -> GetPromptResult:
    if params.name != surface.CART_SUMMARY:
        raise MCPError(INVALID_PARAMS, f"Unknown prompt: {params.name}")
    user_id = (params.arguments or {}).get(surface.USER_ID)
    if user_id is None:
        raise MCPError(INVALID_PARAMS, f"Missing required arguments: {{'{surface.USER_ID}'}}")
    text = await surface.cart_summary(user_id)
    return GetPromptResult(
        description=surface.CART_SUMMARY_DESCRIPTION,
        messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))],
    )


async def complete(_ctx: ServerRequestContext[Any], params: CompleteRequestParams) -> CompleteResult:
    ref, argument = params.ref, params.argument
    if isinstance(ref, PromptReference) and ref.name == surface.CART_SUMMARY and argument.name == surface.USER_ID:
        values = await surface.complete_user_id(argument.value)
    else:
        values = []  # nothing to complete, as MCPServer answers it
    return CompleteResult(completion=Completion(values=values))


# The Server's keyword arguments for the surface's handlers: none unless it is on.
HANDLERS: dict[str, Any] = (
    {
        "on_list_resources": list_resources,
        "on_list_resource_templates": list_resource_templates,
        "on_read_resource": read_resource,
        "on_list_prompts": list_prompts,
        "on_get_prompt": get_prompt,
        "on_completion": complete,
    }
    if surface.SURFACE
    else {}
)
