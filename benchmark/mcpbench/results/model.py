"""The results format (docs/results-format.md), defined once: the orchestrator writes through it, the report
reads through it, and the doc's field tables are generated from it.

Versions (asv's "api_version + update"): every file carries the SCHEMA it was written with; a reader upgrades
an older one step by step (RUN_UPGRADES, SUMMARY_UPGRADES) to the current SCHEMA before validating it, and
refuses a schema it does not know with a one-line ResultsError. A field an old version never recorded is
filled with an honest null and, where a reader could mistake the null for a verdict, the upgrade says why
(`publishable` None = "not assessed").

Extra keys are refused where one writer owns the whole file (a drifting writer fails a test) and allowed
where a runtime or a manifest adds its own (environment, image.json, server.json, run.json's servers).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, TypeVar

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, ValidationError, model_serializer

from mcpbench.loads import kind as load_kind
from mcpbench.loads.base import LIST_TOOLS, MeasuredLoad, RecordedLoad
from mcpbench.records import Closed, Open, described
from mcpbench.workload.file import CallKind
from mcpbench.workload.verify import Verify

# 2: adaptive warm-up, host stability, k6 cross-checks, calibration and rounds, v2 figures as the study
# defined them, all-calls latency, publishable verdicts.
# 3: the load generator is a component of its own name (`loadgen`, flag bound:loadgen; k6 became optional);
# every load is judged against the limit of its kind (summary `limit`: the closed model's own limit, or the
# harness's open-model capacity; flags bound:load-model / bound:harness-capacity / limit-unknown instead of
# bound:ceiling); run.json `harness_capacity` and `calibrations`.
# 4: the load generator's fields and files say so, not k6 (an optional generator): summary checks
# `loadgen_exit_code`, `loadgen_stopped_early`, `loadgen_iterations`, `loadgen_http_reqs`, throughput
# `loadgen_run_s`, context `loadgen_*`, files loadgen-counts.json and loadgen.log (k6-counts.json and k6.log
# still read).
# The results format version this code writes (the type checker holds the two to the same number).
SchemaVersion = Literal[4]
SCHEMA: Final[SchemaVersion] = 4
SCHEMAS_READ = (1, 2, 3, 4)
SAMPLE_COLUMNS = ("t_s", "vu", "tool", "ok", "error_kind", "call_ms", "session_ms", "http_ms")
# samples.csv's optional column: a call that streamed progress (the workload's `progress`) has the arrival of its
# first notification, ms from the call's start; a file whose calls streamed none has no such column.
FIRST_MS = "first_ms"
RESOURCE_COLUMNS = ("t_s", "component", "cpu_pct", "mem_mb")
# processes.csv (soak): the server's process tree at 1 Hz; fds/threads empty where unreadable.
PROCESS_COLUMNS = ("t_s", "rss_mb", "cgroup_mb", "fds", "threads", "processes")
# Its columns added since, empty in a file written before them (read_processes): the tree's TCP sockets, and
# those the peer closed but the server has not (CLOSE_WAIT: a client gone, its socket not let go).
PROCESS_SOCKET_COLUMNS = ("tcp", "close_wait")
TOOL_LIST = LIST_TOOLS     # a sample that is no tool call (loads.tool_calls)
NOT_ASSESSED = ("not assessed: schema-1 result, written before the publishable check "
                "(no load-generator cross-checks, host probe or calibrated limit were recorded)")
# `run --twin SERVER`: an A/A twin, the same server under a second name with a setting no server reads, measured
# in the same rounds. Its record's what_if says so; the report tests it against its original as a self-check
# and never names it as an answer.
TWIN_KEY, TWIN_VALUE = "MCPBENCH_TWIN", "1"
TWIN_WHAT_IF = f"{TWIN_KEY}={TWIN_VALUE}"
TWIN_SUFFIX = "twin"


# A results file's JSON content, or a part of it, as it is written and read: the model below that names the file
# says its fields. Writers assemble it (a verdict's record(), a runtime's environment()) and write_checked validates
# it against that model before it is written.
Record = dict[str, Any]

# What a run ended as (run.json `status`), and what ended a `--rounds auto` run (run.json `stopping.stopped_by`).
RunStatus = Literal["running", "complete", "interrupted", "failed", "abandoned"]
StoppedBy = Literal["resolved", "max-rounds", "time-budget", "too-few-servers"]


# Every file of a results directory, by name: the one place a name is spelled (docs/results-format.md).
RUN_FILE = "run.json"
ERROR_LOG = "error.log"            # the traceback of a run that failed
SERVER_FILE = "server.json"
BUILD_FILE = "build.json"
BUILD_LOG = "build.log"
VERIFY_FILE = "verify.json"
IMAGE_FILE = "image.json"
CAPACITY_FILE = "capacity.json"
SOAK_FILE = "soak.json"
SUMMARY_FILE = "summary.json"       # a measurement's figures
CONTEXT_FILE = "context.json"       # what the analysis needs besides the samples
SAMPLES_FILE = "samples.csv.gz"     # every call the load generator made
COUNTS_STEM = "loadgen-counts"      # the load generator's own counts
COUNTS_FILE = f"{COUNTS_STEM}.json"
OLD_COUNTS_FILE = "k6-counts.json"   # its name before schema 4 (read, never written)
SAMPLES_LOG_STEM = "loadgen-samples"  # the generator's raw sample lines while it runs (samples.csv.gz once done)
RESOURCES_FILE = "resources.csv"    # 1 Hz CPU and memory per component
PROCESSES_FILE = "processes.csv"    # 1 Hz process-tree readings (soak)
SERVER_LOG = "server.log"
# The line the suite writes into server.log as a load test begins: what the server says after it is its own
# under load, apart from its start-up and verify's probes above it (a death's reason quotes only what follows).
LOAD_MARK = "----- mcpbench: a load test begins here -----"
SETUP_LOG = "setup.log"             # a workload file's `setup` command, run before the measurement
GENERATOR_BUILD_LOG = "load-driver-build.log"   # the load driver's build, in _infra (or the first measurement's)
API_BUILD_LOG = "api-service-build.log"         # the API service's build, in _infra
LOADGEN_LOG_STEM = "loadgen"         # the load generator's output
LOADGEN_LOG = f"{LOADGEN_LOG_STEM}.log"
OLD_LOADGEN_LOG = "k6.log"           # its name before schema 4 (read, never written)


@dataclass(frozen=True)
class Sample:
    """A row of resources.csv: one component's CPU (100 % = one core) and memory at one instant."""

    t_s: float  # wall-clock epoch seconds while sampled; written counted from the load test's start
    component: str
    cpu_pct: float
    mem_mb: float


@dataclass(frozen=True)
class ProcessSample:
    """A row of processes.csv: the server's process tree at one instant."""

    t_s: float                # epoch seconds; written counted from the scenario start
    rss_mb: float | None      # summed over the tree
    cgroup_mb: float | None   # what the limits count (cgroup / container); None where not known
    fds: int | None           # open file descriptors, summed; None when unreadable
    threads: int | None
    processes: int
    tcp: int | None = None          # TCP sockets, summed; None when unreadable
    close_wait: int | None = None   # of those, in CLOSE_WAIT

    def rebased(self, zero_epoch_s: float) -> ProcessSample:
        return dataclasses.replace(self, t_s=self.t_s - zero_epoch_s)


class ResultsError(Exception):
    """Input the report cannot use; the message says what and where, for the person at the terminal."""


# -- run.json ------------------------------------------------------------------------------------------------

class Profile(Closed):
    cpus: float = described("CPUs granted to the server (its CPU quota)")
    memory_mb: int = described("the server's memory limit, MiB")
    server_cpus: list[int] | None = described("CPUs the server is pinned to (null: not pinned)")
    harness_cpus: list[int] | None = described("CPUs of k6, Redis, the API service and the orchestrator")
    note: str | None = described("why the profile differs from the one asked for (scaled down on a small machine)")
    cpuset: str | None = described("server_cpus as a cpuset string")


