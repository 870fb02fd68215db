"""The decision page's answers: for each question someone choosing a stack asks, the server(s) the statistics
put first, the figure, and the tests behind the claim; per language the best stack of that language; and
what a million calls cost on each server.

One rule for every claim (CLAIM_RULE, stats.LEADER_RULE): a question with a leader is a comparison with the
best — the leader against each other candidate, its k - 1 moderated pair tests (the ranking's, whose prior
comes from all of its pairs) Holm-corrected within that question alone; each per-language and budget answer is
its own family. A server is named alone only when every one of those tests is significant; otherwise the
answer names the tie: the leader and every candidate its test does not separate from it. A --twin is never a
candidate. A ranking with fewer than MIN_ROUNDS rounds claims nothing. Figures with no sampling noise (an
image's size) are compared as they are; capacities are told apart by the capacity page's rule (their intervals
never overlap in any round).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from mcpbench.results import model

from . import capacity as capacity_page
from . import dimensions, stats
from .consolidate import BOUND, RANKED, Consolidated
from .load import LoadKey
from .rows import Row
from .soak import SoakRow

CLAIM_RULE = ("comparison with the best: a server is named alone only when its test against every other candidate "
              "is significant after Holm's correction within that question's own family (the leader against each "
              f"of the k - 1 others) and at least {stats.MIN_EFFECT:.0%} apart; otherwise the answer names the tie "
              "(the leader and every candidate not separated from it). A --twin is never a candidate.")

# Example prices, labelled as such wherever they are shown: roughly on-demand container list prices of 2026
# (a vCPU-hour and a GiB-hour of memory). Give yours with --price-vcpu-hour and --price-gib-hour.
EXAMPLE_PRICE_VCPU_HOUR = 0.04
EXAMPLE_PRICE_GIB_HOUR = 0.005
DEFAULT_BUDGET_MB = 256.0      # --budget-mb: an example memory budget per instance
MILLION = 1_000_000

# The manifest's sdk_kind as the page words it; a manifest without one is "not stated" (sdk "none": no SDK).
SDK_KINDS = {"official": "official SDK", "community": "community SDK", "framework": "framework", "none": "no SDK"}


def sdk_kind(manifest: model.Server | None) -> str:
    if manifest is None:
        return "not stated"
    kind = manifest.sdk_kind or ("none" if str(manifest.sdk or "").lower() == "none" else None)
    return SDK_KINDS.get(kind, "not stated") if kind is not None else "not stated"


@dataclass
class Test:
    """One pair test behind a claim: the leader against another candidate, within the question's own family."""

    question: str
    leader: str
    other: str
    method: str
    p: float | None
    p_holm: float | None
    family: int
    significant: bool
    relative: float | None     # the other's figure relative to the leader's (as the question words the figure)
    ratio: str = "—"           # the ranking figure's ratio other / leader with its simultaneous interval

    @property
    def outcome(self) -> str:
        return "separated" if self.significant else "not separated (a tie)"


@dataclass
class Entry:
    server: str
    display_name: str
    language: str
    figure: float | None
    text: str                  # the figure as shown, with its unit


@dataclass
class Answer:
    key: str                   # anchor on the page
    question: str
    unit: str
    verdict: str               # "win", "tie", "only one", "not tested", "not measured"
    top: list[Entry] = field(default_factory=list)
    runner_up: Entry | None = None
    tests: list[Test] = field(default_factory=list)
    evidence: str = ""         # relative link to the row or chart
    source: str = ""           # which load / run the figure comes from
    note: str = ""


@dataclass
class Cost:
    server: str
    display_name: str
    language: str
    basis: str                  # "equal load" or "capacity"
    rate: float | None          # calls/s the figures were measured at
    cpu_s_per_million: float | None
    gib_s_per_million: float | None
    money_per_million: float | None
    instances: list[capacity_page.Sizing] = field(default_factory=list)   # capacity sizing per target rate


@dataclass
class Decision:
    answers: list[Answer]
    by_language: list[Answer]
    costs: list[Cost]
    price_vcpu_hour: float
    price_gib_hour: float
    prices_are_examples: bool
    budget_mb: float
    budget_p99_ms: float
    source_key: LoadKey | None
    targets: tuple[float, ...]

    @property
    def tests(self) -> list[Test]:
        return [t for a in self.answers + self.by_language for t in a.tests]


