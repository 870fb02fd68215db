"""The three workload tools' bodies (docs/workload.md §3) and the per-process Redis pool and API client they use.

Plain async functions of the tools' arguments that return the result's JSON text: MCPServer registers these very
functions as its tools (`mcpbench_fastmcp.server`: its decorator reads their signatures and docstrings), and the
low-level Server's call handler (`mcpbench_lowlevel.server`) calls them after checking the arguments itself. So both
MCP layers do exactly the same I/O and return the same bytes.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from mcp.server.mcpserver.exceptions import ToolError
from redis.asyncio import BlockingConnectionPool, Redis
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

_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

# Created once per process by backends() below; the tools only run while it is active.
redis: Redis
http: httpx.AsyncClient


class CartItem(TypedDict):
    product_id: int
    quantity: int


DEFAULT_ITEMS: list[CartItem] = [{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}]


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