class LocalGenerator(Closed):
    """A load generator run on this machine, as it describes itself (loadgen.LocalInstances.describe)."""

    name: str = described("the generator (loadgen.GENERATORS)")
    where: Literal["local"] = described("on this machine")
    instances: int = described("the processes a test was split across")


class SwarmGenerator(Closed):
    """The load driver run as tasks on a swarm's load nodes, as it describes itself (runtime/swarm_load.py)."""

    name: str = described("the generator (the swarm runs the load driver only)")
    where: Literal["swarm"] = described("on the swarm's load nodes")
    instances: int = described("the tasks a test was split across")
    nodes: list[str] = described("the node each instance runs on, in order")
    image: str = described("the load driver's image")
    image_id: str | None = described("the image's id the nodes run (null: not shipped yet)")


class LoadGeneratorConfig(Open):
    """What generated the load: the generator asked for, and the one each transport used."""

    name: str = described("the load generator asked for (loadgen.GENERATORS): `driver` (the load driver) or `k6`")
    instances: int = described("processes each HTTP test was split across")
    by_transport: dict[str, LocalGenerator | SwarmGenerator] | None = described(
        "the generator each transport used (http, stdio), as it describes itself", None)


class Pacing(BaseModel):
    """How a VU paces its calls: run.json's config, and context.json for the analysis."""

    think_time_s: float = described("a VU's pause after each iteration")
    request_timeout_s: float = described("the load generator's request timeout "
                                         "(a timed-out call counts at it in all-calls latency)")


class CapacityPlan(Closed):
    """The step test of `mcpbench capacity` (capacity.py)."""

    slo: list[str] = described("the criteria every step is judged by, e.g. `p99<100ms`, `errors<1%`")
    start_rate: float = described("the first step's arrival rate, tool calls/s")
    factor: float = described("each step's rate is the one before times this")
    max_steps: int = described("the most steps of one ladder")
    step_s: float = described("each step's measured window")
    first_warmup_s: float = described("the warm-up before the first step")


class SoakCriteria(Closed):
    """The soak's pass criteria (soak.py's named constants)."""

    rss_growth_max: float = described("end RSS / baseline RSS - 1 may reach this")
    fd_slack: list[float] = described("FDs may rise by max(n, share x baseline): [n, share]")
    thread_slack: list[float] = described("threads may rise by max(n, share x baseline): [n, share]")
    p99_drift_max: float = described("end p99 / baseline p99 may reach this")
    errors_max: float = described("failed tool calls / tool calls over the window")


class SoakPlan(Closed):
    """The constant load of `mcpbench soak` (soak.py)."""

    duration_s: float = described("the measured window")
    warmup_s: float = described("the fixed warm-up before it")
    rate: float | None = described("tool calls/s offered (null: `share` x each server's capacity)")
    share: float = described("of the measured capacity, when no rate was given")
    errors_max: float = described("the error SLO")
    criteria: SoakCriteria = described("the pass criteria")


# What a dimension's decision-page answer ranks at its point (the report reads each from that point's table).
DimensionFigure = Literal["cpu_per_call", "mem_peak", "p50_all_calls", "reclaimed", "stops_on_cancel"]
# The figures a dimension's tables show beside every point's own (the Dimensions page).
DimensionColumn = Literal["tools_list", "first_notification", "memory_rank"]
# The tables a dimension's section shows after its points' tables.
DimensionTable = Literal["session_memory", "progress_cost", "abandoned_sessions", "cancellations"]


class DimensionDecision(Closed):
    question: str = described("the decision page's question, as the page asks it, its point filled in (\"Most 4 MiB "
                              "replies per CPU-second\")")
    figure: DimensionFigure = described("what the answer ranks at that point: `cpu_per_call` (its CPU ranking, "
                                        "asked as calls per CPU-second), `mem_peak` (its peak-memory ranking), "
                                        "`p50_all_calls` (every call's p50: the section's latency ranking) or "
                                        "`reclaimed` (the servers that gave abandoned sessions back, soonest "
                                        "first: the `abandoned_sessions` table, described, not tested) or "
                                        "`stops_on_cancel` (the servers that wrote no step after a cancellation: the "
                                        "`cancellations` table, described, not tested)")
    point: str = described("the point it reads: its table's heading on the Dimensions page (a point, \"4 MiB\", or a "
                           "load of a dimension without points, \"session · 10 VUs\")")
    unit: str = described("the figure's unit as the page words it (\"replies per CPU-second\", \"MiB\")")

    @classmethod
    def asked(cls, text: str, figure: DimensionFigure, unit: str, at: int, mode: str | None,
              headings: list[tuple[str, str | None]]) -> DimensionDecision | None:
        """`text` asked at one of the section's tables (`headings`: each heading with its load's mode, in the
        section's order, dimension_headings): the `at`-th (-1: the last) among those of loads in `mode` when it
        is given, `{point}` in the text its heading; None when no table is there to ask it of."""
        candidates = [heading for heading, of in headings if mode is None or of == mode]
        if not -len(candidates) <= at < len(candidates):
            return None
        point = candidates[at]
        return cls(question=text.format(point=point), figure=figure, point=point, unit=unit)


class DimensionSection(Closed):
    columns: list[DimensionColumn] = described("figures beside each point's own: `tools_list` (tools/list's own p50 "
                                               "and its whole size as verify read it), `first_notification` (the first "
                                               "progress notification's p50), `memory_rank` (the peak-memory rank)")
    tables: list[DimensionTable] = described("tables after the points': `session_memory` (memory per open session "
                                             "between the fewest and the most held), `progress_cost` (CPU and p50 per "
                                             "progress notification between the fewest and the most), "
                                             "`abandoned_sessions` (what each server kept of sessions left open, and "
                                             "whether and when it gave it back), `cancellations` (the steps each "
                                             "server still did for calls its clients had cancelled)")
    latency_ranking: bool = described("each point's servers ranked on the all-calls p50 too (one caller in sequence: "
                                      "its throughput is the load model's by design)")
    changes: bool = described("each server's throughput and CPU per call at every point ÷ at the first, and its chart "
                              "(false where the load sets the rate between points: N sessions ÷ the think time)")


def plain_section() -> DimensionSection:
    """A dimension section that shows every point's figures and their changes from the first point, nothing more."""
    return DimensionSection(columns=[], tables=[], latency_ranking=False, changes=True)


def dimension_headings(points: list[str], modes: list[str], kind: str | None, vus: list[int],
                       rates: list[float] | None) -> list[tuple[str, str | None]]:
    """The headings of a dimension section's tables, in the section's order, each with its load's mode: its points
    (their displays), or, for a dimension without points, each load of its run (at the VUs or the rates its kind
    of load is levelled by) by mode, then level, as the report orders them (mcpbench.loads words the heading)."""
    if points:
        return [(point, None) for point in points]
    loads = load_kind(kind)
    levels = (vus if loads.level_field == "vus" else rates) or []
    return [(loads.heading(mode, level), mode) for mode, level in sorted((m, v) for m in modes for v in levels)]


class DimensionPlan(Closed):
    name: str = described("the dimension (mcpbench/dimensions/: `payload`, `tools-list`, `agent`, `churn`, `sessions`, "
                          "`progress`, or one registered from outside)")
    question: str = described("what its section answers (the Dimensions page's heading)")
    points: list[str] = described("its points in order (\"1 KiB\" …, \"100 extra tools\" …); each server measured at "
                                  "each as the twin NAME-POINT (the server record's `point`); none: the servers as "
                                  "they are")
    decisions: list[DimensionDecision] = described("its questions on the decision page, each at its point (none: it "
                                                   "asks none); a plan recorded without them is filled from its "
                                                   "name, or from its one `decision`, on reading "
                                                   "(results/upgrades.py)")
    section: DimensionSection = described("what its section of the Dimensions page shows besides every point's figures")


