"""The surface (docs/workload.md §7), off unless DIMENSION_TOOLS=1 turns it on with the dimension tools: the resource
template `product://{id}`, the fixed resource `bench://popular`, the prompt `cart_summary` and the completion of its
`user_id`. Their names, descriptions and bodies, shared by both MCP layers; each registers them its own way
(`mcpbench_fastmcp` and `mcpbench_lowlevel`, in their `surface.py`). The I/O is the worker's Redis pool and API client
(`mcpbench_workload.backend`). A failure is the SDK's protocol error (`MCPError`), which both layers pass through as a
JSON-RPC error."""

from __future__ import annotations

from urllib.parse import quote

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from mcpbench_workload import backend
from mcpbench_workload.backend import _JSON
from mcpbench_workload.dimension_tools import DIMENSION_TOOLS

SURFACE = DIMENSION_TOOLS
JSON_MIME = "application/json"
PRODUCT_TEMPLATE = "product://{id}"
PRODUCT_NAME = "product"
PRODUCT_DESCRIPTION = "A product of the catalog, read from the API service."
POPULAR_URI = "bench://popular"
POPULAR_NAME = "popular"
POPULAR_DESCRIPTION = "The ten most popular products, read from Redis."
CART_SUMMARY = "cart_summary"
CART_SUMMARY_DESCRIPTION = "Summarises a user's cart, read from Redis."
USER_ID = "user_id"
USER_ID_DESCRIPTION = "the user whose cart is summarised"
MAX_COMPLETIONS = 10


async def product(id: str) -> str:  # noqa: A002 (the template's variable)
    """GET /products/<id>: the API's JSON body as it is; an id the API does not know is an error."""
    response = await backend.http.get(f"/products/{quote(id, safe='')}")
    if response.status_code == 404:
        raise MCPError(INVALID_PARAMS, f"Unknown product: {id}")
    response.raise_for_status()
    return response.text


async def popular() -> str:
    """ZREVRANGE bench:popular 0 9, the members as stored."""
    return _JSON.encode({"popular": await backend.redis.zrevrange("bench:popular", 0, 9)})


async def cart_summary(user_id: str) -> str:
    """HGETALL bench:cart:<user_id>: the one user message's text; a user without a cart is an error."""
    cart = await backend.redis.hgetall(f"bench:cart:{user_id}")
    if not cart:
        raise MCPError(INVALID_PARAMS, f"No cart for user {user_id}")
    return f"Summarise the cart of {user_id}: {cart['items']} (total {cart['total']})"


async def complete_user_id(prefix: str) -> list[str]:
    """The first 10 users with a cart whose id starts with the prefix, in byte order (\\x7f sorts above every
    character of an id)."""
    return await backend.redis.zrangebylex("bench:users", f"[{prefix}", f"({prefix}\x7f", start=0, num=MAX_COMPLETIONS)
