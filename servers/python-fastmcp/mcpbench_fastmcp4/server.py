"""The three workload tools (docs/workload.md §3) on FastMCP 4.x: the ASGI app uvicorn's workers import (`app`),
and the same `mcp` server that `python -m mcpbench_fastmcp4 --stdio` runs on FastMCP's stdio transport."""

from __future__ import annotations

import os

# FastMCP reads its settings (FASTMCP_*) when it is imported and sets its own logger to INFO; production keeps it
# at WARNING. setdefault: an operator's FASTMCP_LOG_LEVEL still wins.
os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")

import asyncio  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import time  # noqa: E402
from collections.abc import AsyncIterator  # noqa: E402
from typing import Any  # noqa: E402
from urllib.parse import quote  # noqa: E402

import httpx  # noqa: E402
from fastmcp import FastMCP  # noqa: E402
from fastmcp.exceptions import PromptError, ResourceError, ToolError  # noqa: E402
from fastmcp.prompts import Prompt, PromptArgument  # noqa: E402
from fastmcp.server.lifespan import lifespan  # noqa: E402
from mcp.server.transport_security import RequestBodyLimitMiddleware  # noqa: E402
from mcp_types import CompletionArgument, CompletionContext, PromptReference, ResourceTemplateReference  # noqa: E402
from redis.asyncio import BlockingConnectionPool, Redis  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from typing_extensions import TypedDict  # noqa: E402

from mcpbench_fastmcp4 import dimension_tools  # noqa: E402

SERVER_TYPE = os.environ.get("SERVER_TYPE", "python-fastmcp")
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
API_SERVICE_URL = os.environ.get("API_SERVICE_URL", "http://127.0.0.1:8100")

# Per process (an HTTP worker, or the one stdio process), so the HTTP totals scale with the worker count (one per
# granted core). As in servers/python: a worker runs out of CPU long before it runs out of connections; 32 leaves
# headroom, and the blocking pool makes a burst beyond that wait instead of failing.
REDIS_POOL_SIZE = 32
HTTP_POOL_SIZE = 32

MAX_BODY_BYTES = 1024 * 1024

_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

# Created once per process by backends() below; the tools only run while it is active. Module globals rather than
# ctx.lifespan_context: a tool that takes a Context makes FastMCP build and inject one for every call.
redis: Redis
http: httpx.AsyncClient


@lifespan
async def backends(_server: FastMCP) -> AsyncIterator[dict]:
    """This process's Redis pool and API client. FastMCP enters its lifespan once per process, for both transports
    (http_app's lifespan → the session manager's run(); run_stdio_async), not per stateless request: it is
    reference-counted (fastmcp/server/server.py `_lifespan_proxy`)."""
    global redis, http
    redis = Redis.from_pool(
        BlockingConnectionPool.from_url(REDIS_URL, max_connections=REDIS_POOL_SIZE, timeout=5, decode_responses=True)
    )
    http = httpx.AsyncClient(
        base_url=API_SERVICE_URL,
        limits=httpx.Limits(max_connections=HTTP_POOL_SIZE, max_keepalive_connections=HTTP_POOL_SIZE),
        timeout=httpx.Timeout(10.0),
        # The API service is always reached directly; proxy variables in a CI environment must not apply.
        trust_env=False,
    )
    try:
        yield {"redis": redis}  # for the one tool that takes a Context anyway (dimension_tools.stepped_work)
    finally:
        await http.aclose()
        await redis.aclose()


mcp = FastMCP(
    "mcpbench-python-fastmcp",
    # serverInfo needs a version; an explicit one is never looked up from package metadata.
    version="0.1.0",
    lifespan=backends,
)


class CartItem(TypedDict):
    product_id: int
    quantity: int


DEFAULT_ITEMS: list[CartItem] = [{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}]


