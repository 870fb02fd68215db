"""History across results directories of the same servers over time (`mcpbench report --history`): each
directory is one point; per server its figures at each point, and which changes between consecutive points
are real, by `compare`'s rules.

Each directory is consolidated on its own (its rounds, its tiers), so a point carries the rank its own
rankings gave the server. The load compared is the newest directory's headline (its equal load if it has
one); an older directory contributes a point only where it measured that same load. Between consecutive
points each figure is tested as `compare` tests it (throughput and p99; at an equal load, where the throughput
is the rate offered, CPU ms per call and p99: Welch's test on the per-round figures, harness-limited throughput
only in the direction its bound still proves), Holm's correction across every test of the history (one family:
every server, step and figure — stricter than one `compare` per step), and a change counts only when corrected-significant and at least
MIN_EFFECT large. A step across which the configuration or the machine differ is tested too, and says so: the
page lists what differs, as it lists what the manifests changed (an SDK upgrade).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import stats
from .consolidate import MANIFEST_FINGERPRINT, Consolidated, consolidate, fingerprint_differences
from .load import LoadKey, ResultsDir

# The figures a history tests, as `compare` does: (row field, per-run figure, lower is better, label). At an
# equal load the throughput is the rate offered, so what each server spent per call takes its place.
THROUGHPUT = ("tool_calls_per_s", "tool_calls_per_s", False, "tool calls/s")
CPU = ("cpu_ms_per_call", "cpu_ms_per_call", True, "CPU ms per call")
P99 = ("latency_all_p99_ms", "p99_all", True, "p99 ms (all calls)")


def figures_for(key: LoadKey) -> tuple[tuple, ...]:
    """The figures tested at a load: the headline figure first (the small charts draw it)."""
    return (CPU, P99) if key.equal_load else (THROUGHPUT, P99)


@dataclass
class Point:
    run_id: str
    row: dict | None                  # the server's row at the history's load in this directory (None: absent)
    rank: str | None                  # its CPU rank there (its own rounds and tiers)
    versions: dict[str, str]          # the manifest fields that identify the stack (MANIFEST_FINGERPRINT)


@dataclass
class Step:
    before: str
    after: str
    figure: str
    verdict: stats.Verdict
    lower_better: bool
    changed: list[str]                # manifest fields that differ across the step ("sdk_version: 1 → 2")
    differs: list[str]                # config / machine differences across the step

    @property
    def direction(self) -> str:
        if not self.verdict.tested:
            return "not tested"
        if not self.verdict.significant:
            return "no significant change"
        worse = (self.verdict.diff or 0) > 0 if self.lower_better else (self.verdict.diff or 0) < 0
        return "regression" if worse else "improvement"


@dataclass
class ServerHistory:
    server: str
    display_name: str
    points: list[Point]
    steps: list[Step] = field(default_factory=list)

    @property
    def changes(self) -> list[Step]:
        return [s for s in self.steps if s.direction in ("regression", "improvement")]


@dataclass
class History:
    run_ids: list[str]
    key: LoadKey
    servers: list[ServerHistory]
    family: int
    min_effect: float
    figures: tuple[tuple, ...]        # figures_for(key)
    differences: list[str]            # config / machine differences across the directories
    newest: Consolidated              # the newest directory on its own: what the other pages show

    @property
    def changes(self) -> list[Step]:
        return [s for h in self.servers for s in h.changes]


def history(dirs: list[ResultsDir], min_effect: float = stats.MIN_EFFECT) -> History:
    """The history of `dirs` (ordered by run id: their start time), consolidated one by one."""
    dirs = sorted(dirs, key=lambda d: d.run_id)
    if len(dirs) < 2:
        raise ValueError("a history needs at least two results directories")
    each: list[Consolidated] = [consolidate([d], allow_mixed=True) for d in dirs]
    newest = each[-1]
    key = newest.equal_headline or newest.headline
    servers = list(dict.fromkeys(s for c in each for s in c.servers if (s, key) in c.groups))
    out: list[ServerHistory] = []
    tests: list[Step] = []
    for server in servers:
        points = []
        for c in each:
            row = next((r for r in c.rows.get(key, []) if r["server"] == server), None)
            view = c.servers.get(server)
            manifest = view.manifest if view else {}
            points.append(Point(c.dirs[0].run_id, row, row.get("cpu_rank") if row else None,
                                {k: str(manifest.get(k)) for k in MANIFEST_FINGERPRINT if manifest.get(k)}))
        name = next(c.servers[server].display_name for c in reversed(each) if server in c.servers)
        sh = ServerHistory(server, name, points)
        present = [(i, p) for i, p in enumerate(points) if p.row is not None]
        for (i, a), (j, b) in zip(present, present[1:]):
            ga, gb = each[i].groups[(server, key)], each[j].groups[(server, key)]
            changed = [f"{k}: {a.versions.get(k)} → {b.versions.get(k)}" for k in MANIFEST_FINGERPRINT
                       if a.versions.get(k) != b.versions.get(k)]
            differs = fingerprint_differences([dirs[i], dirs[j]])
            for field_name, per_run, lower_better, _ in figures_for(key):
                if field_name == "tool_calls_per_s":
                    verdict = stats.bounded_throughput_change(ga.throughputs, gb.throughputs, ga.harness_bound,
                                                              gb.harness_bound)
                else:
                    verdict = stats.change_test([getattr(r, per_run) for r in ga.runs],
                                                [getattr(r, per_run) for r in gb.runs],
                                                a.row[field_name], b.row[field_name])
                step = Step(a.run_id, b.run_id, field_name, verdict, lower_better, changed, differs)
                sh.steps.append(step)
                tests.append(step)
        out.append(sh)
    tested = [s for s in tests if s.verdict.tested]
    for step, p in zip(tested, stats.holm([s.verdict.p_value for s in tested])):
        step.verdict = step.verdict.adjusted(p, stats.ALPHA, min_effect)
    return History([d.run_id for d in dirs], key, out, len(tested), min_effect, figures_for(key),
                   fingerprint_differences(dirs), newest)
