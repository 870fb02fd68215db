"""The report's tests checked on recorded rounds, both ways (scripts/null_replay.py, tests): how often they
separate two copies of the same server (false separations, A/A), and how often they separate pairs of a known
size (power).

The data are one ranking's per-round figures from a real run (`Table`, extracted through the report's own
consolidation). A replay draws 2k of the run's rounds: the first k are the rounds of a k-round run of every
server; one server S also gets a twin measured in the other k rounds. The twin's figure in slot j is S's figure
in its own round, moved from that round's host effect to slot j's: log S(r'_j) - e(r'_j) + e(r_j), where e(r)
is the round's effect (the median over servers of each server's log deviation from its own mean that round).
So the twin has S's own round-to-round noise, measured apart, and only the shared host effect of its slot:
what a --twin measured in the same rounds has. Scaling the twin by a factor k makes a pair of known size
(power); k = 1 is the A/A pair (false separations). Each replay is one family: the k-round ranking of every
server and the twin, as the report ranks it (stats.rank).

A second check needs no construction: with 2k or more rounds, each k-round subset is a run of its own, and the
whole run's ratio of every pair is its best-known size; `subset_power` counts the pairs separated by size.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TypedDict

import numpy as np

from . import stats

TWIN = "~twin"


# A round as a table's file holds it: (run id, round) as a list, or the key itself.
FileRound = list[str | int] | str | int


class TableFile(TypedDict):
    """A Table as its file holds it (scripts/null_replay.py extract; tests/fixtures/recorded): each server's
    rounds as [round, figure] pairs."""

    source: str
    higher_better: bool
    figures: dict[str, list[tuple[FileRound, float]]]


@dataclass(frozen=True)
class Table:
    """One ranking's per-round figures (server -> round -> figure), complete: every server in every round."""

    figures: dict[str, dict[Hashable, float]]
    higher_better: bool
    source: str = ""

    @property
    def rounds(self) -> list[Hashable]:
        common = set.intersection(*(set(v) for v in self.figures.values())) if self.figures else set()
        return sorted(common, key=repr)

    def complete(self) -> "Table":
        """Only the rounds every server has and the servers with a positive figure in each."""
        rounds = self.rounds
        return Table({n: {r: v[r] for r in rounds} for n, v in self.figures.items()
                      if all(v.get(r) and v[r] > 0 for r in rounds)}, self.higher_better, self.source)

    def to_json(self) -> TableFile:
        return {"source": self.source, "higher_better": self.higher_better,
                "figures": {n: [(list(r) if isinstance(r, tuple) else _file_round(r), v) for r, v in runs.items()]
                            for n, runs in self.figures.items()}}

    @classmethod
    def from_json(cls, data: TableFile) -> "Table":
        return cls({n: {tuple(r) if isinstance(r, list) else r: v for r, v in runs}
                    for n, runs in data["figures"].items()}, bool(data["higher_better"]), data.get("source", ""))


def _file_round(key: Hashable) -> FileRound:
    """A round key that is no tuple, as JSON holds it: a run's id or a round number."""
    if not isinstance(key, (str, int)):
        raise TypeError(f"a round key must be a (run id, round) tuple, a string or a number, not {key!r}")
    return key


def round_effects(table: Table) -> dict[Hashable, float]:
    """Each round's host effect on the log scale: the median over servers of log figure minus the server's own
    mean log figure."""
    logs = {n: {r: math.log(v) for r, v in runs.items()} for n, runs in table.figures.items()}
    means = {n: float(np.mean(list(v.values()))) for n, v in logs.items()}
    return {r: float(np.median([logs[n][r] - means[n] for n in logs])) for r in table.rounds}


def twin_of(own: Mapping[Hashable, float], slots: Sequence[Hashable], twin_rounds: Sequence[Hashable],
            effects: Mapping[Hashable, float], scale: float = 1.0) -> dict[Hashable, float]:
    """A server's twin in `slots`: its figure in `twin_rounds` (one each), moved to its slot's host effect,
    times `scale`."""
    return {slot: scale * math.exp(math.log(own[r]) - effects[r] + effects[slot])
            for slot, r in zip(slots, twin_rounds, strict=True)}