# output_schema=None: the workload's result is one JSON text item; no outputSchema advertised and no
# structuredContent sent beside it (as servers/python's structured_output=False).
@mcp.tool(output_schema=None)
async def search_products(
    category: str = "Electronics",
    min_price: float = 50.0,
    max_price: float = 500.0,
    limit: int = 10,
) -> str:
    """Search products by category and price range, ranked against the 10 most popular products."""
    response, top = await asyncio.gather(
        http.get(
            "/products/search",
            params={"category": category, "min_price": min_price, "max_price": max_price, "limit": limit},
        ),
        redis.zrevrange("bench:popular", 0, 9),
    )
    response.raise_for_status()
    found = response.json()
    top_ids = [int(member.removeprefix("product:")) for member in top]
    rank = {product_id: position for position, product_id in enumerate(top_ids, 1)}
    products = [
        {
            "id": p["id"],
            "sku": p["sku"],
            "name": p["name"],
            "price": p["price"],
            "rating": p["rating"],
            "popularity_rank": rank.get(p["id"], 0),
        }
        for p in found["products"]
    ]
    return _JSON.encode(
        {
            "category": found["category"],
            "total_found": found["total_found"],
            "products": products,
            "top10_popular_ids": top_ids,
            "server_type": SERVER_TYPE,
        }
    )


@mcp.tool(output_schema=None)
async def get_user_cart(user_id: str = "user-00042") -> str:
    """Return a user's cart with its first product's details fetched and the 5 most recent orders."""
    cart = await redis.hgetall(f"bench:cart:{user_id}")
    items = json.loads(cart["items"]) if "items" in cart else []
    first_product_id = items[0]["product_id"] if items else 1
    product, history = await asyncio.gather(
        http.get(f"/products/{first_product_id}"),
        redis.lrange(f"bench:history:{user_id}", 0, 4),
    )
    product.raise_for_status()
    return _JSON.encode(
        {
            "user_id": user_id,
            "cart": {
                "items": items,
                "item_count": len(items),
                "estimated_total": float(cart.get("total", 0)),
            },
            "recent_history": [json.loads(entry) for entry in history],
            "server_type": SERVER_TYPE,
        }
    )


@mcp.tool(output_schema=None)
async def checkout(user_id: str = "user-00042", items: list[CartItem] = DEFAULT_ITEMS) -> str:
    """Price an order through the API and record it: rate-limit counter, order history, popularity."""
    if not items:  # docs/workload.md §5: a tool error (isError), before any I/O
        raise ToolError("items must not be empty")
    number = user_id.rpartition("-")[2]  # the integer after the last '-', 0 if it is not one
    ratelimit_key = f"bench:ratelimit:user-{int(number) % 100 if number.isdecimal() else 0:05d}"
    order = _JSON.encode({"user_id": user_id, "items": items, "ts": int(time.time())})
    response, rate_limit_count, *_ = await asyncio.gather(
        http.post("/cart/calculate", json={"user_id": user_id, "items": items}),
        redis.incr(ratelimit_key),
        redis.rpush(f"bench:history:{user_id}", order),
        redis.zincrby("bench:popular", 1, f"product:{items[0]['product_id']}"),
    )
    response.raise_for_status()
    priced = response.json()
    return _JSON.encode(
        {
            "order_id": priced["order_id"],
            "user_id": user_id,
            "total": priced["total"],
            "items_count": priced["items_count"],
            "rate_limit_count": rate_limit_count,
            "status": "confirmed",
            "server_type": SERVER_TYPE,
        }
    )


# Issue 37's extra tools and echo_payload, only when EXTRA_TOOLS / DIMENSION_TOOLS ask (dimension_tools.py).
dimension_tools.register(mcp)


# The surface (docs/workload.md §7): a resource template, a fixed resource, a prompt and the completion of its
# argument, only under DIMENSION_TOOLS=1 too, on the same pools as the tools, through FastMCP's registration API;
# its completion handler alone adds a capability (completions): FastMCP always advertises resources and prompts.
# Failures are FastMCP's ResourceError / PromptError, which it sends as JSON-RPC errors with their message; logged at
# INFO (below the WARNING the server logs at), as the SDK's MCPServer logs a ResourceError: anticipated, not a crash.
async def product(id: str) -> str:  # noqa: A002 (the template's variable)
    """GET /products/<id>: the API's JSON body as it is; an id the API does not know is an error."""
    response = await http.get(f"/products/{quote(id, safe='')}")
    if response.status_code == 404:
        raise ResourceError(f"Unknown product: {id}", log_level=logging.INFO)
    response.raise_for_status()
    return response.text


async def popular() -> str:
    """ZREVRANGE bench:popular 0 9, the members as stored."""
    return _JSON.encode({"popular": await redis.zrevrange("bench:popular", 0, 9)})