class Config(Closed, Pacing):
    runtime: str = described("`local` or `docker`")
    servers: list[str] = described("the servers asked for, in the order given")
    modes: list[str] = described("`session`, `stateless`, `persistent`, `stateless-2026`, `stdio`")
    vus: list[int] = described("closed-model VUs, one load each (a sweep when several)")
    runs: int = described("rounds: each measures every server once")
    shuffle: bool = described("a new random server order per round")
    kind: str = described("`closed`, or `open` when any load was open-model (rate_fractions, --load open, "
                              "capacity, soak; before 2026-11-25 capacity and soak runs said `closed`)")
    rate_fractions: list[float] | None = described("open model: fractions of round 1's closed maximum")
    rates: list[float] | None = described("open model at these offered rates, tool calls/s (`--load open`)", None)
    rounds_auto: bool = described("`--rounds auto`: rounds until the headline order was resolved, `runs` at most "
                                  "(run.json `rounds_auto` says why it stopped)", False)
    time_budget_s: float | None = described("`--rounds auto`: no round was started after this many seconds", None)
    equal_load: float | None = described("equal load: every server offered this fraction of the slowest server's "
                                         "round-1 closed rate (`--equal-load`; the rate is run.json `equal_load`)",
                                         None)
    equal_rates: list[float] | None = described("equal load at these offered rates, tool calls/s, beside the "
                                                "closed model (`--equal-rate`)", None)
    closed_once: bool = described("`--closed-once`: the closed model measured in round 1 only, where it sized the "
                                  "equal load; later rounds measured the equal load alone", False)
    prewarm_s: float | None = described("`--prewarm`: the closed model this many seconds on the same start before "
                                         "each open-model load (summary `prewarm`; null: none)", None)
    stages: list[tuple[float, float]] | None = described("`--load staged --stages`: the stages, (seconds, VUs) each "
                                                         "(null: another kind)", None)
    spike: float | None = described("`--load spike --spike`: the spike's multiple of the level (null: the "
                                    "default, 4, or another kind)", None)
    options: dict[str, Any] | None = described("the experiment's option values as given (what `--resume` runs "
                                               "again; null before 2026-11-26)", None)
    stacks_only: bool = described("`--stacks-only`: without server names, each stack once (the what-if variants "
                                  "of `mcpbench list` left out)", False)
    first_run: bool = described("`--first-run`: without server names, each SDK once (the what-if variants and the "
                                "alternatives of `mcpbench list` left out)", False)
    processes: bool = described("`--processes`: the server's processes read at 1 Hz beside each measurement "
                                "(processes.csv)", False)
    conformance: bool = described("`--conformance` (verify): the official MCP conformance suite's applicable "
                                  "scenarios run too (verify.json `conformance`)", False)
    probes: bool = described("`--probes` (verify): the robustness probes ran after each lineup server's checks "
                             "(verify.json `probes`)", False)
    experiment: str | None = described("the experiment that ran (`run`, `capacity`, `soak`, `calibrate`, `verify`; "
                                       "null before 2026-11-25)", None)
    calibrate: bool = described("the harness's limits were measured before round 1 "
                                "(and after every infrastructure restart)")
    ramp_up_s: float = described("the load's ramp-up, excluded from every figure")
    warmup_s: float = described("the (minimum) warm-up, excluded")
    warmup_cap_s: float | None = described("the adaptive warm-up's cap (null: a fixed warm-up)")
    warmup_adaptive: bool = described("the warm-up ends when throughput is steady")
    steady_span_s: float | None = described("the adaptive warm-up's span: the last this many seconds are compared with "
                                            "the span before (null before 2026-11-26: 10 s)", None)
    duration_s: float = described("the measured window")
    ramp_down_s: float = described("the load's ramp-down, excluded")
    profile: Profile = described("the server's resource limits and CPU pinning")
    load_generator: LoadGeneratorConfig | None = described("what generated the load (null: not recorded, k6)", None)
    capacity: CapacityPlan | None = described("`mcpbench capacity` only: the step test", None)
    soak: SoakPlan | None = described("`mcpbench soak` only: the constant load", None)
    dimension: DimensionPlan | None = described("`mcpbench dimension` only: which, and its points", None)
    settings: dict[str, Any] | None = described("the experiment's own settings, as its own model records them "
                                                "(`Experiment.settings()`: what no other experiment records; "
                                                "null: it has none)", None)


class Git(Open):
    """The mcpbench checkout that measured: a dirty one cannot be reproduced from its commit."""

    commit: str | None = described("the checkout's commit")
    dirty: bool | None = described("tracked files had uncommitted changes")


class CgroupSupport(Open):
    """Whether the runtime could confine the servers; when not, every result is flagged cgroup-not-applied."""

    version: int | None = described("cgroup version 1 or 2 (null: not known)")
    applied: bool | None = described("the servers' CPU and memory limits could be applied")
    note: str | None = described("why not, when they could not")


class DockerEnvironment(Open):
    """The docker runtime's part of run.json's environment: its engine (docker_engine.Engine.describe), compose,
    the base image and whether the engine can enforce the limits. Open, each field optional: run.json files
    written before it was a model of its own held what the engine said, and still read."""

    engine: str | None = described("the engine's version", None)
    api: str | None = described("the Engine API version", None)
    os: str | None = described("the engine's operating system", None)
    storage_driver: str | None = described("its storage driver", None)
    cgroup_version: int | None = described("the cgroup version the engine uses", None)
    cgroup_driver: str | None = described("its cgroup driver", None)
    cpus: int | None = described("the CPUs the engine sees", None)
    memory_gb: float | None = described("the memory the engine sees, GiB", None)
    compose: str | None = described("docker compose's version (null: not found)", None)
    project: str | None = described("the compose project of the run", None)
    base_image: str | None = described("the base image every image builds on", None)
    base_image_id: str | None = described("its id (null: not built)", None)
    limits_supported: bool | None = described("the engine can enforce the CPU and memory limits", None)
    limit_warnings: list[str] | None = described("what the engine warned about limits it cannot enforce", None)


class Environment(Open):
    hostname: str = described("the machine's host name")
    cpu_model: str = described("/proc/cpuinfo model name")
    cores: int = described("logical CPUs")
    memory_gb: float = described("total memory, GiB")
    kernel: str = described("kernel release")
    os: str = described("os-release PRETTY_NAME")
    cgroup: CgroupSupport = described("whether resource limits applied")
    tools: dict[str, str | None] = described("versions of the tools: "
                                             "redis, python, go, cargo, node, java, mvn, docker, mcpbench")
    git: Git = described("the mcpbench checkout")
    docker: DockerEnvironment | None = described("docker runtime only: engine, compose, base image, limit support",
                                                 None)


class SwarmEnvironment(Closed):
    """The swarm runtime's part of run.json's environment, under the key `swarm` (an open part's key: a run on
    another runtime has none)."""

    swarm: str = described("the swarm's name (its swarm file)")
    manager: str = described("the manager's engine address")
    stack: str = described("the run's stack")
    images_moved_by: str = described("`registry <address>` or `docker save/load`")
    nodes: list[dict[str, Any]] = described("every node's facts: hostname, role, engine, CPUs, memory, cgroup")
    images: dict[str, dict[str, Any]] = described("each image shipped, by tag: its id, the nodes it went to")
    endpoint_mode: str = described("the services' endpoint mode")
    publish_mode: str = described("how ports are published")
    network_rtt_ms: dict[str, dict[str, float] | str] | None = described(
        "each load node's round trip to the server node: median_ms, min_ms, max_ms, connects; or why not "
        "measured (null: no agents)")
    clock_offsets_ms: dict[str, float | None] = described("each node's clock minus the orchestrator's (null: the "
                                                          "node did not answer)")


