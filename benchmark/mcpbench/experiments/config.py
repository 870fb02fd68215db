"""The run's configuration: run.json's `config` itself (model.Config), validated once at the edge (the CLI) from
the option values every experiment shares, with what the run does with it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from pydantic import Field, ValidationError, field_validator, model_validator

from mcpbench import loadgen
from mcpbench import runtime as runtimes
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.experiments.options import DEFAULT_VUS, Values, csv, kind_name, modes_of, resource_profile_of
from mcpbench.host.profile import ResourceProfile
from mcpbench.loads import DEFAULT_KIND, KINDS, MODE_TRANSPORT, MODES, Load, Mode, OpenLoad, Stage
from mcpbench.loads.timing import Timing
from mcpbench.results.model import Config, LoadGeneratorConfig, Profile


class LoadOptions(TypedDict):
    """The run's options a kind of load may read (Load.at): --stages, --spike."""

    stages: tuple[Stage, ...]
    spike: float | None


class RunConfig(Config):
    """run.json's `config` (every field of model.Config, recorded as it is) and what the run does with it: its
    loads, its timeline, its server's resources. What run.json does not record is excluded from its dump. Built by
    `from_options`; an experiment sets its own part (its plan, model.Config's `capacity`, `soak`, `dimension`) there
    or on it once made, every value checked as it is set."""

    # Not recorded: how the run goes about it, not what it measured.
    build: bool = Field(True, exclude=True)              # build the servers before the first round (--no-build)
    registry: str | None = Field(None, exclude=True)     # --registry (swarm): images deployed from there by digest
    # The kind measured at each level (loads.KINDS, --load); `kind` records `open` when open-model loads come with it.
    load: str = Field(DEFAULT_KIND, exclude=True)
    # Narrower than run.json's (read as any version wrote it): each mode is a Mode, checked whenever it is set
    # (_known_modes names one that is not), and the generator is always named.
    modes: list[Mode]  # type: ignore[assignment]
    load_generator: LoadGeneratorConfig

    @classmethod
    def from_options(cls, values: Values, specs: Sequence[ServerSpec], timing: Timing, *,
                     modes: Sequence[str] | None = None, vus: Sequence[int] | None = None, runs: int = 1,
                     shuffle: bool = True, calibrate: bool | None = None, load: str = DEFAULT_KIND,
                     rate_fractions: Sequence[float] = (), **fields: Any) -> RunConfig:
        """The run configuration from the option values every experiment takes alike (`values`: PLACEMENT,
        BUILDING, CALIBRATION, LOAD_SOURCE, LOAD, each at its default where the experiment has no such option), its
        servers and its load's timeline. What the experiment decides itself: the modes (default: --mode, else the
        servers' workload file's, modes_of), the VUs (default: --vus), the rounds, whether the harness is
        calibrated (default: unless --no-calibrate), the kind of load and any further field of model.Config
        (`fields`). ValueError, one sentence, on a bad value."""
        try:
            config = cls(
                runtime=values.get("runtime") or runtimes.DEFAULT, servers=[spec.name for spec in specs],
                modes=list(modes_of(values, list(specs)) if modes is None else modes),
                vus=list(csv(values.get("vus", DEFAULT_VUS), int, "--vus") if vus is None else vus),
                runs=runs, shuffle=shuffle, kind=load, load=load, rate_fractions=list(rate_fractions),
                calibrate=not values.get("no_calibrate") if calibrate is None else calibrate,
                build=not values.get("no_build"), registry=values.get("registry"),
                ramp_up_s=timing.ramp_up_s, warmup_s=timing.warmup_s, warmup_cap_s=timing.warmup_cap_s,
                warmup_adaptive=timing.adaptive, steady_span_s=timing.steady_span_s, duration_s=timing.duration_s,
                ramp_down_s=timing.ramp_down_s, think_time_s=timing.think_time_s,
                request_timeout_s=timing.request_timeout_s,
                profile=Profile.model_validate(resource_profile_of(values), from_attributes=True),
                # the generator each transport used is added by the suite once it chose them (by_transport)
                load_generator=LoadGeneratorConfig(name=values.get("load_generator") or loadgen.DEFAULT,
                                             instances=values.get("load_instances", 1)),
                **fields)
            if config.rate_fractions or config.equal:
                config.kind = OpenLoad.kind  # what run.json says the loads were: open-model ones came with them
        except ValidationError as exc:
            raise ValueError(_first_said(exc)) from None
        return config

    @field_validator("modes", mode="before")
    @classmethod
    def _known_modes(cls, value: Sequence[str]) -> Sequence[str]:
        unknown = set(value) - set(MODES)
        if unknown:
            raise ValueError(f"unknown mode(s) {sorted(unknown)}; choose from {', '.join(MODES)}")
        return value

    @field_validator("rate_fractions", "rates", "equal_rates", "stages")
    @classmethod
    def _none_when_not_given(cls, value: list | None) -> list | None:
        """An option not given is recorded as null, not as an empty list."""
        return value or None

    @model_validator(mode="after")
    def _checked(self) -> RunConfig:
        runtimes.check(self.runtime)
        if self.registry and not runtimes.runtime_class(self.runtime).takes_registry:
            raise ValueError(f"--registry is for --runtime swarm (the {self.runtime} runtime runs images where "
                             "they are built)")
        if self.load_generator.instances < 1:
            raise ValueError("--load-instances must be at least 1")
        if self.runs < 1:
            raise ValueError("--runs must be at least 1")
        if not self.vus or any(v < 1 for v in self.vus):
            raise ValueError("--vus takes positive integers, e.g. 50 or 1,10,50")
        if any(not 0 < f <= 2 for f in self.rate_fractions or ()):
            raise ValueError("--open fractions must be in (0, 2], e.g. 0.5,0.8")
        kind_name(self.load)
        if any(r <= 0 for r in self.rates or ()):
            raise ValueError("--rate takes positive tool calls/s, e.g. 200,400")
        if self.equal_load is not None and not 0 < self.equal_load <= 1:
            raise ValueError("--equal-load takes a fraction in (0, 1], e.g. 0.7")
        if any(r <= 0 for r in self.equal_rates or ()):
            raise ValueError("--equal-rate takes positive tool calls/s, e.g. 100,300")
        if self.closed_once and (self.equal_load is None or not KINDS[self.load].sizes_open_rates):
            raise ValueError("--closed-once keeps the closed model to round 1, where it sizes --equal-load: "
                             "give it with --equal-load")
        if self.stages and self.load != "staged":
            raise ValueError("--stages gives a staged load its stages: give it with --load staged")
        if self.load == "staged" and not self.stages:
            raise ValueError("--load staged needs --stages, e.g. --stages 2m:10,3m:25,10m:50,2m:0")
        if self.spike is not None and (self.load != "spike" or self.spike <= 1):
            raise ValueError("--spike is the spike's multiple of the level, above 1: give it with --load spike")
        if self.prewarm_s is not None and self.prewarm_s <= 0:
            raise ValueError("--prewarm takes positive seconds, e.g. 5")
        return self

    @property
    def timing(self) -> Timing:
        """The load's timeline, from the fields run.json records it in."""
        return Timing(ramp_up_s=self.ramp_up_s, warmup_s=self.warmup_s, duration_s=self.duration_s,
                      ramp_down_s=self.ramp_down_s, think_time_s=self.think_time_s,
                      request_timeout_s=self.request_timeout_s, warmup_cap_s=self.warmup_cap_s,
                      steady_span_s=Timing.steady_span_s if self.steady_span_s is None else self.steady_span_s)

    @property
    def resources(self) -> ResourceProfile:
        """The server's limits and the CPUs of the server and the harness, as the runtimes place them."""
        profile = self.profile
        return ResourceProfile(profile.cpus, profile.memory_mb, _cpus(profile.server_cpus),
                               _cpus(profile.harness_cpus), profile.note)

    @property
    def stdio_modes(self) -> tuple[Mode, ...]:
        return tuple(m for m in self.modes if MODE_TRANSPORT[m] == "stdio")

    @property
    def levels(self) -> tuple[float, ...]:
        """The levels of the chosen kind: the value of the option it names (--vus, --rate)."""
        return self.level_options[KINDS[self.load].level_option]

    @property
    def level_options(self) -> dict[str, tuple[float, ...]]:
        """The options a kind's levels may come from (Load.level_option), by name."""
        return {"vus": tuple(map(float, self.vus)), "rate": tuple(self.rates or ()),
                "stages": (max(t for _, t in self.stages),) if self.stages else ()}

    @property
    def load_options(self) -> LoadOptions:
        """The run's options a kind may read (Load.at): --stages, --spike."""
        return LoadOptions(stages=tuple(self.stages or ()), spike=self.spike)

    def prewarm_for(self, load: Load) -> float | None:
        """--prewarm's seconds before an open-model load over HTTP (an equal load, --rate, --open); none before
        the closed model, which is its own work."""
        return self.prewarm_s if load.model == "open" and MODE_TRANSPORT[load.mode] == "http" else None

    def sizes_equal_load(self, load: Load) -> bool:
        """Whether the load only sizes the equal load (--closed-once: an HTTP mode's closed-model load), and is
        measured in round 1 only."""
        return self.closed_once and load.sizes_open_rates and MODE_TRANSPORT[load.mode] == "http"

    def loads(self, round_index: int = 1) -> list[Load]:
        """The fixed loads of a round: the chosen kind at each of its levels, in each mode (less, after round 1,
        the loads that only size the equal load)."""
        kind = KINDS[self.load]
        loads = [kind.at(mode, max(self.vus), level, **self.load_options) for mode in self.modes
                 for level in self.levels]
        return loads if round_index == 1 else [load for load in loads if not self.sizes_equal_load(load)]

    @property
    def equal(self) -> bool:
        """Whether the run measures an equal load (--equal-load or --equal-rate)."""
        return self.equal_load is not None or bool(self.equal_rates)


def _cpus(cpus: list[int] | None) -> tuple[int, ...] | None:
    return tuple(cpus) if cpus is not None else None


def _first_said(exc: ValidationError) -> str:
    """The first problem of a configuration that does not validate, as its check said it (one sentence)."""
    first = exc.errors()[0]
    error = first.get("ctx", {}).get("error")
    if isinstance(error, ValueError):
        return str(error)
    field = ".".join(str(p) for p in first["loc"]) or "the configuration"
    return f"{field}: {first['msg']}"