class CartSummary(Prompt):
    """A prompt with its argument list as data (`arguments`) and its own `render()`, as dimension_tools.py's tools
    with a schema as data: a function prompt would describe its `user_id` with a JSON-schema note appended, since
    under `from __future__ import annotations` FastMCP sees the annotation `"str"`, not `str`. FastMCP checks no
    arguments for such a prompt, so `render()` checks what it reads."""

    async def render(self, arguments: dict[str, Any] | None = None) -> str:
        """HGETALL bench:cart:<user_id>: the one user message's text; a user without a cart is an error."""
        user_id = (arguments or {}).get("user_id")
        if not isinstance(user_id, str):
            raise PromptError("Missing required argument: user_id", log_level=logging.INFO)
        cart = await redis.hgetall(f"bench:cart:{user_id}")
        if not cart:
            raise PromptError(f"No cart for user {user_id}", log_level=logging.INFO)
        return f"Summarise the cart of {user_id}: {cart['items']} (total {cart['total']})"


async def complete(
    ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument, _context: CompletionContext | None
) -> list[str] | None:
    """cart_summary's user_id: the first 10 users with a cart whose id starts with the value, in byte order (\\x7f
    sorts above every character of an id). Anything else: None, which FastMCP answers as no values."""
    if isinstance(ref, PromptReference) and ref.name == "cart_summary" and argument.name == "user_id":
        prefix = argument.value
        return await redis.zrangebylex("bench:users", f"[{prefix}", f"({prefix}\x7f", start=0, num=10)
    return None


if dimension_tools.DIMENSION_TOOLS:
    mcp.resource(
        "product://{id}",
        name="product",
        description="A product of the catalog, read from the API service.",
        mime_type="application/json",
    )(product)
    mcp.resource(
        "bench://popular",
        name="popular",
        description="The ten most popular products, read from Redis.",
        mime_type="application/json",
    )(popular)
    mcp.add_prompt(
        CartSummary(
            name="cart_summary",
            description="Summarises a user's cart, read from Redis.",
            arguments=[PromptArgument(name="user_id", description="the user whose cart is summarised", required=True)],
        )
    )
    mcp.completion(complete)


def host_origin_protection() -> dict:
    """FastMCP's own DNS-rebinding guard (fastmcp/server/http.py HostOriginGuardMiddleware) for the contract's
    ALLOWED_HOSTS. FastMCP always switches the SDK's TransportSecuritySettings check off in favour of this one.
    True = "strict": every request's Host must match (port ignored), and an Origin, when sent, must match
    allowed_origins or be the request's own origin (or loopback with a loopback Host). `*` switches it off, which
    only the suite's measurement of what the check costs does."""
    listed = os.environ.get("ALLOWED_HOSTS") or "localhost,127.0.0.1,[::1]"
    hosts = [h.strip() for h in listed.split(",") if h.strip()]
    if hosts == ["*"]:
        return {"host_origin_protection": False}
    # Origins are fnmatch patterns: "[" would open a character class, so an IPv6 literal's bracket is escaped.
    origin_hosts = [h.replace("[", "[[]") for h in hosts]
    return {
        "host_origin_protection": True,
        "allowed_hosts": hosts,
        "allowed_origins": [f"{scheme}://{h}:*" for h in origin_hosts for scheme in ("http", "https")],
    }


# FastMCP's own Starlette app: POST/DELETE /mcp, stateless (no session id; DELETE answers 405), JSON replies — SSE
# under the contract's SSE_REPLIES=1, since a JSON reply has no room for the progress notifications a call sends
# (stream_progress). Its lifespan runs the SDK's session manager and, through it, backends() above. FastMCP does not
# pass a body limit to the SDK's session manager (whose default is 4 MiB), so the SDK's own limit middleware is added
# at 1 MiB.
app = mcp.http_app(
    path="/mcp",
    stateless_http=os.environ.get("SESSIONS") != "1",  # the contract's SESSIONS=1: sessions kept (abandoned dimension)
    json_response=os.environ.get("SSE_REPLIES") != "1",
    middleware=[Middleware(RequestBodyLimitMiddleware, max_body_size=MAX_BODY_BYTES)],
    **host_origin_protection(),
)