class Calibration(Open):
    """The closed model's own limit for one mode (calibrate.py): what its VUs and think time allow."""

    tool_calls_per_s: float | None = described("closed model at `vus` VUs against the no-I/O endpoint, tool calls/s")
    vus: int = described("the VUs it was measured at (the largest of the run); fewer VUs allow proportionally less")
    think_time_s: float | None = described("the think time it was measured with (null: schema 2)", None)
    loadgen_cpu_pct: float | None = described("the load generator's CPU meanwhile, % of one core")
    status: str = described("the calibration measurement's status")


class HarnessStep(Closed):
    rate: float = described("the offered rate, tool calls/s")
    achieved: float = described("successful tool calls/s")
    p50_ms: float | None = described("all-calls p50")
    p99_ms: float | None = described("all-calls p99")
    dropped: int = described("arrivals that found no free VU")
    loadgen_cpu_pct: float | None = described("the load generator's CPU, % of one core")
    api_cpu_pct: float | None = described("the API service's CPU")
    redis_cpu_pct: float | None = described("Redis's CPU")
    passed: bool = described("the harness kept up (calibrate.LadderStep)")
    why: str | None = described("why not")


class HarnessCapacity(Closed):
    """The harness's open-model capacity for one mode: an arrival-rate ladder on the no-I/O endpoint."""

    tool_calls_per_s: float | None = described("the highest passing step (null: none passed)")
    stopped_by: str | None = described("what ended the ladder")
    status: str = described("`ok`, or `invalid` when the infrastructure or the generator failed under it")
    steps: list[HarnessStep] = described("every step, in order")


class CalibrationRecord(Closed):
    reason: str = described("why it was measured: before the first round, the infrastructure was restarted")
    infra_start: int = described("which Redis/API pair it measured (1: the first)")
    calibration: dict[str, Calibration] | None = described("per mode, the closed model's limit")
    harness_capacity: dict[str, HarnessCapacity] | None = described("per mode, the harness's open-model capacity")


class ServerStart(BaseModel):
    """The server's start-up and idle figures, as run.json (its last start) and summary.json (this
    measurement's start; null in a calibration) record them."""

    startup_s: float | None = described("start to first answered initialize", None)
    idle_mem_mb: float | None = described("memory before the load (cgroup)", None)
    idle_rss_mb: float | None = described("summed RSS of its process tree before the load", None)


class ServerStatus(Open, ServerStart):
    status: Literal["ok", "failed", "invalid", "unavailable", "running", "pending"] = described(
        "`unavailable`: this machine lacks what it needs; `invalid`: a measurement could not be trusted for "
        "reasons not its own")
    phase: str | None = described("where a failed server stopped: build, start, verify, load, collect, infra")
    reason: str | None = described("why, in one message")
    measurements: list[str] = described("its measurement ids, in the order measured")
    runtime_version: str | None = described("what the interpreter or VM said it is (manifest version_args)", None)
    image_size_mb: float | None = described("docker runtime only: its image size", None)
    cold_start_s: float | None = described("docker runtime only: container start to first initialize", None)
    unsupported_modes: dict[str, str] | None = described(
        "modes not measured because the server's SDK does not accept their protocol revision: mode -> why", None)


class EqualRate(Closed):
    """The rate an equal load offered every server in one mode, and what set it (analysis/equal_load.py)."""

    fraction: float = described("of the slowest server's round-1 closed rate")
    rate: float = described("the offered rate, tool calls/s: the lower of the two bounds below")
    slowest: str = described("the server with the lowest round-1 closed rate")
    slowest_tool_calls_per_s: float = described("its rate")
    harness_cap: float | None = described("the cap: a share of the harness's open-model capacity (null: not "
                                          "calibrated, no cap)")
    set_by: Literal["slowest-server", "harness-capacity"] = described("which bound set the rate")


class PairLook(Closed):
    """One adjacent pair of the headline ranking at a look (analysis/sequential.py judge)."""

    better: str = described("ahead on the headline metric")
    worse: str = described("behind it")
    rounds: int = described("rounds both were measured in")
    ratio: float | None = described("geometric mean of worse / better over those rounds")
    low: float | None = described("its interval's low end (1 - 2 alpha / m, m adjacent pairs)")
    high: float | None = described("its high end")
    p_holm: float | None = described("the pair's Holm-corrected p-value over every pair of the look")
    state: Literal["ordered", "equivalent", "open"] = described("ordered: corrected p < alpha; equivalent: the "
                                                                "interval within ± the margin; else open")


class Look(Closed):
    round: int = described("the look came after this round")
    seconds: float = described("the run's elapsed time then")
    pairs: list[PairLook] = described("every adjacent pair of the headline ranking")
    resolved: bool = described("no pair open")


class RoundsAuto(Closed):
    """How `--rounds auto` decided (analysis/sequential.py)."""

    procedure: str = described("the stopping rule, in words")
    alpha: float = described("the level each look tests at: the level the report ranks this run at")
    margin: float = described("equivalent within ± this share")
    max_rounds: int = described("the cap on rounds")
    time_budget_s: float | None = described("the time cap (null: none)")
    headline: str = described("the ranking the rule watched, e.g. `session-equal0.7 cpu_ms_per_call`")
    looks: list[Look] = described("every look, in order")
    stopped_by: StoppedBy | None = described(
        "why no further round was measured (null: still running, or interrupted)")
    rounds: int | None = described("rounds measured")
    rounds_by_server: dict[str, int] | None = described("rounds each server was measured in")


class Orchestrator(Closed):
    """The process that writes the run (results/liveness.py): enough to tell, later, whether it still runs."""

    pid: int = described("its process id")
    started_epoch: float = described("its start time, seconds since the epoch (a reused pid starts later)")
    boot_id: str | None = described("the kernel's boot id (another one: the machine rebooted since)")
    hostname: str = described("the machine it runs on (another one cannot be checked)")


class Abandoned(Closed):
    detected_at: str = described("ISO-8601: when a later `mcpbench` start found the orchestrator gone")
    last_measurement: str | None = described("`<server>/<measurement>`: the last one finished (null: none)")


class Resume(Closed):
    at: str = described("ISO-8601: when `mcpbench run --resume` continued the run")
    previous_status: str = described("the status it continued from (`interrupted`, `abandoned`, `failed`)")
    kept: int = described("finished measurements kept, not measured again")
    set_aside: list[str] = described("measurements the stop cut short: kept as `<dir>.incomplete`, measured again")
    host_changed: list[str] = described("the fingerprint fields that differ from the run's host (empty: the same)")
    recalibrated: bool = described("the harness's limits were measured again (the host changed, or no calibration "
                                   "had finished)")
    elapsed_before_s: float = described("the run's measuring time before it (a `--time-budget` counts it)")