def _entry(cons: Consolidated, server: str, figure: float | None, fmt) -> Entry:
    view = cons.servers[server]
    return Entry(server, view.display_name, str(view.language or "—"), figure,
                 fmt(figure) if figure is not None else "—")


def _from_ranking(cons: Consolidated, ranking: stats.Ranking | None, candidates: list[str] | None, *, key: str,
                  question: str, unit: str, figure, fmt, evidence: str, source: str) -> Answer:
    """The answer a ranking gives among `candidates` (default: every item it tested), by CLAIM_RULE: the
    leader against each other candidate, Holm within this question alone (stats.leader_tests)."""
    answer = Answer(key, question, unit, "not measured", evidence=evidence, source=source)
    if ranking is None:
        answer.note = "not measured in these results"
        return answer
    best = stats.leader_tests(ranking, candidates, exclude=list(cons.twins))
    if best.leader is None:
        answer.verdict = "not tested" if best.untested else "not measured"
        answer.note = (stats.not_tested_text(1) if best.untested else "no server qualifies")
        return answer
    leader = best.leader
    lead_fig = figure(leader)
    for other, verdict in best.tests.items():
        other_fig = figure(other)
        answer.tests.append(Test(question, leader, other, verdict.method, verdict.p_value, verdict.p_adjusted,
                                 best.family, verdict.significant,
                                 (other_fig - lead_fig) / lead_fig if lead_fig and other_fig is not None else None,
                                 verdict.ratio_text))
    tie = best.tie
    others = list(best.tests)
    answer.top = [_entry(cons, n, figure(n), fmt) for n in tie]
    answer.verdict = "tie" if len(tie) > 1 else "win" if others else "only one"
    if not others:
        answer.note = "the only one measured here: nothing to compare it with"
    rest = [n for n in others if n not in tie]
    if rest and answer.verdict == "win":
        nearest = min(rest, key=lambda n: abs(math.log(figure(n) / lead_fig)) if figure(n) and lead_fig else math.inf)
        answer.runner_up = _entry(cons, nearest, figure(nearest), fmt)
    # Only the tests that decide the answer: every tie, and the weakest separation (the largest corrected p).
    separated = [t for t in answer.tests if t.other in rest]
    weakest = max(separated, key=lambda t: t.p_holm if t.p_holm is not None else 0.0, default=None)
    answer.tests = [t for t in answer.tests if t.other in tie or t is weakest]
    return answer


def per_cpu_second(row: Row | None) -> float | None:
    """Calls per CPU-second from a ranked row's CPU ms per call: the CPU ranking's figure as its questions ask it."""
    cpu_ms = row.cpu_ms_per_call if row else None
    return 1000 / cpu_ms if cpu_ms else None


def _ms(v: float) -> str:
    return f"{v:,.2f} ms"


