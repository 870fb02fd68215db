"""The dimensions (`mcpbench dimension`, issue 37) as the report sees them, for the Dimensions page and the
decision page's questions: per dimension run, every server at every point — ranked at each point with the
headline's rules (consolidate.rank: the moderated pair tests, Holm over the point's servers, a harness-limited
result never ranked) — and how each server's throughput and CPU per call move from the first point to each
other one (stats.speedups, the A/B page's paired t on the log ratio, simultaneous over the server's points). And,
from any session-mode run, the handshake's share of a session per server (summary latency_ms.handshake_share)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from mcpbench.analysis.abandoned import Abandonment, abandonment
from mcpbench.analysis.cancellation import Cancellation, cancellation
from mcpbench.analysis.summary import HARNESS_BOUND_PREFIX, LOAD_MODEL
from mcpbench.loads import LIST_TOOLS
from mcpbench.results.model import DimensionDecision, DimensionSection, LoadgenCounts, plain_section
from mcpbench.results.read import read_processes
from mcpbench.workload.verify import ToolsListed

from . import consolidate, stats
from .consolidate import Consolidated, Group, LoadKey, request_timeout_s
from .load import Measurement, ResultsDir
from .rows import Row
from .stats import K

LOAD_MODEL_BOUND = f"{HARNESS_BOUND_PREFIX}{LOAD_MODEL}"


@dataclass(frozen=True)
class Cell:
    server: str                  # the base server
    twin: str                    # what was measured (NAME-POINT, or the server itself)
    row: Row                     # consolidate.rank's row: figures and rank
    p50_ms: float | None         # every tool call, failures included, pooled over the rounds
    p99_ms: float | None
    list_p50_ms: float | None = None   # tools/list's own p50 (summary latency_ms.steps), the median over the rounds
    first_p50_ms: float | None = None  # a streamed call's first progress notification (latency_ms.first_progress)
    list_bytes: int | None = None      # one client's whole tools/list, every page (verify.json tools_list)

    @property
    def list_kib(self) -> float | None:
        return self.list_bytes / 1024 if self.list_bytes is not None else None


@dataclass(frozen=True)
class PointTable:
    point: str
    cells: list[Cell]            # in ranked order
    rankings: dict[str, stats.Ranking]   # consolidate.rank's, by row prefix ("" throughput, "cpu_", "mem_")
    groups: dict[str, Group]     # base server -> the twin's group
    # the all-calls p50 ranking (latency_ranking) where the section ranks on it, of the servers no limit but the
    # load model's capped
    latency: stats.Ranking | None = None

    @property
    def rows(self) -> dict[str, Row]:
        """consolidate.rank's row of each twin, by its name (the names the rankings use)."""
        return {cell.twin: cell.row for cell in self.cells}


@dataclass(frozen=True)
class Change:
    server: str
    points: list[tuple[str, stats.Speedup, stats.Speedup]]   # (point, throughput ×, CPU per call ×) vs the first


@dataclass(frozen=True)
class AbandonedSessions:
    """The abandoned dimension: what a server kept of the sessions left open, one round's measurement
    (analysis.abandoned, from its processes.csv), the round whose memory per session is the median of the
    server's rounds."""

    server: str
    rounds: int
    figures: Abandonment
    answered: bool                # no call failed while sessions were being abandoned (stdio: a ping after the watch)
    streams_dropped: int | None = None   # GET streams opened and dropped unread (None: a workload without drop_stream)
    not_taken: int | None = None         # stdio: requests the server did not take from its stdin (back-pressure)


@dataclass(frozen=True)
class CancelledCalls:
    """The cancellation dimension: what a server did for calls its clients cancelled, at one point (one round's
    counts, the round whose steps after a cancellation are the median of the server's rounds), with the p99 of its
    other calls meanwhile (the counted calls, every round pooled)."""

    server: str
    point: str
    rounds: int
    figures: Cancellation
    others_p99_ms: float | None


@dataclass(frozen=True)
class SessionMemory:
    """The sessions dimension: what a server holds per open session, from its window-mean memory with the most
    sessions held and with the fewest, round by round (both measured in each round, one after the other):
    (mem_many - mem_few) / (many - few). A difference, not a ratio, so on the linear scale: the median over the
    rounds with their range, described, not tested — the ranking is memory with the most sessions held (mem_)."""

    server: str
    few: int
    many: int
    kib_per_session: float        # median over the rounds
    low: float                    # the rounds' range
    high: float
    rounds: int
    answered: bool                # every held session's calls answered at the most sessions (no failed call)