class Run(Closed):
    schema_: SchemaVersion = Field(alias="schema", description="the results format version (SCHEMA)")
    run_id: str = described("UTC `YYYYmmdd-HHMMSS-<runtime>`")
    status: RunStatus = described(
        "`interrupted`: Ctrl-C or SIGTERM; `failed`: an orchestrator error; `abandoned`: the orchestrator died "
        "without a word (SIGKILL, OOM, a reboot), found by a later start")
    started_at: str = described("ISO-8601")
    finished_at: str | None = described("ISO-8601, null while running")
    error: str | None = described("status `failed`: the one-line error that stopped the suite")
    config: Config = described("the configuration")
    environment: Environment = described("the machine and tools")
    calibration: dict[str, Calibration] | None = described(
        "per mode, the closed model's own limit now in force (null: --no-calibrate, open loads only, or schema 1)")
    harness_capacity: dict[str, HarnessCapacity] | None = described(
        "per mode, the harness's open-model capacity now in force (null: no open-model load, or not calibrated)", None)
    calibrations: list[CalibrationRecord] | None = described(
        "every calibration of the run in order: before round 1 and after each infrastructure restart", None)
    rounds: list[list[str]] | None = described("each round's server order (null: schema 1)")
    equal_load: dict[str, EqualRate] | None = described("per mode, the equal load's rate, set after round 1 "
                                                         "(null: no --equal-load)", None)
    rounds_auto: RoundsAuto | None = described("`--rounds auto`: every look and why it stopped (null: fixed rounds)",
                                               None)
    servers: dict[str, ServerStatus] = described("per server: status and start-up figures")
    orchestrator: Orchestrator | None = described("the process writing the run (null before 2026-11-26)", None)
    abandoned: Abandoned | None = described("status `abandoned`: when it was found and where it stopped", None)
    resumes: list[Resume] | None = described("every `mcpbench run --resume` of the run, in order (null: none)", None)


# -- <server>/: server.json, build.json, verify.json, image.json ----------------------------------------------

# How server.json names a dimension's own calls (`dimension:payload:1mib`): not a file of the reader's.
DIMENSION_WORKLOAD = "dimension:"


class Server(Open):
    name: str = described("the server's directory name under servers/")
    display_name: str = described("its name in the report")
    language: str = described("programming language")
    runtime: str = described("what runs it")
    sdk: str = described("the MCP SDK")
    sdk_version: str | None = described("its version")
    framework: str | None = described("the HTTP framework")
    protocols: list[str] | None = described("MCP protocol revisions its SDK accepts (null: not recorded)", None)
    sdk_kind: str | None = described("official, community, framework or none: what kind of MCP layer (null: not "
                                     "recorded)", None)
    build: list[str] = described("the manifest's build commands")
    run: list[str] = described("the manifest's run command")
    stdio: list[str] | None = described("the manifest's stdio command (null: HTTP only)", None)
    workload: str | None = described("the workload file it was measured with (null: the lineup's, "
                                     "workload/lineup.toml; `dimension:payload:1mib`: a dimension's own calls, "
                                     "mcpbench/dimensions/)", None)
    point: str | None = described("`mcpbench dimension`: the point this twin measures (\"1 MiB\", \"100 extra "
                                  "tools\"); its base server is `variant_of`", None)
    url: str | None = described("a server already running, measured where it is (--url): nothing started, "
                                "limited or read of it (null: the suite started it)", None)
    variant_of: str | None = described("the server this one is a variant of (null: a manifest's base server)", None)
    what_if: str | None = described("the question a what-if variant answers (its manifest's `what_if`, or a "
                                    "`--what-if` twin's KEY=VALUE; a `--twin`'s is TWIN_WHAT_IF); the report pairs "
                                    "it with `variant_of`", None)
    alternative_to: str | None = described("the server whose SDK this one measures again around another framework, "
                                          "runtime or layer (its manifest's `alternative_to`; `--first-run` leaves "
                                          "it out unless named)", None)
    overrides: dict[str, str] | None = described("the environment `--what-if` set over the manifest's (only on a "
                                                 "`--what-if` twin)", None)


class Build(Closed):
    status: Literal["ok", "failed", "skipped"] = described("`skipped`: this machine lacks the toolchain")
    seconds: float = described("how long the build took")
    reason: str | None = described("why it failed or was skipped")
    log: str | None = described("the build log's file name, beside build.json")
    command: str | None = described("the build commands as run, `&&`-joined (null: none, or a docker image build)",
                            None)


# verify.json is Verify: made in workload/ (below this layer), so its records are defined there once
# (workload/verify.py Verify and ToolsListed, checks.py Check, conformance.py Conformance).


class Image(Open):
    """What a container runtime knows of a server's image (runtime/docker.py image_details): image.json, and the
    server's entry of run.json. A field its writer did not set (build_s where this run did not build it, the
    swarm's node) is not written (results/write.py write_record)."""

    runtime: str | None = described("the runtime that ran it: `docker`, `swarm`", None)
    image: str = described("docker runtime only: the image tag")
    image_id: str | None = described("the image's id (the one the server ran)", None)
    image_size_mb: float | None = described("its size, MB")
    image_own_layers_mb: float | None = described("its size above the base image, MB", None)
    base_image: str | None = described("the base image it builds on", None)
    base_image_id: str | None = described("the base image's id", None)
    image_created: str | None = described("when the image was built (the engine's Created)", None)
    build_s: float | None = described("how long its build took", None)
    cold_start_s: float | None = described("container start to first initialize", None)
    node: str | None = described("swarm runtime only: the node the server ran on", None)
    node_id: str | None = described("swarm runtime only: that node's id", None)
    service: str | None = described("swarm runtime only: the server's service", None)


# -- <measurement>/summary.json, context.json, loadgen-counts.json -------------------------------------------------

# What a measurement ended as (summary.json `status`).
MeasurementStatus = Literal["ok", "failed", "invalid"]


class Warmup(Closed):
    used_s: float | None = described("the warm-up this measurement got")
    min_s: float | None = described("its lower bound")
    cap_s: float | None = described("its cap")
    steady: bool | None = described("true: steady; false: hit the cap; null: a fixed warm-up, not assessed")


class Window(Closed):
    start_s: float = described("window start, seconds since the load test started")
    end_s: float = described("window end (exclusive)")
    seconds: float = described("its length")


class Throughput(Closed):
    tool_calls_per_s: float = described("successful tool calls ended in the window / window seconds (primary)")
    successful_tool_calls: int = described("their count")
    tool_calls: int = described("every tool call ended in the window")
    v2_rps: float | None = described("the v2 study's requests (initialize + tools/call + tools/list) / window s")
    v2_requests: int | None = described("their count")
    v2_rps_whole_run: float | None = described("the same over the whole load test, as the study counted it")
    v2_requests_whole_run: int | None = described("their count")
    loadgen_run_s: float | None = described("the load generator's scenario start to its exit")
    http_rps: float | None = described("every HTTP request / window s (schema 1's v2_rps)")
    http_requests: int = described("their count")
    iterations_per_s: float = described("tools/list samples / window s (closed model: iterations)")
    dropped_iterations: int = described("open model: offered calls never started in the window")


class LatencyStats(Closed):
    count: int = described("samples")
    avg: float | None = described("mean, ms")
    min: float | None = described("fastest, ms")
    p50: float | None = described("median, ms (linear interpolation)")
    p90: float | None = described("90th percentile, ms")
    p95: float | None = described("95th percentile, ms")
    p99: float | None = described("99th percentile, ms")
    p999: float | None = described("99.9th percentile, ms")
    max: float | None = described("slowest, ms")


class Latency(Closed):
    tool_call: LatencyStats = described("successful tool calls' tools/call request")
    tool_call_all: LatencyStats | None = described("every tool call: a failure at its observed time, a timeout at "
                                           "the timeout (what SLOs use; null: schema 1)")
    per_tool: dict[str, LatencyStats] = described("tool_call per counted call, by its samples' name (a tool, or a "
                                                  "method call a workload made an arrival)")
    session: LatencyStats = described("successful tool calls' whole session")
    http_request: LatencyStats = described("every HTTP request of the successful samples")
    v2_tools_call: LatencyStats | None = described("every tools/call request sent, pooled (null: schema 1)")
    steps: dict[str, LatencyStats] | None = described(
        "each request of the successful samples apart, by step: session mode's initialize, "
        "notifications/initialized, each method's request (tools/call, tools/list, and any other method a workload "
        "called, such as resources/read), DELETE (http_ms read in the order the load sends them; a paged list is "
        "all its pages, as the load driver follows nextCursor); another mode's requests by method (null: analysed "
        "before steps were; `mcpbench upgrade` adds them)", None)
    handshake_share: float | None = described(
        "session mode: the median share of a tool call's session spent in initialize + "
        "notifications/initialized (null: another mode, or analysed before)", None)
    first_progress: LatencyStats | None = described(
        "successful tool calls that streamed progress: their first notifications/progress's arrival, from the "
        "call's start (samples' first_ms; null: no call streamed)", None)