def decide(cons: Consolidated, *, budget_mb: float = DEFAULT_BUDGET_MB, budget_p99_ms: float = 100.0,
           price_vcpu_hour: float | None = None, price_gib_hour: float | None = None,
           targets: tuple[float, ...] = capacity_page.DEFAULT_TARGETS, soaks: list[SoakRow] | None = None,
           capacity: dict[str, list[capacity_page.CapacityRow]] | None = None) -> Decision:
    examples = price_vcpu_hour is None and price_gib_hour is None
    vcpu = EXAMPLE_PRICE_VCPU_HOUR if price_vcpu_hour is None else price_vcpu_hour
    gib = EXAMPLE_PRICE_GIB_HOUR if price_gib_hour is None else price_gib_hour
    key = cons.equal_headline or cons.headline
    rankings = cons.rankings.get(key, {})
    anchor = f"index.html#{'equal' if key.equal_load else 'efficiency'}-{key.slug}"
    source = key.label + (" (every server offered the same rate)" if key.equal_load else "")
    rows = {r.server: r for r in cons.rows.get(key, [])}

    def fig(pick: Callable[[Row], float | None]) -> Callable[[str], float | None]:
        """A server's figure of its row (None: no row at this load)."""
        return lambda n: pick(rows[n]) if n in rows else None

    def calls_per_cpu_s(n):   # the CPU ranking's figure, turned the way the question asks it
        return per_cpu_second(rows.get(n))

    per_cpu: dict[str, Any] = {"unit": "calls per CPU-second", "figure": calls_per_cpu_s, "evidence": anchor,
               "fmt": lambda v: f"{v:,.0f} calls per CPU-second"}

    answers: list[Answer] = []
    cpu = rankings.get("cpu_")
    answers.append(_from_ranking(cons, cpu, None, key="cpu", question="Most calls per CPU-second", source=source,
                                 **per_cpu))
    if key.equal_load:
        answers.append(_from_ranking(
            cons, rankings.get("p99_"), None, key="p99", question="Lowest p99 latency at equal load",
            unit="ms, all calls", figure=fig(lambda r: r.latency_all_p99_ms), fmt=_ms, evidence=anchor, source=source))
    else:
        answers.append(Answer("p99", "Lowest p99 latency at equal load", "ms", "not measured",
                              note="no equal load in these results (run --equal-load)"))
    answers.append(_capacity_answer(cons, capacity or {}))
    answers.append(_from_ranking(
        cons, rankings.get("mem_"), None, key="mem-peak", question="Smallest memory at peak", unit="MiB",
        figure=fig(lambda r: r.mem_peak_mb_mean), fmt=lambda v: f"{v:,.1f} MiB", evidence=anchor, source=source))
    groups = {g.server: g for (s, k), g in cons.groups.items() if k == key and g.section() in (RANKED, BOUND)}
    for metric, qkey, question, fmt in (
            ("idle_mem_mb", "mem-idle", "Smallest memory at idle", lambda v: f"{v:,.1f} MiB"),
            ("startup_s", "cold-start", "Fastest start (process start to first answered initialize)",
             lambda v: f"{v * 1000:,.0f} ms")):
        items = {n: g.by_round(metric) for n, g in groups.items()
                 if any(v is not None for v in g.by_round(metric).values())}
        ranking = stats.rank(items, higher_better=False, alpha=cons.ranking_alpha) if items else None
        means = ranking.means if ranking else {}
        answers.append(_from_ranking(cons, ranking, None, key=qkey, question=question, unit="",
                                     figure=lambda n, m=means: m.get(n), fmt=fmt, evidence=anchor,
                                     source=source + ", each measurement's own start"))
    answers.append(_image_answer(cons))
    # Budgets: the candidates are the servers whose every round stayed inside the budget; among them the
    # most calls per CPU-second, by the same ranking's tests (the leader among them against each of them).
    within_mem = [n for n, r in rows.items() if r.per_run_mem_peak_mb and
                  all(v is not None and v <= budget_mb for v in r.per_run_mem_peak_mb)]
    answers.append(_from_ranking(
        cons, cpu, within_mem, key="budget-mem", question=f"Most calls per CPU-second within {budget_mb:g} MiB",
        source=f"{source}; candidates: every round's peak ≤ {budget_mb:g} MiB ({len(within_mem)} of {len(rows)})",
        **per_cpu))
    if key.equal_load:
        within_p99 = [n for n, r in rows.items() if r.latency_all_p99_ms is not None
                      and r.latency_all_p99_ms <= budget_p99_ms]
        answers.append(_from_ranking(
            cons, cpu, within_p99, key="budget-p99",
            question=f"Most calls per CPU-second with p99 ≤ {budget_p99_ms:g} ms",
            source=f"{source}; candidates: pooled all-calls p99 ≤ {budget_p99_ms:g} ms "
                   f"({len(within_p99)} of {len(rows)})", **per_cpu))
    answers.append(_soak_answer(cons, soaks or []))
    answers += _dimension_answers(cons)
    by_language = []
    languages = sorted({str(cons.servers[n].language or "—") for n in rows})
    for language in languages:
        members = [n for n in rows if str(cons.servers[n].language or "—") == language]
        by_language.append(_from_ranking(cons, cpu, members, key=f"lang-{language}",
                                         question=f"{language}: most calls per CPU-second", source=source, **per_cpu))
    costs = _costs(cons, key, rows, capacity or {}, vcpu, gib, targets)
    return Decision(answers, by_language, costs, vcpu, gib, examples, budget_mb, budget_p99_ms, key, targets)


