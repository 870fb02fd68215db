"""One server at one load as the report's tables show it (consolidate.rank makes them): every figure of its runs
(Figures), where its table shows it, and its place in each ranking of the load (a Placing per ranking). One
definition of the row: the pages, the console and the charts read it, and Row.to_json is the one place it turns
into data/results.json's flat keys (a ranking's fields under its prefix: cpu_rank, mem_letters…)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from mcpbench.analysis.stats import Latency

# What a JSON file holds: the rows and the decision as data/results.json and data/decision.json write them.
Json = str | int | float | bool | None | Sequence["Json"] | Mapping[str, "Json"]


@dataclass(frozen=True)
class OrderHeld:
    """In how many of the rounds both were measured in a row was strictly ahead of the next row of its ranking."""

    next: str
    held: int
    rounds: int

    @property
    def text(self) -> str:
        if not self.rounds:
            return "no shared round"
        return f"held in {self.held}/{self.rounds} round{'s' if self.rounds != 1 else ''}"

    def to_json(self) -> dict[str, Json]:
        return {"next": self.next, "held": self.held, "rounds": self.rounds, "text": self.text}


@dataclass(frozen=True)
class MissingRound:
    """A round of a results directory that a server lacks at a load, and why."""

    run_id: str
    round: int
    of: int                 # the rounds the directory was meant to have
    why: str

    def to_json(self) -> dict[str, Json]:
        return {"run_id": self.run_id, "round": self.round, "of": self.of, "why": self.why}


@dataclass(frozen=True)
class Placing:
    """Where a row stands in one ranking of its load (TIER_RULE): its rank, letters, tests against the leader and
    the next row. A ranking that did not take the row leaves it None, but for why (rank_note)."""

    rank: str | None = None                  # "1", "2=" (None: not ranked)
    tier: int | None = None
    ranked: bool | None = None               # False: shown apart from the ranking (None: no ranking took it)
    rank_note: str | None = None             # why it has no rank
    letters: str | None = None               # compact letter display
    power_text: str | None = None            # what a pair of this ranking needs to be separated
    vs_leader: str | None = None
    vs_next: str | None = None
    vs_next_significant: bool | None = None
    family: int | None = None                # tests in the ranking's Holm family
    order_held: OrderHeld | None = None      # against the next row (None: the last, or not ranked)
    position: int | None = None              # its place in an efficiency ranking's order
    runs: int | None = None                  # rounds with the ranking's figure (None: no ranking took it)

    def to_json(self, prefix: str) -> dict[str, Json]:
        """Its fields under the ranking's prefix, as results.json names them (the throughput ranking's have none
        and no position)."""
        out: dict[str, Json] = {
            f"{prefix}rank": self.rank, f"{prefix}tier": self.tier, f"{prefix}ranked": self.ranked,
            f"{prefix}rank_note": self.rank_note, f"{prefix}letters": self.letters,
            f"{prefix}power_text": self.power_text, f"{prefix}vs_leader": self.vs_leader,
            f"{prefix}vs_next": self.vs_next, f"{prefix}vs_next_significant": self.vs_next_significant,
            f"{prefix}family": self.family,
            f"{prefix}order_held": self.order_held.to_json() if self.order_held else None}
        if prefix:
            out[f"{prefix}position"] = self.position
        return out


@dataclass(frozen=True)
class Figures:
    """Every figure of one server at one load (a Group's runs): throughput over runs, latency pooled from every
    run's samples, resources, efficiency, flags and publication. A figure a ranking moderates (the throughput, CPU
    ms per call, peak memory and p99 intervals) is written over with the ranking's own (consolidate.rank)."""

    server: str
    mode: str
    kind: str                       # the kind of load (loads.KINDS)
    vus: float | None               # the level, for kinds measured in VUs
    rate: float | None              # the offered rate, for kinds measured in calls/s
    rate_fraction: float | None     # an open load keyed by a fraction of round 1's closed maximum
    load: float
    config: str                     # the load's label
    runs: int
    run_ids: list[str]
    rounds: list[str]               # run id#round of each run
    measurements: list[str]         # run id/server/measurement of each run
    schemas_read: list[int]
    tool_calls_per_s: float | None
    tool_calls_per_s_sd: float | None
    cv: float | None
    ci_low: float | None
    ci_high: float | None
    ci_method: str
    per_run_tool_calls_per_s: list[float]
    v2_rps: float | None
    v2_rps_whole_run: float | None
    latency_all_avg_ms: float | None   # every tool call (failures at their time, timeouts at the timeout), pooled
    latency_all_min_ms: float | None
    latency_all_p50_ms: float | None
    latency_all_p90_ms: float | None
    latency_all_p95_ms: float | None
    latency_all_p99_ms: float | None
    latency_all_p999_ms: float | None
    latency_all_max_ms: float | None
    latency_all_count: int
    latency_avg_ms: float | None       # successful tool calls, pooled
    latency_min_ms: float | None
    latency_p50_ms: float | None
    latency_p90_ms: float | None
    latency_p95_ms: float | None
    latency_p99_ms: float | None
    latency_p999_ms: float | None
    latency_max_ms: float | None
    latency_count: int
    v2_call_avg_ms: float | None
    v2_call_p95_ms: float | None
    v2_call_count: int
    per_tool: dict[str, Latency]       # successful calls of each tool, pooled
    http_avg_ms: float | None
    http_p95_ms: float | None
    http_p99_ms: float | None
    tool_calls: int
    errors: int
    error_rate: float | None
    error_kinds: dict[str, int]
    cpu_avg_pct: float | None
    cpu_peak_pct: float | None
    mem_avg_mb: float | None
    mem_peak_mb: float | None
    calls_per_core: float | None
    calls_per_gb: float | None
    cpu_ms_per_call: float | None
    cpu_ms_per_call_ci_low: float | None
    cpu_ms_per_call_ci_high: float | None
    cpu_ms_per_call_runs: int
    per_run_cpu_ms_per_call: list[float | None]
    p99_all_round_ci_low: float | None     # the pooled all-calls p99 ÷/× the spread of each round's own
    p99_all_round_ci_high: float | None
    mem_peak_mb_mean: float | None
    mem_peak_mb_ci_low: float | None
    mem_peak_mb_ci_high: float | None
    per_run_mem_peak_mb: list[float | None]
    dropped_iterations: int
    flags: list[str]                   # each flag, with how many runs raised it
    flag_names: list[str]
    harness_bound: bool
    limit_fraction_max: float | None
    limited_by: list[str]
    limited_by_text: str
    publishable: bool | None
    publishable_text: str
    unpublishable_reasons: list[str]
    missing_rounds: list[MissingRound]
    missing_text: str | None

    def figures_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {f.name: getattr(self, f.name) for f in fields(Figures)}
        out["missing_rounds"] = [m.to_json() for m in self.missing_rounds]
        return out


