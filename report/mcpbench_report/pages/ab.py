"""ab.html: two or more configurations of one server given on the command line (`mcpbench run --target A=…
--target B=…`), measured in the same rounds, side by side at each level of the sweep: throughput of each and the
speedup B / A with its interval, all-calls p50 and p99 of each, and CPU per call where the suite started the
server — the table a team publishes when it tunes its server.

The speedup's interval is the rankings' test (analysis/moderated.py): the paired t on log(B/A) over the rounds
both were measured in, its variance moderated with a prior fitted over the sweep's levels (Smyth 2004, as limma
does over genes: one noisy level does not decide alone), Bonferroni-simultaneous over the levels of the table
(the question "where does B differ from A" is one family)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mcpbench.analysis import moderated

from .. import stats
from ..consolidate import Group, LoadKey
from ..site import Site
from . import Page

# Fewer shared rounds give no variance of their own to test.
MIN_SHARED_ROUNDS = 2


@dataclass(frozen=True)
class Speedup:
    ratio: float | None
    low: float | None
    high: float | None
    rounds: int
    differs: bool          # the simultaneous interval leaves 1 out

    @property
    def text(self) -> str:
        if self.ratio is None:
            return "—"
        if self.low is None or self.high is None:
            return f"×{self.ratio:#.3g} (not tested: {self.rounds} shared round(s))"
        return f"×{self.ratio:#.3g} ({self.low:#.3g}–{self.high:#.3g})"


@dataclass(frozen=True)
class Side:
    calls_per_s: float | None     # geometric mean over its rounds
    p50_ms: float | None          # all calls, failures included, pooled over its rounds
    p99_ms: float | None
    cpu_ms_per_call: float | None  # geometric mean; None where the suite did not start the server
    rounds: int


@dataclass(frozen=True)
class Level:
    key: LoadKey
    a: Side
    b: Side
    speedup: Speedup
    cpu_ratio: Speedup


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    sweep: str
    levels: list[Level]


def _geomean(values: list[float | None]) -> float | None:
    good = [v for v in values if v is not None and v > 0]
    return math.exp(sum(map(math.log, good)) / len(good)) if good else None


def _side(group: Group | None) -> Side:
    if group is None:
        return Side(None, None, None, None, 0)
    latency = group.pooled_latency_all
    p50, p99 = (float(np.percentile(latency, q)) for q in (50, 99)) if latency.size else (None, None)
    return Side(_geomean(group.throughputs), p50, p99, _geomean([r.cpu_ms_per_call for r in group.runs]),
                len(group.runs))


def _speedups(pairs: dict[LoadKey, tuple[Group, Group]], metric: str) -> dict[LoadKey, Speedup]:
    """B / A at each level of one sweep, one prior over its levels, simultaneous over them."""
    items: dict[str, dict] = {}
    wanted = []
    for key, (a, b) in pairs.items():
        items[f"a@{key.slug}"], items[f"b@{key.slug}"] = a.by_round(metric), b.by_round(metric)
        wanted.append((f"a@{key.slug}", f"b@{key.slug}"))
    tests = moderated.pair_tests(items, wanted, MIN_SHARED_ROUNDS)
    family = max(1, len(tests.stats))
    out = {}
    for key, (a, b) in pairs.items():
        stat = tests.stats.get((f"a@{key.slug}", f"b@{key.slug}"))
        shared = len(set(a.by_round(metric)) & set(b.by_round(metric)))
        ratio = _ratio(_geomean(list(b.by_round(metric).values())), _geomean(list(a.by_round(metric).values())))
        if stat is None or not stat.paired:
            out[key] = Speedup(ratio, None, None, shared, False)
            continue
        low, high = stat.interval(stats.ALPHA, family)
        out[key] = Speedup(stat.ratio, low, high, stat.n, not low <= 1.0 <= high)
    return out


def _ratio(b: float | None, a: float | None) -> float | None:
    return b / a if a and b else None


class AbPage(Page):
    file = "ab.html"
    template = "ab.html"
    nav = (("A/B", ""),)
    order = 15

    @staticmethod
    def targets(site: Site) -> list[str]:
        """The servers given on the command line (a workload file of their own), in the order the run named them."""
        named = [name for d in site.cons.dirs for name in d.config.servers]
        return [name for name in dict.fromkeys(named)
                if name in site.cons.servers and site.cons.servers[name].manifest.get("workload")]

    def applies(self, site: Site) -> bool:
        return len(self.targets(site)) >= 2

    @classmethod
    def comparisons(cls, site: Site) -> list[Comparison]:
        targets = cls.targets(site)
        a = targets[0]
        out = []
        for b in targets[1:]:
            sweeps: dict[tuple[str, str, str], dict[LoadKey, tuple[Group, Group]]] = {}
            for key in site.cons.keys:
                ga, gb = site.cons.groups.get((a, key)), site.cons.groups.get((b, key))
                if ga is not None and gb is not None:
                    sweeps.setdefault((key.mode, key.kind_name, key.basis), {})[key] = (ga, gb)
            for (mode, kind, basis), pairs in sweeps.items():
                speed = _speedups(pairs, "tool_calls_per_s")
                cpu = _speedups(pairs, "cpu_ms_per_call")
                levels = [Level(key, _side(ga), _side(gb), speed[key], cpu[key])
                          for key, (ga, gb) in sorted(pairs.items(), key=lambda item: item[0].load)]
                unit = next(iter(pairs)).load_unit
                out.append(Comparison(a, b, f"{mode} · {kind} model · by {unit}", levels))
        return out

    def build(self, site: Site) -> None:
        site.render(self.template, self.file, comparisons=self.comparisons(site), alpha=stats.ALPHA)


PAGE = AbPage()