class Errors(Closed):
    count: int = described("failed samples, tools/list included")
    failed_tool_calls: int | None = described("failed tool calls (null: schema 1)")
    rate: float | None = described("failed tool calls / tool calls")
    kinds: dict[str, int] = described("failed samples per error kind")


class ComponentFigures(Closed):
    cpu_avg_pct: float | None = described("mean CPU in the window, % of one core")
    cpu_peak_pct: float | None = described("highest 1 s CPU sample")
    mem_avg_mb: float | None = described("mean memory, MiB")
    mem_peak_mb: float | None = described("highest memory sample")
    samples: int = described("1 Hz samples in the window")


class Efficiency(Closed):
    """Figures the harness cannot cap: they rank servers even where the load generator limits throughput."""

    cpu_ms_per_call: float | None = described("server CPU ms per successful tool call")
    mem_peak_mb: float | None = described("the server's peak memory")


class ProbeReading(Closed):
    """One CPU's fixed-work speed probe (sha256 of 128 MiB), the server frozen meanwhile: its readings
    (context.json)."""

    before_s: float | None = described("just before the load, fastest of its runs (3; 5 before 2026-12)")
    after_s: float | None = described("the same just after")


class Probe(ProbeReading):
    """The probe's readings and how far they moved (summary.json)."""

    change: float | None = described("after / before - 1 (null: a reading is missing)", None)


class Pinning(BaseModel):
    """Where the server and the harness ran (summary.json's host, context.json)."""

    server_cpus: list[int] = described("the server's CPUs")
    harness_cpus: list[int] = described("the harness's CPUs")


class Host(Closed, Pinning):
    probe: dict[str, Probe] = described("per CPU, the speed probe")
    probe_server_paused: bool | None = described("the server was frozen while probing (null: not recorded)", None)
    steal_pct: dict[str, float | None] = described("per CPU, % of the window stolen by the hypervisor")
    busy_pct: dict[str, float | None] = described("per CPU, % busy")
    unstable: bool = described("a probe moved or steal was high: flag unstable-host")
    reasons: list[str] = described("why")


class Limit(Closed):
    kind: str | None = described("`load-model` (closed model: its own limit at these VUs) or `harness-capacity` "
                                 "(open model: the harness's) — null: no calibrated limit (flag limit-unknown)")
    tool_calls_per_s: float | None = described("the limit, tool calls/s")
    fraction: float | None = described("closed: throughput / limit; open: offered rate / limit")


class Checks(Closed):
    loadgen_exit_code: int | None = described("the load generator's exit code (k6: 105 when ended by the orchestrator)")
    loadgen_stopped_early: bool = described("the orchestrator ended the generator at the window's end")
    loadgen_iterations: int | None = described("the generator's own iteration count (loadgen-counts.json)")
    loadgen_http_reqs: int | None = described("the generator's own HTTP request count")
    loadgen_cursor_pages: int | None = described(
        "tools/list pages the generator fetched after a first, following result.nextCursor (over HTTP in "
        "loadgen_http_reqs, not in the samples: a sample holds a paged list as one duration, all its pages'); "
        "null: a generator that does not follow cursors (k6, drivers before it did), so a paged server's load "
        "fetched the first page only",
        None)
    sample_iterations: int = described("iterations the samples hold")
    sample_http_reqs: int = described("HTTP requests the samples hold")
    count_gap: float | None = described("the larger relative gap of the two counts")
    last_sample_s: float | None = described("the last sample's end")
    empty_seconds: int = described("seconds of the window without a sample")
    idle_seconds: int | None = described("seconds of the window without a sample and without any call in flight: "
                                         "the generator sent nothing (a problem)", None)
    loadgen_stalled_s: float | None = described("seconds of the window in which the generator itself did not run "
                                                "(its counts' stalls_s: stopped, starved of CPU; a problem)", None)
    timed_out: int | None = described("requests in flight during the window that timed out (docs/faults.md)", None)
    timeouts_noticed_late: int | None = described("of those, the ones the generator noticed more than 2 s after their "
                                                  "timeout: the generator was not running", None)
    last_answer_s: float | None = described("the last sample that was not a timeout (an answer of any kind)", None)
    littles_law: dict[str, float] | None = described("L = lambda x W, as the load's kind reads it (closed: vus, "
                                             "predicted, gap…; open: arrivals_per_s, in_flight…)")
    problems: list[str] = described("each failed cross-check: the measurement is invalid")


class Prewarm(Closed):
    """`run --prewarm S`: the closed model at the load's VUs for S seconds on the same start, before the measured
    load, nothing of it recorded but its rate (a JIT compiles with work, not with time)."""

    seconds: float = described("how long the pre-warm load was held")
    vus: int = described("its VUs (closed model)")
    calls_per_s: float = described("the successful tool calls per second it reached")


class StageFigures(Closed):
    """One stage of a staged load or a spike (summary `stages`): the figures of its span of the test."""

    name: str = described("`stage 1`, `stage 2`…; a spike's `before`, `spike`, `after`")
    start_s: float = described("its start, seconds since the load test started")
    end_s: float = described("its end (exclusive)")
    target: float = described("the VUs it reaches (from the last stage's, linearly)")
    tool_calls_per_s: float = described("successful tool calls ended in it / its seconds")
    p50_ms: float | None = described("every tool call's latency (failures at their time, timeouts at the timeout)")
    p95_ms: float | None = described("the same, p95")
    p99_ms: float | None = described("the same, p99")
    errors: int = described("failed tool calls ended in it (a timeout counted where it ended)")
    error_rate: float | None = described("failed tool calls / tool calls (null: none)")
    cpu_avg_pct: float | None = described("the server's mean CPU, % of one core (its 1 Hz samples in the span)")
    mem_avg_mb: float | None = described("the server's mean memory, MiB")
    mem_peak_mb: float | None = described("the server's highest memory sample")


class Recovery(Closed):
    """A spike's recovery (summary `recovery`): how long after the spike the p99, in 1 s buckets, took to return
    within 10 % of its level before the spike."""

    bucket_s: float = described("the buckets' width: each bucket's p99 is of the tool calls that ended in it")
    tolerance: float = described("within this share of the level before the spike counts as recovered")
    before_p99_ms: float | None = described("the median of the buckets' p99 before the spike (the level)")
    spike_p99_ms: float | None = described("the highest bucket p99 during the spike")
    spike_end_s: float = described("when the spike ended, seconds since the load test started")
    recovered_at_s: float | None = described("the start of the first bucket after it within the tolerance")
    recovery_s: float | None = described("recovered_at_s - spike_end_s (0: the p99 never left the band; null: "
                                         "not recovered before the test ended)")