def _dimension_answers(cons: Consolidated) -> list[Answer]:
    """The questions `mcpbench dimension` answers (docs/dimensions.md), those of each dimension's newest run, each as
    the run recorded it (its plan's `decisions`: the question, the point whose table it reads, the figure ranked
    there), from that point's own ranking with the headline's rules (consolidate.rank; a harness-limited twin
    never leads its throughput)."""
    newest = {view.name: view for view in dimensions.views(cons)}
    out = []
    for view in newest.values():
        for index, asked in enumerate(view.decisions):
            if asked.figure == "reclaimed":
                out.append(_reclaimed_answer(cons, view, asked.question, asked.unit))
                continue
            if asked.figure == "stops_on_cancel":
                out.append(_stops_answer(cons, view, asked.question, asked.point))
                continue
            table = next((t for t in view.tables if t.point == asked.point), None)
            if table is None:
                continue
            ranking, figure, fmt = _dimension_figure(table, asked.figure, asked.unit)
            key = f"dimension-{view.name}" + (f"-{index + 1}" if index else "")
            answer = _from_ranking(cons, ranking, None, key=key, question=asked.question, unit=asked.unit,
                                   figure=figure, fmt=fmt, evidence=view.anchor, source=f"{view.run_id}: {table.point}")
            if ranking is None:   # the point was measured, but no server there could be ranked on this figure
                answer.note = "measured, no server ranked (rounds and limits: the Dimensions page)"
            out.append(answer)
    return out


def _reclaimed_answer(cons: Consolidated, view: dimensions.DimensionView, question: str, unit: str) -> Answer:
    """Which servers gave abandoned sessions back within the watch, soonest first (the abandoned_sessions table,
    already in that order): a yes or no per server from one round, described, not tested."""
    answer = Answer(f"dimension-{view.name}", question, unit, "not measured", evidence=view.anchor,
                    source=f"{view.run_id}: the abandoned-sessions table")
    rows = view.abandoned
    if not rows:
        answer.note = "no server's abandonment measured"
        return answer
    grew = [row for row in rows if row.figures.grew]
    freed = [row for row in grew if row.figures.freed]
    watched = max(row.figures.watched_s for row in rows)
    answer.verdict = "not tested"

    def text(after_s: float | None) -> str:
        return f"after {after_s:.0f} {unit}" if after_s is not None else "sessions let go, RSS kept"
    answer.top = []
    for row in freed:
        server = cons.servers.get(row.server)
        answer.top.append(Entry(row.server, server.display_name if server else row.server,
                                str(server.language or "—") if server else "—", row.figures.reclaimed_after_s,
                                text(row.figures.reclaimed_after_s)))
    kept = [row for row in grew if not row.figures.freed]
    least = min(kept, key=lambda row: row.figures.kib_per_session_whole or math.inf, default=None)
    asked = sum(row.figures.oldest_held is not None for row in grew)
    answer.note = (f"{len(freed)} of the {len(grew)} servers that grew gave it back within the {watched:.0f} s "
                   f"watch (one round, described; {asked} of them asked whether they still held their first "
                   "session)" + (
                       f"; least kept per session: {least.server}, {least.figures.kib_per_session_whole:,.1f} KiB"
                       if least is not None and least.figures.kib_per_session_whole is not None else ""))
    return answer


def _stops_answer(cons: Consolidated, view: dimensions.DimensionView, question: str, point: str) -> Answer:
    """Which servers stopped a call's work when its client cancelled it, at the question's point (the cancellations
    table, fewest steps after first): a yes or no per server from its counts, described, not tested."""
    answer = Answer(f"dimension-{view.name}", question, "steps after each cancellation", "not measured",
                    evidence=view.anchor, source=f"{view.run_id}: the cancellations table, {point}")
    rows = [row for row in view.cancellations if row.point == point]
    if not rows:
        answer.note = "no server's cancelled calls measured"
        return answer
    answer.verdict = "not tested"
    answer.top = []
    for row in rows:
        if not row.figures.stopped:
            continue
        server = cons.servers.get(row.server)
        answer.top.append(Entry(row.server, server.display_name if server else row.server,
                                str(server.language or "—") if server else "—", row.figures.steps_after,
                                f"{row.figures.steps_after:.1f} steps after"))
    ran_on = [row.server for row in rows if not row.figures.stopped]
    answer.note = (f"{len(answer.top)} of {len(rows)} servers stopped the work of a cancelled call ({point}; "
                   "at most the step in flight after it); ran on: " + (", ".join(ran_on) or "none"))
    return answer