def twin_family(table: Table, server: str, slots: Sequence[Hashable], twin_rounds: Sequence[Hashable],
                effects: Mapping[Hashable, float], scale: float = 1.0) -> dict[str, dict[Hashable, float]]:
    """A k-round ranking of every server in `slots`, and `server`'s twin (twin_of)."""
    family = {n: {slot: runs[slot] for slot in slots} for n, runs in table.figures.items()}
    family[server + TWIN] = twin_of(table.figures[server], slots, twin_rounds, effects, scale)
    return family


def _replayable(table: Table, rounds: int) -> tuple[Table, list[Hashable], dict[Hashable, float], list[str]]:
    """The table's complete part, its rounds, their host effects and its servers; ValueError when it has fewer
    than the 2 x rounds complete rounds a replay of `rounds`-round runs draws from."""
    table = table.complete()
    all_rounds = table.rounds
    if len(all_rounds) < 2 * rounds:
        raise ValueError(f"{len(all_rounds)} complete rounds: a replay of {rounds}-round runs needs {2 * rounds}")
    return table, all_rounds, round_effects(table), sorted(table.figures)


@dataclass
class Rate:
    """How often something happened in `trials` replays, with its Clopper-Pearson 95 % interval."""

    hits: int = 0
    trials: int = 0

    @property
    def rate(self) -> float:
        return self.hits / self.trials if self.trials else math.nan

    def interval(self) -> tuple[float, float]:
        if not self.trials:
            return math.nan, math.nan
        from scipy import stats as sps  # here, not at import: 0.5-2 s that most commands never use

        ci = sps.binomtest(self.hits, self.trials).proportion_ci(0.95)
        return float(ci.low), float(ci.high)

    @property
    def text(self) -> str:
        low, high = self.interval()
        return f"{self.rate:.1%} [{low:.1%}–{high:.1%}] ({self.hits} of {self.trials})"


@dataclass
class Replay:
    """What the replays found for one test (moderated or not) and one scale."""

    scale: float
    moderated: bool
    separated: Rate = field(default_factory=Rate)
    by_server: dict[str, Rate] = field(default_factory=dict)


def replay(table: Table, rounds: int = 3, replays: int = 1000, seed: int = 1, scales: Sequence[float] = (1.0,),
           moderate: Sequence[bool] = (True,)) -> list[Replay]:
    """`replays` families per scale and test (stats.rank): the twin of a server drawn at random, `rounds` slots
    and `rounds` other rounds drawn at random from the table's. Needs 2 x rounds complete rounds."""
    table, all_rounds, effects, servers = _replayable(table, rounds)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(replays):
        picked = [all_rounds[i] for i in rng.permutation(len(all_rounds))[:2 * rounds]]
        draws.append((servers[int(rng.integers(len(servers)))], picked[:rounds], picked[rounds:]))
    out = []
    for scale in scales:
        for mod in moderate:
            result = Replay(scale, mod)
            for server, slots, others in draws:
                family = twin_family(table, server, slots, others, effects, scale)
                ranking = stats.rank(family, higher_better=table.higher_better, moderate=mod)
                verdict = ranking.verdict(server, server + TWIN)
                hit = bool(verdict is not None and verdict.significant)
                result.separated.hits += hit
                result.separated.trials += 1
                mine = result.by_server.setdefault(server, Rate())
                mine.hits += hit
                mine.trials += 1
            out.append(result)
    return out


@dataclass
class SizeClass:
    """Pairs whose whole-run ratio is at least `ratio`, and how many of them the subsets separated."""

    ratio: float
    pairs: int = 0
    separated: Rate = field(default_factory=Rate)


