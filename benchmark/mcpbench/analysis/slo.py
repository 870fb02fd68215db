"""The one SLO grammar: `capacity --slo` judges each step by it, and `--assert` (run, ci) each server at each level.

"p99<100ms,p95<50ms,errors<1%,cpu_ms_per_call<2": the all-calls percentiles p50 … p999 (failures at their time,
timeouts at the timeout) in ms or s, the share of failed tool calls in %, and the server's CPU ms per successful
call (ms, the unit optional). Every criterion is "below".

An assertion (`--assert`) holds for a server at a level when the median over its rounds holds: one round of a
shared host's slow minute does not fail a build, and two rounds of three must break it to fail it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import median

from mcpbench.results.model import Summary

_CRITERION = re.compile(r"^\s*(p50|p90|p95|p99|p999|errors|cpu_ms_per_call)\s*<\s*([0-9]*\.?[0-9]+)\s*(ms|s|%)?\s*$")
EXAMPLE = "p99<100ms,errors<1%,cpu_ms_per_call<2"


class SloError(ValueError):
    """An --slo or --assert string that does not parse (one clear line)."""


@dataclass(frozen=True)
class Criterion:
    metric: str      # p50 … p999 (all-calls latency), errors, or cpu_ms_per_call
    limit: float     # ms for latency and CPU per call, a fraction for errors

    @property
    def text(self) -> str:
        if self.metric == "errors":
            return f"errors<{self.limit * 100:g}%"
        return f"{self.metric}<{self.limit:g}" + ("" if self.metric == "cpu_ms_per_call" else "ms")

    def value(self, summary: Summary) -> float | None:
        if self.metric == "errors":
            return summary.errors.rate
        if self.metric == "cpu_ms_per_call":
            return summary.efficiency.cpu_ms_per_call
        all_calls = summary.latency_ms.tool_call_all
        return getattr(all_calls, self.metric) if all_calls is not None else None

    def holds(self, value: float | None) -> bool:
        return value is not None and value < self.limit


def parse_slo(text: str, option: str = "--slo") -> tuple[Criterion, ...]:
    """"p99<100ms,p95<50ms,errors<1%" as criteria; SloError naming the part that does not parse."""
    criteria = []
    for part in text.split(","):
        match = _CRITERION.match(part)
        if not match:
            raise SloError(f"{option}: cannot read {part.strip()!r}; write e.g. \"{EXAMPLE}\"")
        metric, number, unit = match.group(1), float(match.group(2)), match.group(3)
        if metric == "errors":
            if unit not in (None, "%"):
                raise SloError(f"{option}: errors take a percentage, got {part.strip()!r}")
            criteria.append(Criterion(metric, number / 100))
        elif metric == "cpu_ms_per_call":
            if unit not in (None, "ms"):
                raise SloError(f"{option}: cpu_ms_per_call is in ms, got {part.strip()!r}")
            criteria.append(Criterion(metric, number))
        else:
            if unit not in ("ms", "s"):
                raise SloError(f"{option}: {metric} needs a unit (ms or s), got {part.strip()!r}")
            if number <= 0:
                raise SloError(f"{option}: {part.strip()!r} can never hold")
            criteria.append(Criterion(metric, number * (1000 if unit == "s" else 1)))
    if len({c.metric for c in criteria}) != len(criteria):
        raise SloError(f"{option}: each figure at most once")
    return tuple(criteria)


@dataclass(frozen=True)
class Assertion:
    """One criterion for one server at one level, judged on the median over its rounds."""

    server: str
    level: str
    criterion: Criterion
    by_round: dict[int, float | None]

    @property
    def value(self) -> float | None:
        values = [v for v in self.by_round.values() if v is not None]
        return median(values) if values else None

    @property
    def outcome(self) -> str:
        """pass, fail, or not measured (no round has the figure: a URL's CPU, a level that failed)."""
        if self.value is None:
            return "not measured"
        return "pass" if self.criterion.holds(self.value) else "fail"

    @property
    def text(self) -> str:
        shown = "—" if self.value is None else (f"{self.value * 100:.2f}%" if self.criterion.metric == "errors"
                                                 else f"{self.value:.3g}")
        return f"{self.server} {self.level} {self.criterion.text}: {shown} (median of {len(self.by_round)} " \
               f"round(s)) {self.outcome}"


def assertions(criteria: tuple[Criterion, ...],
               measured: Mapping[tuple[str, str], Mapping[int, Summary]]) -> list[Assertion]:
    """Every criterion for every (server, level) measured, from the summaries kept per round (status ok only:
    a failed measurement has no figure of the server's to judge)."""
    return [Assertion(server, level, criterion,
                      {r: criterion.value(s) for r, s in sorted(rounds.items()) if s.status == "ok"})
            for (server, level), rounds in measured.items() for criterion in criteria]