@dataclass(frozen=True)
class ProgressCost:
    """The progress dimension: what one progress notification adds to a call, between the points with the fewest
    and the most notifications, round by round (both measured in each round): (figure_many - figure_few) /
    (many - few), for the server's CPU per call and for the call's p50. Differences, so on the linear scale: the
    median over the rounds with their range, described, not tested — the ranking is CPU per call at the most."""

    server: str
    few: int
    many: int
    cpu_us: float                 # CPU µs per notification: median over the rounds
    cpu_low: float
    cpu_high: float
    latency_us: float             # the call's p50, µs per notification: median over the rounds
    latency_low: float
    latency_high: float
    rounds: int


@dataclass(frozen=True)
class DimensionView:
    name: str
    question: str
    run_id: str
    first: str
    tables: list[PointTable]
    changes: list[Change]
    series: dict[str, list[tuple[str, float | None]]]   # base server -> (point, calls/s) for the chart
    sessions: list[SessionMemory] = dataclasses.field(default_factory=list)
    progress: list[ProgressCost] = dataclasses.field(default_factory=list)
    abandoned: list[AbandonedSessions] = dataclasses.field(default_factory=list)
    cancellations: list[CancelledCalls] = dataclasses.field(default_factory=list)
    section: DimensionSection = dataclasses.field(default_factory=plain_section)
    # the decision page's questions of it, as the run recorded them
    decisions: list[DimensionDecision] = dataclasses.field(default_factory=list)
    not_measured: list[tuple[str, str]] = dataclasses.field(default_factory=list)   # (base server, why)

    @property
    def anchor(self) -> str:
        """Its section of the Dimensions page."""
        return f"dimensions.html#{self.name}-{self.run_id}"


@dataclass(frozen=True)
class Handshake:
    server: str
    share: float                 # median over the rounds of each round's median share
    rounds: int
    initialize_p50_ms: float | None
    call_p50_ms: float | None


def _percentiles(group: Group) -> tuple[float | None, float | None]:
    latency = group.pooled_latency_all
    if not latency.size:
        return None, None
    return float(np.percentile(latency, 50)), float(np.percentile(latency, 99))


def _rounds_p50(group: Group, pick) -> float | None:
    """A latency population's p50 (pick: the summary's LatencyStats of it, each run's own percentile of its
    samples), the median over the rounds; None when no run has it."""
    values = [pick(r.summary.latency_ms) for r in group.runs]
    values = [v.p50 for v in values if v is not None and v.p50 is not None]
    return float(np.median(values)) if values else None


def first_progress_p50(group: Group) -> float | None:
    """The first progress notification's p50 (summary latency_ms.first_progress), the median over the rounds."""
    return _rounds_p50(group, lambda latency: latency.first_progress)


def step_p50(group: Group, step: str) -> float | None:
    """A step's p50 (summary latency_ms.steps), the median over the rounds; None when no run timed it."""
    return _rounds_p50(group, lambda latency: (latency.steps or {}).get(step))


def _tools_listed(cons: Consolidated, d, twin: str) -> ToolsListed | None:
    """What the dimension run d's verify read of the twin's tools/list (verify.json tools_list: tools, pages,
    bytes), if it did."""
    view = cons.servers.get(twin)
    records = [r for r in view.records if r.results.run_id == d.run_id] if view else []
    return next((r.verify.tools_list if r.verify else None for r in records), None)


def _followed_cursors(group: Group) -> bool:
    """Whether every round's load followed tools/list's pages (summary checks.loadgen_cursor_pages > 0): the load
    driver does; k6, and the driver before it did, sent one request and took the first page."""
    return bool(group.runs) and all(r.summary.checks is not None and (r.summary.checks.loadgen_cursor_pages or 0) > 0
                                   for r in group.runs)


def _paged_note(listed: ToolsListed | None, group: Group) -> str | None:
    """Why a twin is shown but never ranked at its point: its tools/list (listed: _tools_listed) came in pages and
    its load fetched the first page only — less than every other server sent. A load that followed every page
    (_followed_cursors) timed the whole list, as the others', and is ranked."""
    if not listed or listed.pages <= 1 or _followed_cursors(group):
        return None
    return f"not ranked: tools/list came in {listed.pages} pages and the load fetched the first only"


