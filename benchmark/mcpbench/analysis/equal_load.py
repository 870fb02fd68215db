"""Equal load: the same open-model offered rate for every server of a run, so that what each spends to serve
it (server CPU milliseconds per call, memory) and how fast it answers (all-calls p50/p99) compare servers
directly — also those faster than the harness, whose throughput is only a lower bound (issue 21).

The rate is set once, after round 1, per HTTP mode: a fraction of the slowest server's round-1 closed rate
(so every server keeps up, with room to spare), capped at a share of the harness's own open-model capacity
(so the harness is comfortable: well below analysis.LIMIT_FRACTION, where a load is judged harness-bound).
Every round measures it, round 1 in a pass after its closed loads (experiments/run.py)."""

from __future__ import annotations

from mcpbench.results.model import EqualRate

# The default fraction of the slowest server's round-1 closed rate.
DEFAULT_FRACTION = 0.7
# The cap: this share of the harness's open-model capacity (a measurement at >= analysis.LIMIT_FRACTION of it
# is flagged harness-bound; half of it leaves the harness idle enough not to colour latency).
HARNESS_SHARE = 0.5


def rate_text(chosen: EqualRate) -> str:
    """The equal rate and what set it, as the console says it."""
    why = (f"{chosen.fraction:.0%} of the slowest server's round-1 rate ({chosen.slowest}, "
           f"{chosen.slowest_tool_calls_per_s:,.1f} calls/s)")
    if chosen.set_by == "harness-capacity":
        why = (f"{HARNESS_SHARE:.0%} of the harness's open-model capacity ({chosen.harness_cap or 0:,.1f} calls/s), "
               f"below {why}")
    return f"{chosen.rate:,.1f} calls/s: {why}"


def choose_rate(fraction: float, closed_rates: dict[str, float], harness_capacity: float | None) -> EqualRate | None:
    """The equal rate from each server's round-1 closed rate (servers that failed are absent) and the harness's
    open-model capacity (None: not calibrated). None when no server has a rate."""
    rates = {name: rate for name, rate in closed_rates.items() if rate and rate > 0}
    if not rates:
        return None
    slowest = min(rates, key=lambda name: (rates[name], name))
    by_server = fraction * rates[slowest]
    cap = HARNESS_SHARE * harness_capacity if harness_capacity else None
    capped = cap is not None and cap < by_server
    # One decimal: the load generators take the rate to 0.1 calls/s.
    rate = max(0.1, round(cap if cap is not None and capped else by_server, 1))
    return EqualRate(fraction=fraction, rate=rate, slowest=slowest, slowest_tool_calls_per_s=round(rates[slowest], 1),
                     harness_cap=round(cap, 1) if cap else None,
                     set_by="harness-capacity" if capped else "slowest-server")