def subset_power(table: Table, rounds: int = 3, classes: Sequence[float] = (1.3, 2.0), limit: int = 200,
                 seed: int = 1, moderate: bool = True) -> tuple[list[SizeClass], Rate]:
    """Every (or `limit` random) `rounds`-round subset of the table's rounds ranked as a run of its own: how
    many of the pairs whose whole-run geometric-mean ratio is at least each class's ratio it separates, and
    how many pairs that the whole run puts within MIN_EFFECT of each other (near-equal) it separates."""
    table = table.complete()
    logs = {n: float(np.mean([math.log(v) for v in runs.values()])) for n, runs in table.figures.items()}
    pairs = list(combinations(sorted(table.figures), 2))
    size = {p: math.exp(abs(logs[p[0]] - logs[p[1]])) for p in pairs}
    subsets = list(combinations(table.rounds, rounds))
    if len(subsets) > limit:
        rng = np.random.default_rng(seed)
        subsets = [subsets[i] for i in sorted(rng.choice(len(subsets), limit, replace=False))]
    out = [SizeClass(r, sum(1 for p in pairs if size[p] >= r)) for r in classes]
    near = Rate()
    for subset in subsets:
        family = {n: {r: runs[r] for r in subset} for n, runs in table.figures.items()}
        ranking = stats.rank(family, higher_better=table.higher_better, moderate=moderate)
        for a, b in pairs:
            verdict = ranking.verdict(a, b)
            hit = bool(verdict is not None and verdict.significant)
            for cls in out:
                if size[(a, b)] >= cls.ratio:
                    cls.separated.hits += hit
                    cls.separated.trials += 1
            if size[(a, b)] < 1 + stats.MIN_EFFECT:
                near.hits += hit
                near.trials += 1
    return out, near


@dataclass
class AbReplay:
    """The A/B page's test (stats.speedups) replayed at one scale: families with any level separated, and
    levels separated."""

    scale: float
    families: Rate = field(default_factory=Rate)
    levels: Rate = field(default_factory=Rate)


def ab_replay(table: Table, levels: int = 3, rounds: int = 3, replays: int = 1000, seed: int = 1,
              scales: Sequence[float] = (1.0,), moderate: bool = False) -> list[AbReplay]:
    """A sweep of `levels` levels, A and B measured in the same `rounds` rounds, replayed from recorded rounds: each
    level is a server of the table drawn at random (its own round-to-round noise), A its figures in `rounds`
    slots, B the same server in `rounds` other rounds moved to the slots' host effects (twin_family's construction)
    times `scale`. At scale 1 B is A (A/A): a family with any level separated is a false separation; above 1,
    the levels separated are the test's power at that size (`moderate`: the moderated test it replaced)."""
    table, all_rounds, effects, servers = _replayable(table, rounds)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(replays):
        chosen = [servers[int(i)] for i in rng.choice(len(servers), size=levels, replace=len(servers) < levels)]
        sweeps = []
        for server in chosen:
            picked = [all_rounds[i] for i in rng.permutation(len(all_rounds))[:2 * rounds]]
            sweeps.append((server, picked[:rounds], picked[rounds:]))
        draws.append(sweeps)
    out = []
    for scale in scales:
        result = AbReplay(scale)
        for sweeps in draws:
            pairs = {}
            for level, (server, slots, others) in enumerate(sweeps):
                own = table.figures[server]
                pairs[level] = ({slot: own[slot] for slot in slots}, twin_of(own, slots, others, effects, scale))
            found = stats.speedups(pairs, moderate=moderate)
            separated = sum(s.differs for s in found.values())
            result.families.hits += separated > 0
            result.families.trials += 1
            result.levels.hits += separated
            result.levels.trials += len(found)
        out.append(result)
    return out


@dataclass
class GateReplay:
    """The CI gate's two stages (mcpbench.analysis.gate) replayed at one scale: how often the screen alone
    suspected a regression, and how often the gate failed (a suspected regression confirmed on new rounds)."""

    scale: float
    levels: int
    rounds: int
    confirm_rounds: int
    screened: Rate = field(default_factory=Rate)  # replays with any regression suspected (the screen alone)
    failed: Rate = field(default_factory=Rate)    # replays whose gate failed (confirmed non-empty)

    @property
    def held(self) -> Rate:
        """Of the replays with a suspicion, those the confirmation upheld."""
        return Rate(self.failed.hits, self.screened.hits)


GATE_FIGURE = "cpu_ms_per_call"   # the figure the recorded tables hold: lower is better, a scale > 1 a regression