def _points(cons: Consolidated, d) -> dict[str, dict[str, Group]]:
    """point -> base server -> its group, for one dimension run: a twin's point from its server record, or, for
    a dimension without points, each load of the run as a point."""
    out: dict[str, dict[str, Group]] = {}
    keys: dict[str, LoadKey] = {}
    names = set(d.config.servers)
    for (name, key), group in cons.groups.items():
        runs = [r for r in group.runs if r.run_id == d.run_id]
        if not runs or name not in names:
            continue
        manifest = cons.servers[name].manifest
        point = manifest.point if manifest else None
        twinned = manifest.variant_of if manifest and point else None  # a point's twin names the server it twins
        base = twinned or name
        label = point or key.label
        keys[label] = key
        out.setdefault(label, {})[base] = Group(name, key, runs)
    # a load as a point: in the order of its mode, then its level (1, 100, 1,000 VUs, not as text sorts them)
    order = list(d.config.dimension.points) or sorted(out, key=lambda p: (keys[p].mode, keys[p].load))
    return {p: out[p] for p in order if p in out}


def _not_measured(d) -> list[tuple[str, str]]:
    """The servers of the dimension run d that were listed, not measured (a manifest opting out of the dimension,
    a toolchain missing here), each once by its base server with the reason the run gave."""
    out: dict[tuple[str, str], None] = {}
    for name, record in d.servers.items():
        if record.status != "unavailable":
            continue
        base = record.manifest.variant_of if record.manifest and record.manifest.point else None
        out[(base or name, record.reason or "no reason given")] = None
    return list(out)


def _view(cons: Consolidated, d) -> DimensionView | None:
    plan = d.config.dimension
    section = plan.section
    points = _points(cons, d)
    if not points:
        return None
    tables = []
    compared: dict[str, dict[str, Group]] = {}  # the twins whose point measured what the rest's did: the changes' pairs
    for point, groups in points.items():
        rankings: dict[str, stats.Ranking] = {}
        listed = {g.server: _tools_listed(cons, d, g.server) for g in groups.values()}
        apart = {g.server: why for g in groups.values() if (why := _paged_note(listed[g.server], g))}
        compared[point] = {base: g for base, g in groups.items() if g.server not in apart}
        rows = consolidate.rank(list(groups.values()), cons.ranking_alpha, rankings, apart)
        base_of = {g.server: base for base, g in groups.items()}
        cells = []
        for row in rows:
            twin = row.server
            group = groups[base_of[twin]]
            tools = listed[twin]
            cells.append(Cell(base_of[twin], twin, row, *_percentiles(group), step_p50(group, LIST_TOOLS),
                              first_progress_p50(group), tools.bytes if tools else None))
        latency = latency_ranking(groups, cells, cons.ranking_alpha) if section.latency_ranking else None
        tables.append(PointTable(point, cells, rankings, groups, latency))
    first = next(iter(points))
    changes, series = [], {}
    if section.changes:
        changes = _changes(compared)
        series = {server: [(p, stats.geo_interval(compared[p][server].throughputs).mean) for p in points
                           if server in compared[p]] for server in compared[first]} if len(points) > 1 else {}
    sessions = session_memory(points) if "session_memory" in section.tables else []
    progress = progress_cost(points) if "progress_cost" in section.tables else []
    abandoned = abandoned_sessions(points) if "abandoned_sessions" in section.tables else []
    cancelled = cancelled_calls(points) if "cancellations" in section.tables else []
    return DimensionView(plan.name, plan.question, d.run_id, first, tables, changes, series, sessions, progress,
                         abandoned, cancelled, section, plan.decisions, _not_measured(d))


def _changes(points: dict[str, dict[str, Group]]) -> list[Change]:
    """Each server's throughput and CPU per call at every point ÷ at the first (stats.speedups)."""
    first, *rest = list(points)
    changes = []
    for server in points[first]:
        pairs = {p: (points[first][server], points[p][server]) for p in rest if server in points[p]}
        if not pairs:
            continue
        speed = stats.speedups({p: (a.by_round("tool_calls_per_s"), b.by_round("tool_calls_per_s"))
                                for p, (a, b) in pairs.items()})
        cpu = stats.speedups({p: (a.by_round("cpu_ms_per_call"), b.by_round("cpu_ms_per_call"))
                              for p, (a, b) in pairs.items()})
        changes.append(Change(server, [(p, speed[p], cpu[p]) for p in pairs]))
    return changes


