import json

import pytest
import redis

from mcpbench.runtime.local_infra import Infra


@pytest.fixture
def client(infra: Infra) -> redis.Redis:
    return redis.Redis.from_url(infra.redis_url, decode_responses=True)


def test_seed_writes_the_spec_data_set_quickly(infra: Infra, client: redis.Redis) -> None:
    client.set("stale", "from an earlier measurement")
    seconds = infra.reset()
    assert seconds < 5.0, f"seeding took {seconds:.2f} s (goal: under 5 s)"
    assert client.get("stale") is None  # flushed
    assert client.dbsize() == 10_000 + 1_000 + 1 + 100


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
