"""The equal load's rate (analysis/equal_load.py) and how its measurements are named and pooled."""

from __future__ import annotations

import pytest

from mcpbench.analysis.equal_load import DEFAULT_FRACTION, HARNESS_SHARE, choose_rate, rate_text
from mcpbench.experiments.config import RunConfig
from mcpbench.loads import OpenLoad
from mcpbench.loads.timing import Timing


def test_the_slowest_server_sets_the_rate_when_the_harness_has_room() -> None:
    chosen = choose_rate(0.7, {"rust": 2100.0, "python": 410.0, "nodejs": 900.0}, harness_capacity=2278.1)
    assert chosen is not None
    assert (chosen.rate, chosen.slowest, chosen.set_by) == (287.0, "python", "slowest-server")
    assert chosen.harness_cap == round(HARNESS_SHARE * 2278.1, 1)
    assert "python" in rate_text(chosen) and "287.0 calls/s" in rate_text(chosen)


def test_the_harness_caps_the_rate_well_below_its_capacity() -> None:
    # Every server faster than the harness: 70 % of the slowest would ask the harness for 84 % of its capacity.
    chosen = choose_rate(0.7, {"rust": 2700.0, "go": 2750.0}, harness_capacity=2250.0)
    assert chosen is not None and chosen.set_by == "harness-capacity"
    assert chosen.rate == HARNESS_SHARE * 2250.0 and chosen.rate < 0.7 * 2700.0
    assert "harness" in rate_text(chosen)


def test_no_cap_without_a_calibrated_capacity_and_no_rate_without_servers() -> None:
    chosen = choose_rate(DEFAULT_FRACTION, {"go": 1000.0, "broken": 0.0}, harness_capacity=None)
    assert chosen is not None and (chosen.rate, chosen.harness_cap, chosen.slowest) == (700.0, None, "go")
    assert choose_rate(0.7, {}, 2000.0) is None


def test_an_equal_load_is_named_and_pooled_by_its_fraction() -> None:
    load = OpenLoad("session", 50, 287.0, equal_fraction=0.7)
    assert load.label == "session-equal0.7"
    record = load.recorded()
    assert record.rate == 287.0 and record.equal_fraction == 0.7
    # Two runs choose different rates; their measurements pool under the fraction, marked as an equal load.
    assert OpenLoad.level_of(record) == (0.7, "equal")
    assert OpenLoad.equal_load("equal") and OpenLoad.equal_load("abs") and not OpenLoad.equal_load("fraction")
    assert OpenLoad.level_text(0.7, "equal") == "equal load, 70 % of the slowest"


@pytest.mark.parametrize("fraction", [0.0, 1.5])
def test_the_fraction_is_checked_at_the_edge(fraction: float) -> None:
    with pytest.raises(ValueError, match="--equal-load"):
        RunConfig.from_options({}, [], Timing(), equal_load=fraction)
    with pytest.raises(ValueError, match="--equal-rate"):
        RunConfig.from_options({}, [], Timing(), equal_rates=(-1.0,))