def session_memory(points: dict[str, dict[str, Group]]) -> list[SessionMemory]:
    """Per server, memory per open session between the fewest and the most sessions held (SessionMemory), the
    smallest first. Each round pairs the two measurements of that round; a round missing either is left out."""
    few_n, many_n, pairs = _ends(points, lambda p: _vus(points[p]))
    out = []
    for server, few, many in pairs:
        per = _per_unit(few.by_round("mem_avg_mb"), many.by_round("mem_avg_mb"), many_n - few_n, 1024)
        if not per:
            continue
        failed = any(sum(run.failed.values()) for run in many.runs)
        out.append(SessionMemory(server, few_n, many_n, float(np.median(per)), min(per), max(per), len(per),
                                 not failed))
    return sorted(out, key=lambda m: m.kib_per_session)


def abandoned_sessions(points: dict[str, dict[str, Group]]) -> list[AbandonedSessions]:
    """Per server, what it kept of the sessions left open (AbandonedSessions): those that gave the memory back
    first (soonest first), then those that kept it (least per session first), then those without growth."""
    out = []
    for groups in points.values():
        for group in groups.values():
            measured = [(figures, run) for run in group.runs
                        if (figures := abandonment(run.measurement.samples(),
                                                   read_processes(run.measurement.directory.processes),
                                                   run.window, request_timeout_s(run.measurement.results),
                                                   *_left(run.measurement)))]
            if not measured:
                continue
            measured.sort(key=lambda m: m[0].kib_per_session if m[0].kib_per_session is not None else math.inf)
            figures, middle = measured[len(measured) // 2]
            answered = (figures.answered_after if figures.answered_after is not None   # stdio: its ping, read again
                        else not any(sum(run.failed.values()) for _, run in measured))
            dropped = _counts(middle.measurement)
            out.append(AbandonedSessions(group.server, len(measured), figures, answered,
                                         dropped.streams_dropped if dropped else None,
                                         dropped.requests_not_taken if dropped else None))

    def order(row: AbandonedSessions) -> tuple[int, float]:
        f = row.figures
        if f.freed:
            return 0, f.reclaimed_after_s if f.reclaimed_after_s is not None else math.inf
        return (1, f.kib_per_session if f.kib_per_session is not None else math.inf) if f.grew else (2, 0.0)
    return sorted(out, key=order)


def cancelled_calls(points: dict[str, dict[str, Group]]) -> list[CancelledCalls]:
    """Per server and point, what it did for the calls its clients cancelled (CancelledCalls): those that stopped
    first, fewest steps after a cancellation first, each point's rows together in the points' order."""
    out = []
    for point, groups in points.items():
        for group in groups.values():
            measured = sorted((figures for run in group.runs if (figures := cancellation(_counts(run.measurement)))),
                              key=lambda f: f.steps_after)
            if not measured:
                continue
            out.append(CancelledCalls(group.server, point, len(measured), measured[len(measured) // 2],
                                      _percentiles(group)[1]))
    order = {point: i for i, point in enumerate(points)}
    return sorted(out, key=lambda row: (order[row.point], not row.figures.stopped, row.figures.steps_after))


def _counts(measurement: Measurement) -> LoadgenCounts | None:
    """The load driver's own counts (context.json's loadgen-counts; None: not recorded)."""
    return measurement.context.loadgen_counts if measurement.context else None


def _left(measurement: Measurement) -> tuple[int | None, int | None, bool | None]:
    """The load driver's count of sessions left open (over stdio: of requests sent unread), its ping's status of the
    first one after the watch, and over stdio whether the server answered once read again (None: not counted, not
    asked)."""
    counts = _counts(measurement)
    if counts is None:
        return None, None, None
    if counts.requests_unread is not None:
        return counts.requests_unread, None, counts.answered_after_watch
    return counts.sessions_left_open, counts.oldest_session_status, None


def _ends(points: dict[str, dict[str, Group]], size) -> tuple[int, int, list[tuple[str, Group, Group]]]:
    """The smallest and the largest point's size (sessions held, notifications) and each server measured at both,
    as (server, its group there, its group here); no server when the two sizes are equal."""
    few_point, many_point = min(points, key=size), max(points, key=size)
    few_n, many_n = size(few_point), size(many_point)
    pairs = [(server, points[few_point][server], many) for server, many in points[many_point].items()
             if server in points[few_point]] if many_n > few_n else []
    return few_n, many_n, pairs


def _per_unit(few: Mapping[K, float | None], many: Mapping[K, float | None], units: int, scale: float) -> list[float]:
    """Per round present in both, (many - few) x scale / units: a figure's increment per unit between two points."""
    return [(m - f) * scale / units for r, m in many.items()
            if r in few and m is not None and (f := few[r]) is not None]


def _notifications(point: str) -> int:
    """A progress point's count of notifications, from its display ("100 notifications": dimension.Point)."""
    return int(point.split()[0].replace(",", ""))


def progress_cost(points: dict[str, dict[str, Group]]) -> list[ProgressCost]:
    """Per server, what one notification adds (ProgressCost), the cheapest first."""
    few_n, many_n, pairs = _ends(points, _notifications)
    out = []
    for server, few, many in pairs:
        cpu = _per_unit(few.by_round("cpu_ms_per_call"), many.by_round("cpu_ms_per_call"), many_n - few_n, 1000)
        latency = _per_unit(few.by_round("p50_all"), many.by_round("p50_all"), many_n - few_n, 1000)
        if not cpu or not latency:
            continue
        out.append(ProgressCost(server, few_n, many_n, float(np.median(cpu)), min(cpu), max(cpu),
                                float(np.median(latency)), min(latency), max(latency), min(len(cpu), len(latency))))
    return sorted(out, key=lambda c: c.cpu_us)


def _vus(groups: dict[str, Group]) -> int:
    return int(next(iter(groups.values())).key.load)


def latency_ranking(groups: dict[str, Group], cells: list[Cell], alpha: float) -> stats.Ranking | None:
    """One caller without think time is capped by its load model by design (its throughput is 1 / latency), which
    leaves its latency the server's; any other limit (the load driver's) or reason against publication would not.
    Ranked on the all-calls p50 — ordered by the pooled percentile, each pair tested on its per-round p50s
    (stats.rank, as the equal load's latency rankings)."""
    pooled = {cell.twin: cell.p50_ms for cell in cells}
    candidates = {g.server: g for g in groups.values() if g.efficiency_section() == consolidate.RANKED and not any(
        f.startswith(HARNESS_BOUND_PREFIX) and f != LOAD_MODEL_BOUND for r in g.runs for f in r.flags)}
    if not candidates:
        return None
    return stats.rank({n: g.by_round("p50_all") for n, g in candidates.items()}, higher_better=False,
                      figures={n: pooled.get(n) for n in candidates}, alpha=alpha)


def dimension_runs(cons: Consolidated) -> list[ResultsDir]:
    return [d for d in cons.dirs if d.config.dimension is not None]


def views(cons: Consolidated) -> list[DimensionView]:
    """Every dimension run of the results, newest last."""
    return [v for v in (_view(cons, d) for d in dimension_runs(cons)) if v is not None]


def handshakes(cons: Consolidated) -> tuple[LoadKey | None, list[Handshake]]:
    """Per server, the handshake's share of a session at the headline load when it is session mode, else at the
    session-mode load most servers were measured at."""
    keys = [k for k in cons.keys if k.mode == "session"]
    if not keys:
        return None, []
    key = (cons.headline if cons.headline in keys
           else max(keys, key=lambda k: sum(1 for (_, kk) in cons.groups if kk == k)))
    out = []
    for (name, k), group in cons.groups.items():
        if k != key:
            continue
        shares = [share for r in group.runs if (share := r.summary.latency_ms.handshake_share) is not None]
        if not shares:
            continue
        steps = [r.summary.latency_ms.steps or {} for r in group.runs]
        init = [p for s in steps if "initialize" in s and (p := s["initialize"].p50) is not None]
        call = [p for s in steps if "tools/call" in s and (p := s["tools/call"].p50) is not None]
        out.append(Handshake(name, float(np.median(shares)), len(shares),
                             float(np.median(init)) if init else None, float(np.median(call)) if call else None))
    return key, sorted(out, key=lambda h: -h.share)


