"""The three workload tools: their default arguments and the spec's checks (docs/workload.md §3).

The load phase makes the same checks from the lineup's workload file (workload/lineup.toml, which the load
driver is given) and k6/load.js; tests keep them in step.
"""

from __future__ import annotations

from collections.abc import Callable

from mcpbench.workload.mcp_client import JsonRpc

TOOL_NAMES = ("search_products", "get_user_cart", "checkout")
VERIFY_USER = "user-00042"

DEFAULT_ARGUMENTS: dict[str, JsonRpc] = {
    "search_products": {"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10},
    "get_user_cart": {"user_id": VERIFY_USER},
    "checkout": {"user_id": VERIFY_USER,
                 "items": [{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}]},
}


def _check_search(data: JsonRpc) -> list[str]:
    problems = []
    if data.get("total_found") != 2251:
        problems.append(f"total_found is {data.get('total_found')!r}, expected 2251")
    products = data.get("products") or []
    if len(products) != 10:
        problems.append(f"{len(products)} products, expected 10")
    elif any(set(p) < {"id", "sku", "name", "price", "rating", "popularity_rank"} for p in products):
        problems.append("a product lacks one of id, sku, name, price, rating, popularity_rank")
    elif [p["price"] for p in products] != sorted(p["price"] for p in products):
        problems.append("products are not sorted by price")
    if len(data.get("top10_popular_ids") or []) != 10:
        problems.append(f"{len(data.get('top10_popular_ids') or [])} top10_popular_ids, expected 10")
    return problems


def _check_cart(data: JsonRpc) -> list[str]:
    problems = []
    cart = data.get("cart") or {}
    if len(cart.get("items") or []) < 1:
        problems.append("cart has no items, expected at least 1")
    history = data.get("recent_history")
    if not isinstance(history, list) or len(history) != 5:
        problems.append(f"recent_history has {len(history or [])} entries, expected 5")
    elif not all(isinstance(entry, dict) for entry in history):
        problems.append("recent_history entries are not parsed JSON objects")
    if data.get("user_id") != VERIFY_USER:
        problems.append(f"user_id is {data.get('user_id')!r}")
    return problems


def _check_checkout(data: JsonRpc) -> list[str]:
    problems = []
    if data.get("status") != "confirmed":
        problems.append(f"status is {data.get('status')!r}, expected 'confirmed'")
    total = data.get("total")
    if not isinstance(total, int | float) or total <= 0:
        problems.append(f"total is {total!r}, expected > 0")
    if data.get("items_count") != 2:
        problems.append(f"items_count is {data.get('items_count')!r}, expected 2")
    if not isinstance(data.get("rate_limit_count"), int):
        problems.append("rate_limit_count is not an integer (the INCR result)")
    if not str(data.get("order_id", "")).startswith("ORD-"):
        problems.append(f"order_id is {data.get('order_id')!r}")
    return problems


CHECKS: dict[str, Callable[[JsonRpc], list[str]]] = {
    "search_products": _check_search,
    "get_user_cart": _check_cart,
    "checkout": _check_checkout,
}
