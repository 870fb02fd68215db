import pytest

from mcpbench.experiments.config import RunConfig
from mcpbench.experiments.options import resource_profile_of
from mcpbench.results import model
from mcpbench.loads.timing import Timing
from mcpbench.host.profile import resource_profile
from mcpbench.loads import ClosedLoad, OpenLoad


def test_the_v2_profile_is_kept_where_the_machine_has_room_for_k6_beside_it() -> None:
    profile = resource_profile(2.0, 2048, cores=8)
    assert profile.cpus == 2.0 and profile.note is None
    assert profile.server_cpus == (6, 7) and profile.harness_cpus == (0, 1, 2, 3, 4, 5)


def test_a_two_core_machine_scales_the_server_down_to_one_core_and_says_so() -> None:
    profile = resource_profile(2.0, 2048, cores=2)
    assert profile.cpus == 1.0
    assert profile.server_cpus == (1,) and profile.harness_cpus == (0,)
    assert "scaled down from 2 to 1" in (profile.note or "")


def test_a_single_core_pins_nothing() -> None:
    profile = resource_profile(2.0, 2048, cores=1)
    assert profile.server_cpus is None and profile.cpus == 1.0 and profile.note


def test_the_measured_window_follows_ramp_up_and_warm_up() -> None:
    timing = Timing(ramp_up_s=15, warmup_s=60, duration_s=300, ramp_down_s=10, warmup_cap_s=None)
    assert timing.window == (75, 375)
    assert timing.total_s == 385


def test_an_adaptive_warm_up_holds_k6_for_the_longest_warm_up_and_the_window_follows_the_one_used() -> None:
    timing = Timing(ramp_up_s=15, warmup_s=30, duration_s=300, ramp_down_s=10, warmup_cap_s=180)
    assert timing.adaptive and timing.hold_s == 480 and timing.total_s == 505
    assert timing.window_after(42.0) == (57.0, 357.0)
    with pytest.raises(ValueError):
        Timing(warmup_s=60, warmup_cap_s=30)


@pytest.mark.parametrize("kwargs, said", [({"runs": 0}, "--runs must be at least 1"),
                                           ({"vus": (0,)}, "--vus takes positive integers"),
                                           ({"modes": ("bogus",)}, "unknown mode(s) ['bogus']"),
                                           ({"rate_fractions": (3.0,)}, "--open fractions must be in")])
def test_bad_configuration_is_refused_in_one_sentence(kwargs: dict, said: str) -> None:
    with pytest.raises(ValueError) as refused:
        RunConfig.from_options({}, [], Timing(), **kwargs)
    assert str(refused.value).startswith(said) and "\n" not in str(refused.value)


def test_measurements_are_named_by_their_load() -> None:
    assert ClosedLoad("session", 50).label == "session-50vu"
    assert OpenLoad("stateless", 50, 120.5).label == "stateless-rate120.5"
    # rates are fixed after round 1 and named by fraction, so every round's measurement pools under one name
    assert OpenLoad("stateless", 50, 120.5, 0.5).label == "stateless-open0.5"
    config = RunConfig.from_options({}, [], Timing(), modes=("session", "stateless"), vus=(1, 10))
    assert [load.label for load in config.loads()] == ["session-1vu", "session-10vu", "stateless-1vu", "stateless-10vu"]


def test_closed_once_keeps_the_closed_model_to_round_one_and_needs_the_equal_load_it_sizes() -> None:
    config = RunConfig.from_options({}, [], Timing(), modes=("session", "stdio"), runs=3, equal_load=0.7,
                                    closed_once=True)
    assert [load.label for load in config.loads(1)] == ["session-50vu", "stdio-50vu"]
    assert [load.label for load in config.loads(2)] == ["stdio-50vu"]  # stdio has no equal load to stand in for it
    assert config.model_dump(mode="json")["closed_once"] is True
    with pytest.raises(ValueError, match="--closed-once"):
        RunConfig.from_options({}, [], Timing(), closed_once=True)


def test_run_json_records_the_configuration_itself_and_not_how_the_run_went_about_it() -> None:
    """RunConfig is run.json's config: its dump is model.Config's, the kind open when open-model loads came with
    the chosen one, an option not given null; the build, the registry and the chosen kind stay unrecorded."""
    config = RunConfig.from_options({"no_build": True, "load_instances": 2}, [], Timing(warmup_cap_s=None),
                                    modes=("session",), rate_fractions=(0.5,))
    recorded = config.model_dump(mode="json")
    assert set(recorded) == set(model.Config.model_fields) and model.Config.model_validate(recorded)
    assert recorded["kind"] == "open" and config.load == "closed" and not config.build
    assert recorded["rates"] is None and recorded["rate_fractions"] == [0.5] and not recorded["warmup_adaptive"]
    assert recorded["load_generator"] == {"name": "driver", "instances": 2, "by_transport": None}
    assert config.timing == Timing(warmup_cap_s=None)
    assert config.resources == resource_profile_of({})


def test_the_quick_profile_keeps_its_5_s_steady_span_through_the_options() -> None:
    from mcpbench.experiments.run import timing_of
    from mcpbench.loads.timing import FULL_TIMING, QUICK_TIMING

    assert timing_of({"quick": True, "duration": "5"}).steady_span_s == QUICK_TIMING.steady_span_s == 5
    assert timing_of({}).steady_span_s == FULL_TIMING.steady_span_s == 10


def test_the_request_timeout_is_an_option_and_must_be_positive() -> None:
    from mcpbench.experiments.run import timing_of

    assert timing_of({"quick": True}).request_timeout_s == Timing().request_timeout_s == 30
    assert timing_of({"quick": True, "request_timeout": 5}).request_timeout_s == 5
    with pytest.raises(ValueError, match="--request-timeout takes positive seconds"):
        timing_of({"request_timeout": 0})


def test_a_sizing_load_keeps_the_fixed_warm_up_and_measures_a_short_window_with_no_ramp_down() -> None:
    """--closed-once's closed load only sizes the equal load: the profile's minimum warm-up, fixed, then at most
    SIZING_WINDOW_S of window and nothing after it (bench.sh's first run pays it once per server)."""
    from mcpbench.experiments.run import RunExperiment
    from mcpbench.loads.timing import SIZING_WINDOW_S

    values = {"quick": True, "duration": "5", "runs": "3", "equal_load": 0.7, "closed_once": True}
    experiment = RunExperiment(values, [])
    sizing, measured = experiment.sizing_timing, experiment.config.timing
    assert (sizing.warmup_s, sizing.warmup_cap_s, sizing.ramp_up_s) == (measured.warmup_s, None, measured.ramp_up_s)
    assert sizing.duration_s == SIZING_WINDOW_S < measured.duration_s and sizing.ramp_down_s == 0
    assert RunExperiment({**values, "duration": "2"}, []).sizing_timing.duration_s == 2  # never longer than asked
