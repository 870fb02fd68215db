"""Typed run configuration, validated once at the edge (the CLI) and recorded verbatim in run.json."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from mcpbench import runtime as runtimes
from mcpbench.experiments.options import kind_name
from mcpbench.host.profile import ResourceProfile, resource_profile
from mcpbench.loads import DEFAULT_KIND, KINDS, MODE_TRANSPORT, MODES, Load, Mode, OpenLoad, Stage
from mcpbench.loads.timing import Timing


@dataclass(frozen=True)
class RunConfig:
    runtime: str             # a name in runtime.RUNTIMES
    servers: tuple[str, ...]
    modes: tuple[Mode, ...] = ("session",)
    vus: tuple[int, ...] = (50,)
    runs: int = 1            # rounds: each measures every server once, in a new order
    shuffle: bool = True
    timing: Timing = field(default_factory=Timing)
    profile: ResourceProfile = field(default_factory=resource_profile)
    rate_fractions: tuple[float, ...] = ()  # open model at these fractions of round 1's closed maximum
    build: bool = True
    calibrate: bool = True  # measure the harness's limits before the first round and after every infrastructure restart
    load_generator: str = "driver"  # a name in loadgen.GENERATORS (stdio modes use one that speaks stdio)
    load_instances: int = 1  # >1: each HTTP test split across that many generator processes (segments)
    kind: str = DEFAULT_KIND  # the kind of load measured at each level (loads.KINDS; --load)
    rates: tuple[float, ...] = ()  # the open model's offered rates, tool calls/s (--load open --rate)
    equal_fraction: float | None = None  # equal load at this fraction of the slowest server's round-1 rate
    equal_rates: tuple[float, ...] = ()  # equal load at these rates, tool calls/s (--equal-rate)
    rounds_auto: bool = False  # --rounds auto: rounds until the headline order is resolved, `runs` at most
    time_budget_s: float | None = None  # --rounds auto: no new round once the run has taken this long
    closed_once: bool = False  # --closed-once: the closed model in round 1 only (it sizes the equal load)
    stacks_only: bool = False  # --stacks-only: the servers are each stack once (what-if variants left out)
    conformance: bool = False  # --conformance (verify): the official MCP conformance suite too
    registry: str | None = None  # --registry (swarm): images pushed there and deployed by digest
    stages: tuple[Stage, ...] = ()  # --load staged --stages: (seconds, VUs) stages
    spike: float | None = None  # --load spike --spike: the spike's multiple of the level (--vus)
    # --prewarm: the closed model this long on the same start before each open-model load
    prewarm_s: float | None = None

    def __post_init__(self) -> None:
        runtimes.check(self.runtime)
        if self.registry and not runtimes.runtime_class(self.runtime).takes_registry:
            raise ValueError(f"--registry is for --runtime swarm (the {self.runtime} runtime runs images where "
                             "they are built)")
        if self.load_instances < 1:
            raise ValueError("--load-instances must be at least 1")
        if self.runs < 1:
            raise ValueError("--runs must be at least 1")
        if not self.vus or any(v < 1 for v in self.vus):
            raise ValueError("--vus takes positive integers, e.g. 50 or 1,10,50")
        if any(not 0 < f <= 2 for f in self.rate_fractions):
            raise ValueError("--open fractions must be in (0, 2], e.g. 0.5,0.8")
        kind_name(self.kind)
        if any(r <= 0 for r in self.rates):
            raise ValueError("--rate takes positive tool calls/s, e.g. 200,400")
        if self.equal_fraction is not None and not 0 < self.equal_fraction <= 1:
            raise ValueError("--equal-load takes a fraction in (0, 1], e.g. 0.7")
        if any(r <= 0 for r in self.equal_rates):
            raise ValueError("--equal-rate takes positive tool calls/s, e.g. 100,300")
        if self.closed_once and (self.equal_fraction is None or not KINDS[self.kind].sizes_open_rates):
            raise ValueError("--closed-once keeps the closed model to round 1, where it sizes --equal-load: "
                             "give it with --equal-load")
        if self.stages and self.kind != "staged":
            raise ValueError("--stages gives a staged load its stages: give it with --load staged")
        if self.kind == "staged" and not self.stages:
            raise ValueError("--load staged needs --stages, e.g. --stages 2m:10,3m:25,10m:50,2m:0")
        if self.spike is not None and (self.kind != "spike" or self.spike <= 1):
            raise ValueError("--spike is the spike's multiple of the level, above 1: give it with --load spike")
        if self.prewarm_s is not None and self.prewarm_s <= 0:
            raise ValueError("--prewarm takes positive seconds, e.g. 5")
        unknown = set(self.modes) - set(MODES)
        if unknown:
            raise ValueError(f"unknown mode(s) {sorted(unknown)}; choose from {', '.join(MODES)}")

    @property
    def stdio_modes(self) -> tuple[Mode, ...]:
        return tuple(m for m in self.modes if MODE_TRANSPORT[m] == "stdio")

    @property
    def levels(self) -> tuple[float, ...]:
        """The levels of the chosen kind: the value of the option it names (--vus, --rate)."""
        return self.level_options[KINDS[self.kind].level_option]

    @property
    def level_options(self) -> dict[str, tuple[float, ...]]:
        """The options a kind's levels may come from (Load.level_option), by name."""
        return {"vus": tuple(map(float, self.vus)), "rate": self.rates,
                "stages": (max(t for _, t in self.stages),) if self.stages else ()}

    @property
    def load_options(self) -> dict[str, object]:
        """The run's options a kind may read (Load.at): --stages, --spike."""
        return {"stages": self.stages, "spike": self.spike}

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
        kind = KINDS[self.kind]
        loads = [kind.at(mode, max(self.vus), level, **self.load_options) for mode in self.modes
                 for level in self.levels]
        return loads if round_index == 1 else [load for load in loads if not self.sizes_equal_load(load)]

    @property
    def kind_recorded(self) -> str:
        """What run.json says the loads were: open when the chosen kind's loads come with open-model ones."""
        return OpenLoad.kind if self.rate_fractions or self.equal else self.kind

    @property
    def equal(self) -> bool:
        """Whether the run measures an equal load (--equal-load or --equal-rate)."""
        return self.equal_fraction is not None or bool(self.equal_rates)

    def record(self) -> dict[str, object]:
        """What run.json says about the configuration."""
        profile = asdict(self.profile)
        profile["cpuset"] = self.profile.cpuset
        return {
            "runtime": self.runtime, "servers": list(self.servers), "modes": list(self.modes),
            "vus": list(self.vus), "runs": self.runs, "shuffle": self.shuffle,
            "kind": self.kind_recorded,
            "rate_fractions": list(self.rate_fractions) or None, "rates": list(self.rates) or None,
            "rounds_auto": self.rounds_auto, "time_budget_s": self.time_budget_s,
            "equal_load": self.equal_fraction, "equal_rates": list(self.equal_rates) or None,
            "closed_once": self.closed_once, "stacks_only": self.stacks_only, "conformance": self.conformance,
            "calibrate": self.calibrate, "prewarm_s": self.prewarm_s,
            "stages": [list(stage) for stage in self.stages] or None, "spike": self.spike,
            **asdict(self.timing), "warmup_adaptive": self.timing.adaptive, "profile": profile,
            # the generator each transport used is added by the suite once it chose them (by_transport)
            "load_generator": {"name": self.load_generator, "instances": self.load_instances},
        }