# The rankings of a load by the prefix of their fields in results.json, and the key of the rounds each rests on.
RANKINGS = ("", "cpu_", "mem_", "p50_", "p99_")
RUNS_KEYS = {"cpu_": "cpu_ms_per_call_runs", "mem_": "mem_peak_mb_runs", "p50_": "p50_all_runs",
             "p99_": "p99_all_runs"}


@dataclass(frozen=True)
class Row(Figures):
    """One server at one load as its tables show it: its figures, the section of the table it is shown in, its
    spread relative to its rounds, and its place in each ranking of the load."""

    section: str                       # consolidate's BOUND, RANKED, NOT_ASSESSED or UNPUBLISHABLE
    efficiency_section: str            # the same for the CPU and memory rankings (harness limits do not count)
    per_run_round_ratio: list[float | None]   # each run's throughput / its round's geometric mean
    cv_round_ratio: float | None
    cv_round_ratio_rounds: int
    throughput: Placing                # by tool calls/s
    cpu: Placing                       # by CPU ms per call
    mem: Placing                       # by peak memory
    p50: Placing                       # by the all-calls p50 (an equal load only)
    p99: Placing                       # by the all-calls p99 (an equal load only)
    bound_text: str | None = None      # a harness-limited row: "≥ X calls/s — limited by …"
    display_name: str | None = None    # the server's manifest, where the lineup's ranking knows it
    language: str | None = None
    sdk: str | None = None
    sdk_version: str | None = None

    def placing(self, prefix: str) -> Placing:
        """The row's place in the ranking whose fields results.json names with `prefix` (RANKINGS)."""
        return {"": self.throughput, "cpu_": self.cpu, "mem_": self.mem, "p50_": self.p50, "p99_": self.p99}[prefix]

    def to_json(self) -> dict[str, Json]:
        """The row as data/results.json holds it: its figures, where it is shown, then each ranking's fields under
        its prefix and the rounds that ranking rests on (a ranking that did not take the row counts none)."""
        out = self.figures_json()
        out.update(tool_calls_per_s_runs=self.runs, section=self.section, efficiency_section=self.efficiency_section,
                   per_run_round_ratio=self.per_run_round_ratio, cv_round_ratio=self.cv_round_ratio,
                   cv_round_ratio_rounds=self.cv_round_ratio_rounds)
        for prefix in RANKINGS:
            placing = self.placing(prefix)
            if prefix and placing.runs is not None:
                out[RUNS_KEYS[prefix]] = placing.runs   # CPU's: the ranking's count in place of the figure's
            out.update(placing.to_json(prefix))
        out.update(bound_text=self.bound_text, display_name=self.display_name, language=self.language,
                   sdk=self.sdk, sdk_version=self.sdk_version)
        return out