def _dimension_figure(table, figure: str, unit: str):
    """A dimension point's ranking of `figure` (results.model.DimensionFigure), each server's figure as the
    question asks it, and how it is shown: (ranking, figure of a twin, format)."""
    rows = table.rows
    if figure == "cpu_per_call":   # the CPU ranking, asked as "N <unit>" (calls per CPU-second)
        return (table.rankings.get("cpu_"), lambda n: per_cpu_second(rows.get(n)),
                lambda v: f"{v:,.0f} {unit}")
    if figure == "mem_peak":       # peak memory, lower is better, valid whatever capped the throughput
        return (table.rankings.get("mem_"), lambda n: rows[n].mem_peak_mb_mean if n in rows else None,
                lambda v: f"{v:,.1f} {unit}")
    figures = {cell.twin: cell.p50_ms for cell in table.cells}   # p50_all_calls: the section's latency ranking
    return table.latency, figures.get, _ms


def _capacity_answer(cons: Consolidated, by_mode: dict[str, list[capacity_page.CapacityRow]]) -> Answer:
    answer = Answer("capacity", "Highest capacity under the SLO", "calls/s", "not measured",
                    evidence="capacity.html", note="no capacity run in these results (mcpbench capacity)")
    if not by_mode:
        return answer
    mode, rows = next(iter(by_mode.items()))
    rows = [r for r in rows if r.trustworthy]
    if not rows:
        answer.note = "no trustworthy capacity"
        return answer
    tie = [rows[0]]
    for upper, lower in pairwise(rows):
        if upper.distinct_from_next:
            break
        tie.append(lower)

    def fmt(r: capacity_page.CapacityRow) -> str:
        return f"{'≥ ' if r.lower_bound else ''}{r.median:,.0f} calls/s"

    answer.top = [Entry(r.server, r.display_name, str(cons.servers[r.server].language or "—"),
                        r.median, fmt(r)) for r in tie]
    answer.source = f"mcpbench capacity, mode {mode}: median of each round's ladder"
    answer.note = ("told apart only when in every round one's capacity is at or above the step the other failed "
                   "(the capacity page's rule; no test on so few, coarse values)")
    if len(rows) == 1:
        answer.verdict = "not tested"
        answer.note = "one server measured: nothing to compare it with"
    elif len(tie) == 1:
        answer.verdict = "win"
        nxt = rows[1]
        answer.runner_up = Entry(nxt.server, nxt.display_name, "", nxt.median, fmt(nxt))
    else:
        answer.verdict = "tie"
    return answer


def _image_answer(cons: Consolidated) -> Answer:
    sizes = {}
    for name, view in cons.servers.items():
        for record in reversed(view.records):
            if record.image is not None and record.image.image_size_mb is not None:
                sizes[name] = float(record.image.image_size_mb)
                break
    answer = Answer("image", "Smallest image", "MB", "not measured", evidence="index.html#servers",
                    note="container runtimes only (--runtime docker or swarm)")
    if not sizes:
        return answer
    order = sorted(sizes, key=lambda n: sizes[n])
    best = sizes[order[0]]
    tie = [n for n in order if sizes[n] == best]
    answer.top = [_entry(cons, n, sizes[n], lambda v: f"{v:,.1f} MB") for n in tie]
    answer.verdict = "not tested" if len(order) == 1 else ("win" if len(tie) == 1 else "tie")
    answer.source = "each image's size as the engine reports it"
    answer.note = "an image's size has no sampling noise: compared as it is"
    if answer.verdict == "win":
        answer.runner_up = _entry(cons, order[1], sizes[order[1]], lambda v: f"{v:,.1f} MB")
    return answer


def _soak_answer(cons: Consolidated, soaks: list[SoakRow]) -> Answer:
    answer = Answer("soak", "Leak-free in the soak", "", "not measured", evidence="soak.html",
                    note="no soak in these results (mcpbench soak)")
    if not soaks:
        return answer
    passed = [r for r in soaks if r.document.verdict == "pass"]
    answer.top = [Entry(r.server, r.display_name, str(cons.servers[r.server].language or "—"),
                        None, "passed every criterion") for r in passed]
    answer.verdict = "tie" if len(passed) > 1 else "win" if passed else "not tested"
    answer.source = f"mcpbench soak: {len(passed)} of {len(soaks)} passed"
    answer.note = "a pass/fail judgement per server (the soak page's criteria), not a ranking"
    return answer


