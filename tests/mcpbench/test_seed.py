import json

import pytest
import redis

from mcpbench.runtime.local_infra import Infra
from mcpbench.workload import seed


@pytest.fixture
def client(infra: Infra) -> redis.Redis:
    return redis.Redis.from_url(infra.redis_url, decode_responses=True)


def test_a_reset_flushes_and_writes_the_spec_data_set(infra: Infra, client: redis.Redis) -> None:
    # What it costs is a figure of each measurement (seed_s), not a test's: a busy host took 5.7 s here once.
    client.set("stale", "from an earlier measurement")
    seconds = infra.reset()
    assert seconds > 0
    assert client.get("stale") is None  # flushed
    assert client.dbsize() == 10_000 + 1_000 + 1 + 100 + 1


def test_the_users_with_a_cart_are_a_sorted_set_a_prefix_completes_from(infra: Infra, client: redis.Redis) -> None:
    from mcpbench.workload import surface

    infra.reset()
    assert client.zcard("bench:users") == 10_000
    for prefix, values in surface.COMPLETED.items():   # the completion's reference answer (docs/workload.md §7)
        assert surface.completions(client, prefix) == values
    assert surface.completions(client, "user-00000") == []


def test_carts_follow_the_spec(infra: Infra, client: redis.Redis) -> None:
    infra.reset()
    cart = client.hgetall("bench:cart:user-00042")
    assert json.loads(cart["items"]) == [
        {"product_id": 295, "qty": 1}, {"product_id": 547, "qty": 1}, {"product_id": 715, "qty": 1}]
    # 95.03 + 47.06 + 15.08, by the spec's price rule ((id*100) % 9999 + 1) / 100
    assert cart["total"] == "157.17"
    assert (cart["created"], cart["expires"], cart["user_id"]) == ("1740000000", "1740086400", "user-00042")
    assert len(json.loads(client.hget("bench:cart:user-00001", "items"))) == 2  # 1 % 3 != 0


def test_history_popular_and_rate_limits_follow_the_spec(infra: Infra, client: redis.Redis) -> None:
    infra.reset()
    history = [json.loads(e) for e in client.lrange("bench:history:user-00007", 0, -1)]
    assert len(history) == 20
    assert history[2] == {"order_id": "ORD-00007-03", "product_id": 148, "qty": 1, "price": 2.74,
                          "ts": 1740000000 + 7 * 86400 + 3 * 3600}
    assert client.zcard("bench:popular") == 100_000
    assert client.zscore("bench:popular", "product:1429") == (1429 * 7) % 10_000
    assert client.zrevrange("bench:popular", 0, 0, withscores=True)[0][1] == 9999
    assert client.get("bench:ratelimit:user-00100") == "0"
    assert client.exists("bench:history:user-01001") == 0


def _everything(client: redis.Redis) -> dict[bytes, object]:
    """Every key of the client's database with its contents and time to live: the whole data set, to compare.
    A hash's fields as a dict (a hash table's field order may differ between equal copies), every other value
    as DUMP serializes it (type, encoding and contents)."""
    raw = redis.Redis(connection_pool=redis.ConnectionPool(
        **{**client.connection_pool.connection_kwargs, "decode_responses": False}))
    keys = sorted(raw.keys("*"))
    pipe = raw.pipeline(transaction=False)
    for key in keys:
        pipe.type(key)
    for key, kind in zip(keys, pipe.execute(), strict=True):
        pipe.hgetall(key) if kind == b"hash" else pipe.dump(key)
        pipe.pttl(key)
    values = pipe.execute()
    raw.close()
    return {key: (values[2 * i], values[2 * i + 1]) for i, key in enumerate(keys)}


def test_a_reset_copies_the_pristine_data_set_back_exactly_as_the_full_seed_writes_it(
        infra: Infra, client: redis.Redis) -> None:
    seed.seed(client)
    written = _everything(client)
    pristine = redis.Redis.from_url(infra.redis_url, db=seed.PRISTINE_DB, decode_responses=True)
    pristine.flushdb()  # no copy yet: this reset writes in full and makes it
    seed.reset(client)
    assert _everything(client) == written
    assert pristine.get("mcpbench:pristine") == str(seed.SEEDED_KEYS)
    # what a measurement leaves behind: a changed cart, a new key, a consumed rate limit, one key gone
    client.hset("bench:cart:user-00042", "total", "0.00")
    client.set("bench:cart:user-99999", "a server's own")
    client.incr("bench:ratelimit:user-00001")
    client.delete("bench:history:user-00007")
    seed.reset(client)
    assert _everything(client) == written
    # and it came from the copy, not from a full seed: a value changed in the copy alone comes back
    pristine.set("bench:ratelimit:user-00100", "7")
    seed.reset(client)
    assert client.get("bench:ratelimit:user-00100") == "7"
    pristine.flushdb()


def test_a_pristine_copy_that_is_not_the_seeds_is_replaced_by_a_full_seed(infra: Infra, client: redis.Redis) -> None:
    seed.reset(client)
    written = _everything(client)
    pristine = redis.Redis.from_url(infra.redis_url, db=seed.PRISTINE_DB, decode_responses=True)
    pristine.set("written-by-someone-else", "1")  # database 15 is Redis's to everyone: a server may write there
    client.hset("bench:cart:user-00042", "total", "0.00")
    seed.reset(client)
    assert _everything(client) == written
    assert pristine.exists("written-by-someone-else") == 0 and pristine.dbsize() == seed.SEEDED_KEYS + 1
