"""The surface's reference answers (docs/workload.md §7): a resource template, a fixed resource, a prompt and a
completion every reference server serves under DIMENSION_TOOLS=1, as the requests that ask for them and the
checks verify holds each server's replies to."""

from __future__ import annotations

import json

import redis

from mcpbench.workload.mcp_client import JsonRpc, Reply
from mcpbench.workload.seed import USERS_KEY, cart_items, cart_total, user_id

PRODUCT_URI = "product://{id}"
POPULAR_URI = "bench://popular"
PROMPT = "cart_summary"
PROMPT_ARGUMENT = "user_id"
COMPLETIONS_AT_MOST = 10
METHODS = ("resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get",
           "completion/complete")
# A manifest's `unsupported` keys for what an SDK lacks (docs/workload.md §7).
RESOURCES, PROMPTS, COMPLETION = "resources", "prompts", "completion"
VERIFY_PRODUCT = 42
VERIFY_USER = 42
# The catalog's product 42 (docs/workload.md §1, i = 41), every field the API answers.
PRODUCT_42: JsonRpc = {
    "id": 42, "sku": "SKU-000042", "category": "Books", "brand": "Weld", "name": "Weld Books Item 42",
    "price": 1.41, "stock": 41, "rating": 1.1, "tags": ["new", "featured", "bestseller", "clearance"],
    "weight": 4.2, "description": "Quality Books by Weld. SKU 000042.",
}
# Prefixes verify completes, and their answers: ten of many, and the one user above 9,999.
COMPLETED = {"user-0012": [user_id(n) for n in range(120, 130)], "user-1": [user_id(10_000)]}


def product_uri(product: int | str) -> str:
    return PRODUCT_URI.format(id=product)


def read_params(uri: str) -> JsonRpc:
    return {"uri": uri}


def prompt_params(user: str) -> JsonRpc:
    return {"name": PROMPT, "arguments": {PROMPT_ARGUMENT: user}}


def complete_params(prefix: str) -> JsonRpc:
    return {"ref": {"type": "ref/prompt", "name": PROMPT}, "argument": {"name": PROMPT_ARGUMENT, "value": prefix}}


def prompt_text(user: str, items: str, total: str) -> str:
    return f"Summarise the cart of {user}: {items} (total {total})"


def seeded_prompt_text(n: int) -> str:
    """The prompt's text for seeded user n, whose cart no workload call changes."""
    return prompt_text(user_id(n), json.dumps(cart_items(n), separators=(",", ":")), f"{cart_total(cart_items(n)):.2f}")


# `store`: a client that decodes its replies (decode_responses=True), as verify's is.
def popular(store: redis.Redis) -> list[str]:
    """What bench://popular answers now (checkout moves the ranking)."""
    return [str(member) for member in store.zrevrange("bench:popular", 0, 9)]


def completions(store: redis.Redis, prefix: str) -> list[str]:
    found = store.zrangebylex(USERS_KEY, f"[{prefix}", f"({prefix}\x7f", start=0, num=COMPLETIONS_AT_MOST)
    return [str(member) for member in found]


def failed(reply: Reply) -> str | None:
    """Why a reply is no result at all (None: it is one): every check below reads a result."""
    if reply.status != 200 or reply.result is None:
        return f"HTTP {reply.status}: {(reply.error or {}).get('message') or reply.body[:160]!r}"
    return None


def _named(reply: Reply, member: str, key: str) -> list[JsonRpc]:
    entries = (reply.result or {}).get(member)
    if not isinstance(entries, list):
        raise ValueError(f"no {member} list in the result")
    return [entry for entry in entries if isinstance(entry, dict) and key in entry]


def check_listed(reply: Reply, member: str, key: str, wanted: str) -> list[str]:
    """resources/list, resources/templates/list or prompts/list names `wanted` (its `uri`, `uriTemplate` or
    `name`)."""
    found = [entry[key] for entry in _named(reply, member, key)]
    return [] if wanted in found else [f"{wanted} not listed; {member}: {found[:5]}"]


def resource_document(reply: Reply, uri: str) -> JsonRpc:
    """resources/read's first content, its text parsed as JSON (as a tool's first text content is)."""
    contents = (reply.result or {}).get("contents") or []
    if not contents or not isinstance(contents[0], dict) or "text" not in contents[0]:
        raise ValueError("no text content in the resource")
    if contents[0].get("uri") != uri:
        raise ValueError(f"its content's uri is {contents[0].get('uri')!r}, expected {uri!r}")
    document = json.loads(contents[0]["text"])
    if not isinstance(document, dict):
        raise ValueError("its text is no JSON object")
    return document


def check_product(reply: Reply) -> list[str]:
    document = resource_document(reply, product_uri(VERIFY_PRODUCT))
    wrong = [field for field, value in PRODUCT_42.items() if document.get(field) != value]
    return [f"product {VERIFY_PRODUCT}'s {', '.join(wrong)} differ from the catalog's"] if wrong else []


def check_popular(reply: Reply, expected: list[str] | None) -> list[str]:
    """Redis's ten now (`expected`), or without the bench's Redis (None) that there are ten."""
    found = resource_document(reply, POPULAR_URI).get("popular")
    if expected is None:
        count = len(found) if isinstance(found, list) else 0
        return [] if count == 10 else [f"{count} popular products, expected 10"]
    return [] if found == expected else [f"popular is {str(found)[:120]}, expected Redis's {expected[:3]} …"]


def check_prompt(reply: Reply, expected: str) -> list[str]:
    messages = (reply.result or {}).get("messages") or []
    if len(messages) != 1:
        return [f"{len(messages)} messages, expected 1"]
    message = messages[0]
    content = message.get("content") or {}
    if message.get("role") != "user" or content.get("type") != "text":
        return [f"a {message.get('role')!r} message of {content.get('type')!r}, expected a user's text"]
    text = content.get("text")
    return [] if text == expected else [f"text {str(text)[:100]!r}, expected {expected[:100]!r}"]


def check_completion(reply: Reply, expected: list[str]) -> list[str]:
    values = ((reply.result or {}).get("completion") or {}).get("values")
    return [] if values == expected else [f"values {str(values)[:120]}, expected {expected}"]