def cost_per_million(cpu_ms_per_call: float | None, mem_mb: float | None, rate: float | None,
                     price_vcpu_hour: float, price_gib_hour: float) -> tuple[float | None, float | None, float | None]:
    """CPU-seconds, GiB-seconds and money per million successful calls. CPU: the server's own cgroup CPU per
    call; memory: the memory it held, for the time a million calls take at `rate`."""
    cpu_s = cpu_ms_per_call * MILLION / 1000 if cpu_ms_per_call is not None else None
    gib_s = (mem_mb / 1024) * MILLION / rate if mem_mb is not None and rate else None
    money = None
    if cpu_s is not None and gib_s is not None:
        money = cpu_s / 3600 * price_vcpu_hour + gib_s / 3600 * price_gib_hour
    return cpu_s, gib_s, money


def _costs(cons: Consolidated, key: LoadKey, rows: dict[str, Row],
           by_mode: dict[str, list[capacity_page.CapacityRow]], vcpu: float, gib: float,
           targets: tuple[float, ...]) -> list[Cost]:
    out = []
    for name, row in rows.items():
        rate = row.tool_calls_per_s
        cpu_s, gib_s, money = cost_per_million(row.cpu_ms_per_call, row.mem_avg_mb, rate, vcpu, gib)
        view = cons.servers[name]
        out.append(Cost(name, view.display_name, str(view.language or "—"),
                        "equal load" if key.equal_load else key.label, rate, cpu_s, gib_s, money))
    capacity_rows = next(iter(by_mode.values())) if by_mode else []
    for r in capacity_rows:
        if not r.trustworthy:
            continue
        cpu_pct, mem = r.at_capacity("cpu_avg_pct"), r.at_capacity("mem_peak_mb")
        cpu_ms = cpu_pct / 100 / r.median * 1000 if cpu_pct is not None and r.median else None
        cpu_s, gib_s, money = cost_per_million(cpu_ms, mem, r.median, vcpu, gib)
        view = cons.servers[r.server]
        out.append(Cost(r.server, view.display_name, str(view.language or "—"), "capacity",
                        r.median, cpu_s, gib_s, money, [r.sizing(t) for t in targets]))
    return sorted(out, key=lambda c: (c.basis, c.money_per_million is None, c.money_per_million or 0))


TIE_NAMES = 4   # a tie longer than this is named by its first few in sentences (the page lists every one)

# How the summary words each headline answer: (what the leader did, what a tie shares).
SUMMARY_WORDS = {
    "cpu": ("used the least CPU per call", "the least CPU per call"),
    "p99": ("answered with the lowest p99 latency", "the lowest p99 latency"),
    "mem-peak": ("used the least memory at peak", "the least memory at peak"),
}


def summary(decision: Decision, cons: Consolidated) -> list[str]:
    """The first screen's paragraph: what the figures support, one sentence per headline answer, worded from
    the verdicts alone (no adjective the tests do not back)."""
    key = decision.source_key
    if key is None:
        return []
    rows = cons.rows.get(key, [])
    rate = cons.equal_rate(key) if key.equal_load else None
    setting = (f"At {rate:,.1f} calls/s offered to every server ({len(rows)} servers, {key.mode})" if rate
               else f"At {key.label} ({len(rows)} servers)")
    out = []
    for answer in decision.answers:
        words = SUMMARY_WORDS.get(answer.key)
        if words is None:
            continue
        did, shared = words
        if answer.verdict == "win":
            lead = answer.top[0]
            worst_p = max((t.p_holm for t in answer.tests if t.p_holm is not None), default=None)
            weakest = f" (the weakest: p Holm = {worst_p:.2g})" if worst_p is not None else ""
            out.append(f"{lead.display_name} {did} ({lead.text}); its test against every other server is "
                       f"significant after Holm's correction within this question" + weakest + ".")
        elif answer.verdict == "tie":
            lead = answer.top[0]
            if answer.runner_up is None and len(answer.top) == len(rows):
                out.append(f"these rounds separate none of the {len(rows)} servers on {shared} (the lowest mean: "
                           f"{lead.display_name}, {lead.text}) — not shown to be equal: more rounds may.")
            else:
                names = ", ".join(e.display_name for e in answer.top[:TIE_NAMES])
                more = f" and {len(answer.top) - TIE_NAMES} more" if len(answer.top) > TIE_NAMES else ""
                out.append(f"{len(answer.top)} servers share {shared}: {names}{more} — these rounds do not "
                           "separate them (not shown to be equal).")
        elif answer.verdict == "not tested":
            out.append(f"{answer.question}: not tested ({answer.note}).")
    return [f"{setting}:"] + [line[:1].upper() + line[1:] for line in out] if out else []