def gate_replay(table: Table, levels: int = 2, rounds: int = 3, confirm_rounds: int = 5, replays: int = 1000,
                seed: int = 1, scales: Sequence[float] = (1.0, 1.2, 1.5)) -> list[GateReplay]:
    """The CI gate (`mcpbench ci`, mcpbench.analysis.gate) replayed from recorded rounds of a CPU-per-call table.

    Each replay draws `levels` servers of the table (each level one server's figures, gate.CPU) and builds each
    level's pair as ab_replay does: base (A) the server's figures in `rounds` slots, candidate (B) the same server
    in `rounds` other rounds moved to the slots' host effects (twin_of), times the scale. The screen is
    gate.test over every level at gate.SCREEN_ALPHA; the levels it suspects (gate.suspected) are measured again:
    each suspected level gets `confirm_rounds` new slots and `confirm_rounds` other rounds for its twin, and
    gate.test over the suspected checks alone at gate.CONFIRM_ALPHA decides; the gate fails when gate.confirmed
    is not empty. At scale 1 a failed gate is a false alarm; above 1 every level regressed and a failed gate is
    the gate's power at that size.

    The draws (servers, both stages' rounds) are made once and shared by every scale. The table must have
    2 x rounds complete rounds. The confirmation's rounds are rounds the screen did not use when the table has
    2 x (rounds + confirm_rounds) of them; with fewer, each of its slots is a distinct ordered pair of two
    different rounds of the table (a round may serve two slots). So with the six-round table the confirmation's
    "new" rounds are the screen's six rounds paired differently: not new data. Whatever made a level's screen
    look like a change (an outlier round of its server) is there again in its confirmation, so the stages are
    correlated where the real gate's are independent, and the replayed false alarms overstate the real gate's:
    the check is conservative. `GateReplay.held` shows it (with independent stages at most about
    gate.CONFIRM_ALPHA of the suspicions would be upheld)."""
    from mcpbench.analysis import gate  # here, not at import: it loads the results model, no other replay does

    if table.higher_better:
        raise ValueError(f"{table.source}: higher is better, so a scale > 1 is no regression; the gate's replay "
                         f"takes a lower-is-better table (CPU ms per call)")
    table, all_rounds, effects, servers = _replayable(table, rounds)
    disjoint = len(all_rounds) >= 2 * (rounds + confirm_rounds)
    # With too few rounds for new ones, the confirmation's (slot, twin round) pairs are distinct ordered pairs of
    # two different rounds: five of the six-round table's 30, so a round may serve two pairs.
    ordered = [(a, b) for a in all_rounds for b in all_rounds if a != b]
    rng = np.random.default_rng(seed)
    Stage = list[tuple[Hashable, Hashable]]   # (the base's round, the twin's round) per slot
    draws: list[list[tuple[str, Stage, Stage]]] = []
    for _ in range(replays):
        chosen = [servers[int(i)] for i in rng.choice(len(servers), size=levels, replace=len(servers) < levels)]
        sweep = []
        for server in chosen:
            order = [all_rounds[i] for i in rng.permutation(len(all_rounds))]
            first = list(zip(order[:rounds], order[rounds:2 * rounds], strict=True))
            if disjoint:   # rounds the screen did not use
                rest = order[2 * rounds:2 * (rounds + confirm_rounds)]
                again = list(zip(rest[:confirm_rounds], rest[confirm_rounds:], strict=True))
            else:
                again = [ordered[int(i)] for i in rng.choice(len(ordered), size=confirm_rounds, replace=False)]
            sweep.append((server, first, again))
        draws.append(sweep)

    def pair(server: str, stage: Stage, scale: float) -> tuple[dict[int, float | None], dict[int, float | None]]:
        """Base and candidate keyed by slot number: the base its figure in each slot's round, the candidate its
        twin (twin_of) from the pair's other round."""
        own = table.figures[server]
        base: dict[int, float | None] = {j: own[slot] for j, (slot, _) in enumerate(stage)}
        candidate: dict[int, float | None] = {j: twin_of(own, [slot], [other], effects, scale)[slot]
                                              for j, (slot, other) in enumerate(stage)}
        return base, candidate

    out = []
    for scale in scales:
        result = GateReplay(scale, levels, rounds, confirm_rounds)
        for sweep in draws:
            keys = [(f"level {i + 1}", GATE_FIGURE) for i in range(len(sweep))]
            screen = gate.screen({key: pair(server, stage, scale)
                                  for key, (server, stage, _) in zip(keys, sweep, strict=True)})
            suspects = set(gate.suspected(screen))
            failed = False
            if suspects:
                confirmation = gate.confirm({key: pair(server, stage, scale)
                                            for key, (server, _, stage) in zip(keys, sweep, strict=True)
                                            if key in suspects})
                failed = bool(gate.confirmed(confirmation, screen))
            result.screened.hits += bool(suspects)
            result.screened.trials += 1
            result.failed.hits += failed
            result.failed.trials += 1
        out.append(result)
    return out
