"""History across results directories of the same servers over time (`mcpbench report --history`): each
directory is one point; per server its figures at each point, and which changes between consecutive points
are real, by `compare`'s rules.

Each directory is consolidated on its own (its rounds, its ranks), so a point carries the rank its own
rankings gave the server. The load compared is the newest directory's headline (its equal load if it has
one); an older directory contributes a point only where it measured that same load. Between consecutive
points each figure is tested as `compare` tests it (compare.figures_for: throughput and p99; at an equal load,
where the throughput is the rate offered, CPU ms per call and p99; compare.test_figure: centred on the round's
median server, a moderated two-sample test on the logs, harness-limited throughput only in the direction its
bound still proves), Holm within each step and figure (the question "which servers changed on this figure
between these two points"), and a change counts only when corrected-significant and at least MIN_EFFECT
large. A step across which the configuration or the machine differ is tested too, and says so: the page lists
what differs, as it lists what the manifests changed (an SDK upgrade).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import stats
from .changes import Figure, direction, figures_for, test_figure
from .consolidate import MANIFEST_FINGERPRINT, Consolidated, consolidate, fingerprint_differences, stack_of
from .load import LoadKey, ResultsDir
from .rows import Row


@dataclass
class Point:
    run_id: str
    row: Row | None                   # the server's row at the history's load in this directory (None: absent)
    rank: str | None                  # its CPU rank there (its own rounds and tiers)
    versions: dict[str, str]          # the manifest fields that identify the stack (MANIFEST_FINGERPRINT)


@dataclass
class Step:
    before: str
    after: str
    figure: Figure
    verdict: stats.Verdict
    changed: list[str]                # manifest fields that differ across the step ("sdk_version: 1 → 2")
    differs: list[str]                # config / machine differences across the step

    @property
    def direction(self) -> str:
        return direction(self.figure, self.verdict)


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
    figures: tuple[Figure, ...]       # figures_for(key)
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
    points: dict[str, list[Point]] = {}
    for server in servers:
        points[server] = []
        for c in each:
            row = next((r for r in c.rows.get(key, []) if r.server == server), None)
            view = c.servers.get(server)
            stack = stack_of(view.manifest if view else None)
            points[server].append(Point(c.dirs[0].run_id, row, row.cpu.rank if row else None,
                                        {k: str(v) for k, v in stack.items() if v}))
    out = {server: ServerHistory(server, next(c.servers[server].display_name for c in reversed(each)
                                              if server in c.servers), points[server]) for server in servers}
    family = 0
    for i in range(len(each)):
        # each point against the next one that measured the same server: steps between consecutive points
        for j in range(i + 1, len(each)):
            pairs = [s for s in servers if points[s][i].row is not None and points[s][j].row is not None
                     and all(points[s][m].row is None for m in range(i + 1, j))]
            if not pairs:
                continue
            old = {s: each[i].groups[(s, key)] for s in pairs}
            new = {s: each[j].groups[(s, key)] for s in pairs}
            differs = fingerprint_differences([dirs[i], dirs[j]])
            for figure in figures_for(key):
                tested = test_figure(old, new, figure, min_effect=min_effect)
                family += tested.family
                for server in pairs:
                    a, b = points[server][i], points[server][j]
                    changed = [f"{k}: {a.versions.get(k)} → {b.versions.get(k)}" for k in MANIFEST_FINGERPRINT
                               if a.versions.get(k) != b.versions.get(k)]
                    out[server].steps.append(Step(a.run_id, b.run_id, figure, tested.verdicts[server], changed,
                                                  differs))
    for h in out.values():
        h.steps.sort(key=lambda st: (st.before, figures_for(key).index(st.figure)))
    return History([d.run_id for d in dirs], key, list(out.values()), family, min_effect, figures_for(key),
                   fingerprint_differences(dirs), newest)
