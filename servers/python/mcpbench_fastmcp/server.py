"""The three workload tools (docs/workload.md §3) on MCPServer (mcp 2.x's FastMCP): the ASGI app uvicorn's
workers import, and the same server on the SDK's stdio transport (`serve_stdio`)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from redis.asyncio import BlockingConnectionPool, Redis
from starlette.applications import Starlette
from typing_extensions import TypedDict

SERVER_TYPE = os.environ.get("SERVER_TYPE", "python")
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
API_SERVICE_URL = os.environ.get("API_SERVICE_URL", "http://127.0.0.1:8100")

# Per process (an HTTP worker, or the one stdio process), so the HTTP totals scale with the worker count (one per
# granted core). A worker runs out of CPU long before it runs out of connections: with 50 VUs on one worker, ~20
# Redis and ~10 API connections were ever open. 32 leaves headroom; the blocking pool makes a burst beyond that wait
# instead of failing.
REDIS_POOL_SIZE = 32
HTTP_POOL_SIZE = 32

MAX_BODY_BYTES = 1024 * 1024

_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

mcp = MCPServer(
    "mcpbench-python",
    # An explicit version: serverInfo needs one, and it is set once here rather than looked up per request (mcp 1.x
    # read the installed distribution's metadata for every stateless request when none was given: ~15% of a
    # worker's CPU in a profile).
    version="0.1.0",
    # The low-level server logs every request at INFO ("Processing request of type ..."): keep that off.
    log_level="WARNING",
)

# Created once per process by backends() below; the tools only run while it is active.
redis: Redis
http: httpx.AsyncClient


class CartItem(TypedDict):
    product_id: int
    quantity: int


DEFAULT_ITEMS: list[CartItem] = [{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}]


# structured_output=False: the workload's result is one JSON text item; MCPServer would otherwise wrap the str
# in {"result": ...} structuredContent and advertise an outputSchema.
@mcp.tool(structured_output=False)
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


@mcp.tool(structured_output=False)
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


@mcp.tool(structured_output=False)
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


@asynccontextmanager
async def backends() -> AsyncIterator[None]:
    """This process's Redis pool and API client, for both transports."""
    global redis, http
    redis = Redis.from_pool(
        BlockingConnectionPool.from_url(
            REDIS_URL, max_connections=REDIS_POOL_SIZE, timeout=5, decode_responses=True
        )
    )
    http = httpx.AsyncClient(
        base_url=API_SERVICE_URL,
        limits=httpx.Limits(max_connections=HTTP_POOL_SIZE, max_keepalive_connections=HTTP_POOL_SIZE),
        timeout=httpx.Timeout(10.0),
        # The API service is always reached directly; proxy variables in a CI environment must not apply.
        trust_env=False,
    )
    try:
        yield
    finally:
        await http.aclose()
        await redis.aclose()


@asynccontextmanager
async def lifespan(_app: Starlette) -> AsyncIterator[None]:
    async with backends(), mcp.session_manager.run():
        yield


async def serve_stdio() -> None:
    """One process on the SDK's stdio transport (newline-delimited JSON-RPC on stdin/stdout) until stdin closes.

    Requests run concurrently: the SDK's dispatcher spawns every request but `initialize` as its own task in the
    connection's task group and goes on reading (mcp 2.3.0 mcp/shared/jsonrpc_dispatcher.py:609-623), so many
    tools/call are in flight at once on the one event loop. At EOF it cancels whatever is still running (:531-534).
    Both protocol eras are served, as over HTTP (mcp/server/runner.py:602 serve_dual_era_loop). While it serves,
    stdio_server() points fd 1 at stderr, so nothing but JSON-RPC reaches stdout.
    """
    async with backends():
        await mcp.run_stdio_async()


def transport_security() -> TransportSecuritySettings:
    """The SDK's DNS-rebinding protection for the contract's ALLOWED_HOSTS: Host must name one of them (with or
    without a port), and a browser's Origin, when sent, too. `*` switches it off, which only the suite's
    measurement of what the check costs does. The SDK's own default allows loopback names only when it binds
    the host itself; here uvicorn binds, so the list is given explicitly."""
    hosts = [h.strip() for h in (os.environ.get("ALLOWED_HOSTS") or "localhost,127.0.0.1,[::1]").split(",") if h.strip()]
    if hosts == ["*"]:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[pattern for h in hosts for pattern in (h, f"{h}:*")],
        allowed_origins=[f"{scheme}://{h}{port}" for h in hosts for scheme in ("http", "https") for port in ("", ":*")],
    )


# MCPServer's own app runs only the session manager in its lifespan; reuse its routes (POST/GET/DELETE /mcp)
# under a lifespan that also owns this worker's Redis pool and HTTP client. mcp 2.x takes the transport options
# here rather than in the constructor.
app = Starlette(
    routes=mcp.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(),
        max_request_body_size=MAX_BODY_BYTES,
        host="0.0.0.0",
    ).routes,
    lifespan=lifespan,
)