class Summary(RecordedLoad, ServerStart):
    schema_: SchemaVersion = Field(alias="schema", description="the results format version (SCHEMA)")
    server: str = described("the server (`calibrate` for the harness's calibration)")
    run: int = described("the round")
    round_order: int | None = described("its position in the round (null: calibration, schema 1)", None)
    status: MeasurementStatus = described("`failed`: the server failed; `invalid`: not to be trusted, not the "
                                          "server's doing")
    phase: str | None = described("`loadgen` (its cross-checks failed), `infra`, `load`…")
    reason: str | None = described("why")
    warmup: Warmup | None = described("the warm-up (null: calibration)")
    window: Window = described("the measured window")
    throughput: Throughput = described("throughput figures")
    latency_ms: Latency = described("latency populations")
    errors: Errors = described("errors in the window")
    resources: dict[str, ComponentFigures] = described("per component of resources.csv")
    efficiency: Efficiency = described("figures the harness cannot cap")
    host: Host | None = described("host stability (null: schema 1)")
    limit: Limit = described("the harness limit this load is judged against and the share reached")
    checks: Checks | None = described("the load generator cross-checked (null: schema 1)")
    flags: list[str] = described("bound:*, errors, noisy-host, unstable-host, …")
    foreign_cpu_pct: float | None = described("CPU of programs other than ours in the window, % of one core")
    publishable: bool | None = described("ok, every check passed, no flag (null: schema 1, not assessed)")
    unpublishable_reasons: list[str] = described("every cause")
    seed_s: float | None = described("Redis re-seed before the measurement", None)
    prewarm: Prewarm | None = described("work the server was given on the same start before this load (null: none)",
                                        None)
    stages: list[StageFigures] | None = described("a staged load's or a spike's figures per stage (null: a load at one "
                                                  "level)", None)
    recovery: Recovery | None = described("a spike's p99 recovery time (null: no spike)", None)
    repeated: str | None = described("set aside: the host disturbed it (noisy-host, unstable-host), so it was "
                                     "measured again on a fresh start in the directory named here; the report "
                                     "does not use it", None)


class LoadgenCounts(Closed):
    """loadgen-counts.json: the load generator's own counts (k6-counts.json before schema 4)."""

    iterations: int | None = described("complete iterations")
    http_reqs: int | None = described("HTTP requests sent")
    dropped_iterations: int | None = described("iterations that could not start: no free VU (open model)")
    # The load driver's own (benchmark/load-driver), absent from k6's:
    calls: int | None = described("the driver's samples written (every call, tools/list included)", None)
    driver_cpu_s: float | None = described("the driver's own CPU time, user + system, s (not a stdio server's)",
                                           None)
    start_lag_p99_ms: float | None = described("open model: p99 of how late iterations started against their "
                                               "schedule (coordinated omission shows here)", None)
    start_lag_max_ms: float | None = described("open model: the latest start against the schedule", None)
    max_vus_used: int | None = described("the most VUs the driver ran", None)
    startup_s: float | None = described("stdio: the server's start to its initialize reply, s", None)
    garbage_lines: int | None = described("stdout lines of the stdio server that were no JSON-RPC message", None)
    server_messages: int | None = described("requests and notifications the stdio server sent (ignored)", None)
    late_replies: int | None = described("replies to no waiting call (after its timeout, or a null id)", None)
    cursor_pages: int | None = described("tools/list pages fetched after a first, following result.nextCursor "
                                         "(over HTTP also in http_reqs; a sample holds its whole list)", None)
    sessions_left_open: int | None = described("an abandoning workload's sessions the server issued an id for, never "
                                               "DELETEd (0: it issued none)", None)
    oldest_session_status: int | None = described("an abandoning workload's first session left open, pinged under "
                                                  "its id once the load and its watch were over: the HTTP status "
                                                  "(200: still held; 404: let go)", None)
    streams_dropped: int | None = described("a drop_stream workload's GET streams whose TCP connection the client "
                                            "dropped unread while the server had them open (200, or held "
                                            "unanswered for 1 s)", None)
    requests_unread: int | None = described("an abandoning workload over stdio: the requests sent while the client "
                                            "read no reply (from the load's start to its watch)", None)
    requests_not_taken: int | None = described("of those, the ones the server did not take from its stdin within the "
                                               "request timeout: it had stopped reading its input (back-pressure)",
                                               None)
    answered_after_watch: bool | None = described("an abandoning workload over stdio: whether the server answered a "
                                                  "ping within 5 s once the client read again and the watch was over "
                                                  "(the backlog it had queued is late_replies)", None)
    cancelled_by_notice: int | None = described("calls the client cancelled part-way with notifications/cancelled "
                                                "(a workload's cancel_after_ms; in a session and over stdio)", None)
    cancelled_by_close: int | None = described("calls the client cancelled part-way by closing the response stream "
                                               "(stateless HTTP)", None)
    cancel_replies: int | None = described("replies that still came to a call after its notifications/cancelled "
                                           "(the spec says a server should not send one; null: none was listened "
                                           "for, a closed stream brings none)", None)
    steps_before_cancel: int | None = described("steps the cancelled calls' work lists hold from before each "
                                                "cancellation (their work_list in Redis)", None)
    steps_after_cancel: int | None = described("steps they hold from after it: work the server did for a call the "
                                               "client had cancelled, read 2 s after the last cancellation", None)
    cancelled_worked_on: int | None = described("cancelled calls with any step after the cancellation", None)
    work_unread: str | None = described("why the work lists could not be read (null: read, or none to read)", None)
    stalls_s: list[tuple[float, float]] | None = described("spans (s from the scenario start) in which the driver "
                                                            "itself did not run for over 1 s: stopped, or starved "
                                                            "of CPU (its liveness; docs/faults.md)", None)
    error: str | None = described("why the stdio driver failed (null: it did not)", None)

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The counts the generator wrote, no more: k6 writes three of them, the load driver every one (a count
        a generator does not keep is no null in its file, nor in the context.json that copies it)."""
        return {name: value for name, value in handler(self).items() if name in self.model_fields_set}


class LoadInstance(Closed):
    node: str = described("the swarm node it ran on")
    node_cpus: int | None = described("that node's CPUs (its load generator bound: bound:loadgen)", None)
    clock_offset_ms: float = described("that node's clock minus the orchestrator's, measured before the test "
                                       "(its samples' start is corrected by it; flag clock-offset beyond 100 ms)")
    clock_rtt_ms: float = described("the round trip the offset was measured over (its uncertainty is half this)")
    exit_code: int | None = described("the instance's exit code (-1: its node stopped answering)")


class Context(MeasuredLoad, Pacing, Pinning):
    harness_cores: int = described("CPUs of the harness (saturation thresholds)")
    limits_applied: bool = described("false: flag cgroup-not-applied")
    limit_kind: str | None = described("the limit the load is judged against (`load-model`, `harness-capacity`; "
                                       "null: none)", None)
    limit_calls_per_s: float | None = described("its rate, tool calls/s", None)
    calibration: bool = described("the harness's calibration itself (judged against no limit)", False)
    loadgen_exit_code: int | None = described("the load generator's exit code")
    loadgen_stopped_early: bool = described("ended at the window's end (k6: exit 105 expected)")
    loadgen_counts: LoadgenCounts | None = described("loadgen-counts.json")
    loadgen_run_s: float | None = described("the generator's scenario start to exit")
    host_probe: dict[str, ProbeReading] | None = described("per CPU, the speed probe")
    probe_server_paused: bool | None = described("the server was frozen while probing", None)
    warmup: Warmup | None = described("the warm-up")
    load_instances: list[LoadInstance] | None = described(
        "load generator instances on other hosts (swarm), each with its node and clock (null: on this machine)", None)
    iteration: list[str] | None = described(
        "the closed model's iteration: its samples' names in order, each call `weight` times (null: the lineup's "
        "three tools and tools/list)", None)
    calls: dict[str, CallKind] | None = described(
        "each call of the workload by its samples' name: its method and whether it is counted (null: the "
        "lineup's: its tools counted, tools/list not)", None)
    stages: list[tuple[float, float, float, str]] | None = described(
        "the spans the summary gives figures of (start_s, end_s, target, name; null: the window alone)", None)
    spike_s: tuple[float, float] | None = described("a spike's start and end, s (null: no spike)", None)


# Every file of a results directory the model defines, by name (docs/results-format.md's tables).
class CapacityStep(Closed):
    rate_offered: float = described("the step's arrival rate, tool calls/s")
    rate_achieved: float = described("successful tool calls/s in its window")
    p50_ms: float | None = described("all-calls latency (failures and timeouts included)")
    p95_ms: float | None = described("the same, p95")
    p99_ms: float | None = described("the same, p99")
    error_rate: float | None = described("failed tool calls / tool calls")
    dropped_iterations: int = described("offered calls never started")
    cpu_avg_pct: float | None = described("the server's mean CPU, % of one core")
    mem_peak_mb: float | None = described("the server's peak memory")
    criteria: dict[str, bool] = described("each SLO criterion: held or not")
    flags: list[str] = described("the step's summary flags")
    passed: bool = described("every criterion held, the server kept up and the harness did not limit it")
    stop: str | None = described("why the ladder ended at this step (null: it went on)")
    measurement: str = described("the step's measurement directory")
    stop_kind: str | None = described(
        "what ended the ladder here: slo, saturated (the server's limit), invalid, harness-bound, "
        "harness-capacity (null: it went on, or a file that predates it: read from `stop`)", default=None)


class CapacityRound(Closed):
    mode: str = described("the session mode of the ladder")
    run: int = described("the round")
    capacity_calls_per_s: float | None = described(
        "the highest step that passed with every step below it (null: none did)")
    lower_bound: bool | None = described(
        "the ladder ended on something other than the server (max steps, the harness, an invalid step, an "
        "interruption): the capacity is only a lower bound (null: a file that predates it; readers compute it "
        "again from the steps, capacity.ladder_verdict)", default=None)
    trustworthy: bool = described("the deciding steps ran on a steady host, under the server's limits, "
                                  "unlimited by the harness, and none was invalid")
    doubts: list[str] = described("the flags of the deciding steps that make it untrustworthy")
    below_first_step: bool = described("the server failed even the first step")
    next_step_calls_per_s: float | None = described(
        "the step the server failed: its true limit lies in between (null for a lower bound)")
    stopped_by: str = described("slo broken, server saturated, harness capacity, max steps, or a failed step")
    stop_kind: str | None = described("the last step's stop_kind, or max-steps / interrupted", default=None)
    steps: list[CapacityStep] = described("every step measured, in order")


class Capacity(Closed):
    """capacity.json: one server's ladders, a round each."""

    schema_: SchemaVersion = Field(alias="schema", description="the results format version (SCHEMA)")
    server: str = described("the server")
    plan: CapacityPlan = described("the step test")
    rounds: list[CapacityRound] = described("one ladder per round and mode")


