"""Where the time goes: per server, three overheads as ratios of measurements the suite already makes.

  SDK        the server's CPU per call / the no-SDK baseline's (manifest sdk = "none"), same load, same round
  session    session mode / stateless mode of the same server and load: CPU per call, and the median time
             of one whole iteration — in session mode initialize → notifications/initialized → tools/call →
             DELETE, every request a session costs its client (the tools/call alone would leave the session
             out: the recorded baseline read ×0.57, as if sessions made calls faster)
  transport  HTTP stateless / stdio of the same server and load: CPU per call and the median iteration time
  what-if    a what-if variant (a manifest's `what_if`, or a `--what-if` twin: DNS-rebinding protection off,
             4 workers, an older runtime) / the server it varies, same load: CPU per call and iteration time

Each ratio pairs measurements of the same round of the same run (measured minutes apart, in the shuffled
order the round had), so a slow spell of the host weighs on both sides. The cell is the geometric mean of the
per-round ratios with a 95 % t interval on their logarithms, over n rounds; below stats.MIN_ROUNDS rounds the
ratio is shown as "too few rounds" without an interval (with 2 rounds t = 12.7: an interval so wide it says
nothing), none gives "not measured". Only clean measurements are paired: one carrying any flag (an unsteady
host, a saturated load generator or service, a load judged against no limit) is left out — except
bound:load-model, which says only that the closed loop's VUs and think time offered less than the server
could serve: its CPU per call and iteration time are still the server's own at that load, the same load
for both sides of the pair (a fast server meets that limit at any VU count, so leaving it out would leave
out every fast server).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from mcpbench.analysis import summary as analysis
from mcpbench.results import model

from . import stats
from .consolidate import Consolidated, Group, RunData
from .load import LoadKey
from .stats import K

NO_SDK = "none"  # a manifest's `sdk` for the hand-written reference (servers/baseline)
PAIRABLE_FLAGS = frozenset({f"{analysis.HARNESS_BOUND_PREFIX}{analysis.LOAD_MODEL}"})  # see the module's doc


@dataclass(frozen=True)
class Ratio:
    value: float
    low: float | None     # 95 % interval (None: fewer than stats.MIN_ROUNDS rounds)
    high: float | None
    n: int                # rounds paired
    load: str             # the load it was measured at

    @property
    def text(self) -> str:
        if self.low is None:
            return f"×{self.value:.2f} ({self.n} round{'s' if self.n != 1 else ''}: too few rounds for an interval)"
        return f"×{self.value:.2f} [{self.low:.2f}–{self.high:.2f}]"


FINDING_MARGIN = 0.02  # a what-if that moves CPU per call by more than this, surely, is a finding (issue 24)


def beyond(ratio: Ratio | None, margin: float = FINDING_MARGIN) -> bool:
    """Whether the whole interval lies more than `margin` away from 1 (a ratio without one never does)."""
    return bool(ratio and ratio.low is not None and ratio.high is not None
                and (ratio.high < 1 - margin or ratio.low > 1 + margin))


def paired_ratio(a: Mapping[K, float | None], b: Mapping[K, float | None], load: str) -> Ratio | None:
    """a / b over the rounds both have a positive figure for."""
    logs = [math.log(x / y) for k, x in a.items() if (y := b.get(k)) and x and x > 0 and y > 0]
    if not logs:
        return None
    mean = float(np.mean(logs))
    if len(logs) < stats.MIN_ROUNDS:
        return Ratio(math.exp(mean), None, None, len(logs), load)
    half = stats.t_quantile(0.975, len(logs) - 1) * float(np.std(logs, ddof=1)) / math.sqrt(len(logs))
    return Ratio(math.exp(mean), math.exp(mean - half), math.exp(mean + half), len(logs), load)


def _median_iteration(run: RunData) -> float | None:
    return float(np.median(run.session)) if len(run.session) else None


FIGURES: dict[str, Callable[[RunData], float | None]] = {
    "cpu": lambda run: run.cpu_ms_per_call,
    "latency": _median_iteration,
}


def _by_round(group: Group, figure: str) -> dict[tuple[str, int], float | None]:
    """A figure per round, of the clean measurements only (no flag but PAIRABLE_FLAGS)."""
    return {run.round_id: FIGURES[figure](run) for run in group.runs if set(run.flags) <= PAIRABLE_FLAGS}


def _best(pairs: list[tuple[Group, Group]], figure: str) -> Ratio | None:
    """The ratio over the load with the most paired rounds (ties: the highest load)."""
    tried = [(paired_ratio(_by_round(a, figure), _by_round(b, figure), a.key.label), a.key.load) for a, b in pairs]
    found = [(r, level) for r, level in tried if r is not None]
    return max(found, key=lambda item: (item[0].n, item[1]))[0] if found else None


@dataclass
class DecompositionRow:
    server: str
    display_name: str
    cells: dict[str, Ratio | None]   # sdk_cpu, session_cpu, session_latency, transport_cpu, transport_latency


COLUMNS = (
    ("sdk_cpu", "SDK: CPU per call vs the no-SDK baseline"),
    ("session_cpu", "Session: CPU per call, session / stateless"),
    ("session_latency", "Session: median whole-iteration time (the whole session), session / stateless"),
    ("transport_cpu", "Transport: CPU per call, HTTP stateless / stdio"),
    ("transport_latency", "Transport: median iteration time, HTTP stateless / stdio"),
    ("what_if_cpu", "What-if: CPU per call, this variant / the server it varies"),
    ("what_if_latency", "What-if: median iteration time, this variant / the server it varies"),
)


def _with_mode(key: LoadKey, mode: str) -> LoadKey:
    return LoadKey(mode, key.kind_name, key.load, key.basis)


def decomposition(cons: Consolidated) -> list[DecompositionRow]:
    """A row per server that has any cell; empty when nothing could be paired."""
    references = [name for name, view in cons.servers.items() if view.manifest and view.manifest.sdk == NO_SDK]
    rows = []
    for name, view in cons.servers.items():
        mine = {key: group for (server, key), group in cons.groups.items() if server == name}
        sdk: list[tuple[Group, Group]] = []
        if name not in references:
            sdk = [(group, cons.groups[(ref, key)]) for key, group in mine.items() for ref in references
                   if (ref, key) in cons.groups]
        session = [(group, mine[_with_mode(key, "stateless")]) for key, group in mine.items()
                   if key.mode == "session" and _with_mode(key, "stateless") in mine]
        transport = [(group, mine[_with_mode(key, "stdio")]) for key, group in mine.items()
                     if key.mode == "stateless" and _with_mode(key, "stdio") in mine]
        base = view.manifest.variant_of if view.manifest and view.manifest.what_if else None
        what_if = [(group, cons.groups[(base, key)]) for key, group in mine.items()
                   if base is not None and (base, key) in cons.groups]
        cells = {"sdk_cpu": _best(sdk, "cpu"),
                 "session_cpu": _best(session, "cpu"), "session_latency": _best(session, "latency"),
                 "transport_cpu": _best(transport, "cpu"), "transport_latency": _best(transport, "latency"),
                 "what_if_cpu": _best(what_if, "cpu"), "what_if_latency": _best(what_if, "latency")}
        if any(cells.values()):
            rows.append(DecompositionRow(name, view.display_name, cells))
    return sorted(rows, key=lambda r: r.display_name)


def what_ifs_of(rows: list[DecompositionRow], server: str,
                manifests: Mapping[str, model.Server | None]) -> list[DecompositionRow]:
    """The rows with a what-if cell that vary `server`, or are `server` varying another: its server page's."""
    return [row for row in rows if (row.cells["what_if_cpu"] or row.cells["what_if_latency"])
            and server in (row.server, _variant_of(manifests.get(row.server)))]


def _variant_of(manifest: model.Server | None) -> str | None:
    return manifest.variant_of if manifest else None
