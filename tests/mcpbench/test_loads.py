"""The kinds of load: each carries its name, its k6 scenario and how the analysis reads it."""

from __future__ import annotations

import pandas as pd
import pytest

from mcpbench import loads as load_kinds
from mcpbench.loads.timing import Timing
from mcpbench.loads import ClosedLoad, OpenLoad

TIMING = Timing(ramp_up_s=3, warmup_s=7, duration_s=20, ramp_down_s=2, warmup_cap_s=None)


def test_every_kind_is_registered_under_the_name_results_record() -> None:
    assert {"closed", "open"} <= set(load_kinds.KINDS)
    for name, kind in load_kinds.KINDS.items():
        assert kind.kind == name and issubclass(kind, load_kinds.Load)
        assert kind.model in ("closed", "open")  # what every load generator translates its stages by
    assert load_kinds.kind(None) is ClosedLoad  # results written before kinds were recorded
    with pytest.raises(ValueError, match="unknown load kind 'soak'"):
        load_kinds.kind("soak")


def test_a_kind_records_what_names_its_measurement() -> None:
    assert ClosedLoad("session", 50).recorded().model_dump() == {"mode": "session", "kind": "closed", "vus": 50,
                                                                 "rate": None, "rate_fraction": None,
                                                                 "equal_fraction": None}
    assert OpenLoad("stateless", 50, 120.5, 0.5).recorded().model_dump() == {"mode": "stateless", "kind": "open",
                                                                             "vus": 50, "rate": 120.5,
                                                                             "rate_fraction": 0.5,
                                                                             "equal_fraction": None}
    assert (ClosedLoad("session", 50).level, OpenLoad("stateless", 50, 120.5).level,
            OpenLoad("stateless", 50, 120.5, 0.5).level) == (50, 120.5, 0.5)


def test_a_kind_at_one_level_ramps_to_it_holds_it_and_ramps_down() -> None:
    # the hold is the warm-up + the window (timing.hold_s); the targets are in the model's unit
    assert (ClosedLoad.model, ClosedLoad("session", 8).stages(TIMING)) == ("closed", [(3, 8), (27, 8), (2, 0)])
    assert (OpenLoad.model, OpenLoad("session", 8, 12.34).stages(TIMING)) == ("open", [(3, 12.34), (27, 12.34),
                                                                                       (2, 0)])


SAMPLES = pd.DataFrame({
    "vu": [1, 1, 1, 1, 2, 2, 2, 2],
    "tool": ["search_products", "get_user_cart", "checkout", "tools/list"] * 2,
    "t_s": [10.1, 10.2, 10.3, 10.4, 10.2, 10.3, 10.5, 10.6],
    "session_ms": [50.0] * 8,
})


def test_the_closed_model_counts_iterations_by_their_tools_list_and_compares_littles_law_with_its_vus() -> None:
    assert ClosedLoad.sample_iterations(SAMPLES) == 2
    law = ClosedLoad.littles_law(SAMPLES, (10.0, 11.0), vus=2, think_time_s=0.05)
    # 2 iterations in 1 s, each 4 x 50 ms busy + 50 ms think: 2 x 0.25 = 0.5 VUs predicted against 2
    assert law["predicted"] == pytest.approx(0.5) and law["gap"] == pytest.approx(0.75)


def test_the_open_model_counts_one_iteration_per_call_and_records_calls_in_flight() -> None:
    assert OpenLoad.sample_iterations(SAMPLES) == 8
    assert OpenLoad.max_vus(8) == 32
    law = OpenLoad.littles_law(SAMPLES, (10.0, 11.0), vus=2, think_time_s=0.05)
    assert law == {"arrivals_per_s": 8.0, "mean_session_s": 0.05, "in_flight": pytest.approx(0.4)}
    assert "gap" not in law  # no fixed population to compare with: never flagged
