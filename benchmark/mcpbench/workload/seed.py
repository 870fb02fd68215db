"""The Redis seed data of the workload (docs/workload.md §2), written with pipelined redis-py, and the reset
before every measurement: the written data set kept as a pristine copy in a spare database of the same Redis and
copied back by one server-side script (0.13 s against 1-2 s of writing it again from Python on a 2-core host)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TypedDict

import redis

CART_USERS = 10_000
HISTORY_USERS = 1_000
HISTORY_ENTRIES = 20
POPULAR_MEMBERS = 100_000
RATELIMIT_USERS = 100
USERS_KEY = "bench:users"
_BATCH = 2_000


def user_id(n: int) -> str:
    return f"user-{n:05d}"


def cart_items(n: int) -> list[dict[str, int]]:
    items = [
        {"product_id": (n * 7) % 100_000 + 1, "qty": 1 + n % 3},
        {"product_id": (n * 13) % 100_000 + 1, "qty": 1 + n % 2},
    ]
    if n % 3 == 0:
        items.append({"product_id": (n * 17) % 100_000 + 1, "qty": 1})
    return items


def cart_total(items: list[dict[str, int]]) -> float:
    return sum(item["qty"] * (((item["product_id"] * 100) % 9999) + 1) / 100 for item in items)


class HistoryEntry(TypedDict):
    """One order of a user's history (bench:history:<user>, a JSON list entry; docs/workload.md §2)."""

    order_id: str
    product_id: int
    qty: int
    price: float
    ts: int


def history_entry(n: int, j: int) -> HistoryEntry:
    return {
        "order_id": f"ORD-{n:05d}-{j:02d}",
        "product_id": (n * j * 7) % 100_000 + 1,
        "qty": 1 + j % 3,
        "price": round(((n * j * 13) % 9999 + 1) / 100, 2),
        "ts": 1_740_000_000 + n * 86_400 + j * 3_600,
    }


def _chunks(start: int, stop: int) -> Iterator[range]:
    for lo in range(start, stop, _BATCH):
        yield range(lo, min(lo + _BATCH, stop))


def seed(client: redis.Redis) -> float:
    """Flush the database and write the whole seed data set; returns the seconds it took."""
    started = time.perf_counter()
    client.flushdb()
    for chunk in _chunks(1, CART_USERS + 1):
        pipe = client.pipeline(transaction=False)
        for n in chunk:
            items = cart_items(n)
            pipe.hset(
                f"bench:cart:{user_id(n)}",
                mapping={
                    "user_id": user_id(n),
                    "items": json.dumps(items, separators=(",", ":")),
                    "created": "1740000000",
                    "expires": "1740086400",
                    "total": f"{cart_total(items):.2f}",
                },
            )
        pipe.execute()
    for chunk in _chunks(1, HISTORY_USERS + 1):
        pipe = client.pipeline(transaction=False)
        for n in chunk:
            entries = [
                json.dumps(history_entry(n, j), separators=(",", ":"))
                for j in range(1, HISTORY_ENTRIES + 1)
            ]
            pipe.rpush(f"bench:history:{user_id(n)}", *entries)
        pipe.execute()
    for chunk in _chunks(1, POPULAR_MEMBERS + 1):
        client.zadd("bench:popular", {f"product:{i}": (i * 7) % 10_000 for i in chunk})
    client.mset({f"bench:ratelimit:{user_id(n)}": "0" for n in range(1, RATELIMIT_USERS + 1)})
    for chunk in _chunks(1, CART_USERS + 1):  # the users with a cart, for completion (docs/workload.md §7)
        client.zadd(USERS_KEY, {user_id(n): 0 for n in chunk})
    return time.perf_counter() - started


# The pristine copy's database: the last of Redis's default 16; the servers use database 0. Its marker key says
# which data set it holds (the count of keys seed() writes), so a Redis without it is seeded in full.
PRISTINE_DB = 15
_MARKER = "mcpbench:pristine"
SEEDED_KEYS = CART_USERS + HISTORY_USERS + 1 + RATELIMIT_USERS + 1
# Copies every key of the database the script runs in into database ARGV[1], after flushing that one, and
# returns how many it copied: atomically, as every Redis script runs. COPY: Redis >= 6.2.
_COPY_ALL = """
local keys = redis.call('KEYS', '*')
redis.call('SELECT', ARGV[1])
redis.call('FLUSHDB')
redis.call('SELECT', ARGV[2])
local copied = 0
for _, key in ipairs(keys) do
  if key ~= ARGV[3] then
    redis.call('COPY', key, key, 'DB', ARGV[1], 'REPLACE')
    copied = copied + 1
  end
end
return copied
"""


def reset(client: redis.Redis) -> float:
    """The client's database flushed and given the seed data set again; returns the seconds it took. Copied
    from the pristine copy when this Redis holds one, else written in full and the copy made: one seed() per
    Redis. A Redis that cannot copy (older than 6.2, fewer than 16 databases) is seeded in full every time."""
    started = time.perf_counter()
    db = int(client.connection_pool.connection_kwargs.get("db", 0))
    if db == PRISTINE_DB:
        seed(client)
        return time.perf_counter() - started
    pristine = redis.Redis(connection_pool=redis.ConnectionPool(
        connection_class=client.connection_pool.connection_class,
        **{**client.connection_pool.connection_kwargs, "db": PRISTINE_DB}))
    try:
        if _holds_the_seed(pristine):
            if pristine.eval(_COPY_ALL, 0, db, PRISTINE_DB, _MARKER) == SEEDED_KEYS:
                return time.perf_counter() - started
            pristine.delete(_MARKER)  # not the data set seed() writes: written again below
        seed(client)
        if client.eval(_COPY_ALL, 0, PRISTINE_DB, db, _MARKER) == SEEDED_KEYS:
            pristine.set(_MARKER, SEEDED_KEYS)
    except redis.ResponseError:  # no COPY, or no database 15: the full seed each time
        seed(client)
    finally:
        pristine.close()
    return time.perf_counter() - started


def _holds_the_seed(pristine: redis.Redis) -> bool:
    marker = pristine.get(_MARKER)
    return (marker.decode() if isinstance(marker, bytes) else marker) == str(SEEDED_KEYS)


def main() -> None:
    """`python -m mcpbench.seed redis://host:port` — seed a Redis by hand (used while developing servers)."""
    import sys

    url = sys.argv[1] if len(sys.argv) > 1 else "redis://127.0.0.1:6379"
    seconds = seed(redis.Redis.from_url(url))
    print(f"seeded {url} in {seconds:.2f} s")


if __name__ == "__main__":
    main()
