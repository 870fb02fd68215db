"""ab.html: two or more configurations of one server given on the command line (`mcpbench run --target A=…
--target B=…`), measured in the same rounds, side by side at each level of the sweep: throughput of each and the
speedup B / A with its interval, all-calls p50 and p99 of each, and CPU per call where the suite started the
server — the table a team publishes when it tunes its server.

The speedup's interval (stats.speedups): a paired t on log(B/A) over the rounds both were measured in,
Bonferroni-simultaneous over the levels of the table (the question "where does B differ from A" is one family);
replayed on recorded rounds it separates A from itself in 3.7 % of 3-level families (validation.ab_replay)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import stats
from ..consolidate import Group, LoadKey
from ..site import Site
from . import Page


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
    speedup: stats.Speedup
    cpu_ratio: stats.Speedup


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    sweep: str
    levels: list[Level]


def _side(group: Group | None) -> Side:
    if group is None:
        return Side(None, None, None, None, 0)
    latency = group.pooled_latency_all
    p50, p99 = (float(np.percentile(latency, q)) for q in (50, 99)) if latency.size else (None, None)
    return Side(stats.geo_interval(group.throughputs).mean, p50, p99,
                stats.geo_interval([r.cpu_ms_per_call for r in group.runs]).mean, len(group.runs))


def _speedups(pairs: dict[LoadKey, tuple[Group, Group]], metric: str) -> dict[LoadKey, stats.Speedup]:
    """B / A at each level of one sweep (stats.speedups: one prior over the levels, simultaneous over them)."""
    return stats.speedups({key: (a.by_round(metric), b.by_round(metric)) for key, (a, b) in pairs.items()})


class AbPage(Page):
    file = "ab.html"
    template = "ab.html"
    nav = (("A/B", ""),)
    order = 15

    @staticmethod
    def targets(site: Site) -> list[str]:
        """The servers given on the command line (a workload file of their own), in the order the run named them."""
        named = [name for d in site.cons.dirs for name in d.config.servers]
        return [name for name in dict.fromkeys(named) if name in site.cons.servers and site.cons.given(name)]

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
            for (mode, kind, _basis), pairs in sweeps.items():
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