class SoakCriterion(Closed):
    value: float | None = described("the figure judged (null: not measured)")
    limit: float = described("what it may reach")
    verdict: Literal["pass", "fail", "not measured"] = described("its outcome")
    detail: str = described("what was seen")


class SoakBucket(Closed):
    t_s: float = described("the bucket's start, from the window's start")
    calls: int = described("tool calls that ended in it")
    errors: int = described("of them failed")
    p50_ms: float | None = described("all-calls p50")
    p99_ms: float | None = described("all-calls p99 (null: too few calls for a p99)")


class SoakSlope(Closed):
    mb_per_h: float = described("least-squares slope over the window, per hour (MiB; FDs for `fds`)")
    ci_low: float = described("its 95 % interval, from the effective sample size of autocorrelated readings")
    ci_high: float = described("")
    lag1: float | None = described("lag-1 autocorrelation of the residuals (null: written before it was used)",
                                   default=None)
    n_eff: float | None = described("effective sample size n (1 - lag1) / (1 + lag1)", default=None)


class SoakWindow(Closed):
    start_s: float = described("after the warm-up, from the scenario start")
    end_s: float = described("where the data ends")
    planned_end_s: float = described("where it was to end")
    measured_s: float = described("seconds judged")


class SoakMemory(Closed):
    rss_mb: float | None = described("median RSS of the stretch")
    cgroup_mb: float | None = described("median memory the cgroup/container counts")


class SoakSlopes(Closed):
    rss: SoakSlope | None = described("RSS (null: too few readings)")
    cgroup: SoakSlope | None = described("the cgroup's memory")
    fds: SoakSlope | None = described("open file descriptors (null: no change, or written before it was)",
                                      default=None)


class SoakMeasured(Closed):
    """What the suite knew of a soak when it ran it: kept as recorded when the soak is judged again."""

    schema_: SchemaVersion = Field(alias="schema", description="the results format version (SCHEMA)")
    server: str = described("the server")
    mode: str = described("the session mode")
    rate: float = described("tool calls/s offered")
    rate_from: str = described("`given`, or the capacity run it is a share of")
    measurement: str = described("the measurement directory (summary.json, samples, processes.csv)")
    status: Literal["ok", "failed", "invalid"] = described("the measurement's status")
    interrupted: bool = described("stopped early (Ctrl-C): judged on what was measured")
    doubts: list[str] = described("host or harness flags of the measurement: a p99 drift may be the host's")


class SoakJudgement(Closed):
    """What the soak's criteria conclude from its data (analysis/soak.py judge): readers judge it again from the
    data by today's rules."""

    verdict: Literal["pass", "fail", "not measured"] = described("fail if a criterion failed")
    criteria: dict[str, SoakCriterion] = described("alive, rss, fds, threads, p99, errors (alive: absent before "
                                                   "2026-11-25; readers judge a soak again from its data)")
    window: SoakWindow = described("what was judged")
    stopped_early: bool = described("the data ends before the planned end")
    baseline: SoakMemory = described("the first stretch of the window")
    end: SoakMemory = described("the last stretch")
    slopes: SoakSlopes = described("memory per hour over the window")
    bucket_s: float = described("p99 bucket length (a minute; shorter for a short soak)")
    buckets: list[SoakBucket] = described("per bucket: calls, errors, p50, p99")


class SoakResult(SoakJudgement, SoakMeasured):
    """soak.json: one server's soak (what was measured, first), judged."""


# The result files an experiment writes per server beside its measurements, each with its model: the report
# reads every one into its ServerRecord.results, `mcpbench upgrade` upgrades each and judges it again through
# the analysis module that declares it (RESULT_FILE + rejudge_result, analysis/recompute.py). A new experiment
# with a file of its own adds its model and one entry here.
EXPERIMENT_RESULTS: dict[str, type[BaseModel]] = {CAPACITY_FILE: Capacity, SOAK_FILE: SoakResult}

FILES: dict[str, type[BaseModel]] = {
    RUN_FILE: Run, SERVER_FILE: Server, BUILD_FILE: Build, VERIFY_FILE: Verify, IMAGE_FILE: Image,
    SUMMARY_FILE: Summary, CONTEXT_FILE: Context, COUNTS_FILE: LoadgenCounts, **EXPERIMENT_RESULTS,
}


M = TypeVar("M", bound=BaseModel)


def parsed(model: type[M], data: Any, where: Path | str) -> M:
    """`data` as the object `model` describes: the typed record the code carries. A mismatch is a ResultsError
    naming the file and the field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(the file)"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ResultsError(f"{where}: {field}: {first['msg']}{more}") from None


def assign(record: BaseModel, where: str, **fields: Any) -> None:
    """Values set on a typed record, each checked as it is set (validate_assignment); a mismatch is a
    ResultsError naming `where` (the file and the record's place in it) and the field."""
    for name, value in fields.items():
        try:
            setattr(record, name, value)
        except ValidationError as exc:
            raise ResultsError(f"{where}.{name}: {exc.errors()[0]['msg']}") from None


def document(record: BaseModel) -> dict[str, Any]:
    """A typed record as its file holds it (aliases, extra keys of open parts kept)."""
    return record.model_dump(by_alias=True)


def validated(model: type[BaseModel], data: Any, where: Path | str) -> dict[str, Any]:
    """`data` checked against `model`, back as a plain dict with every field the model names (defaults
    filled, extra keys of open parts kept). A mismatch is a ResultsError naming the file and the field."""
    return document(parsed(model, data, where))
