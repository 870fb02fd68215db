"""`mcpbench ci`: a CI step's question, "did this change make my server slower?" (docs/ci.md). A base and a
candidate of one server (`--base`, `--candidate`: a command, a URL, or with `--transport stdio` a stdio
command; or two `--target`s) are measured at every level in the same interleaved rounds, each on a fresh
start; the gate's rule (analysis/gate.py) screens every figure at every level, measures the levels with a
suspected regression again in new rounds, and fails only on a regression those rounds confirm. The verdict is
gate.json, gate.md and gate.junit.xml in the results directory (results/gate.py), and the exit code: 0 no
confirmed regression, 1 a confirmed one, 2 something could not be measured."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar, Optional

from pydantic import BaseModel

from mcpbench.analysis import gate
from mcpbench.analysis.summary import HARNESS_BOUND_PREFIX, LOAD_MODEL, is_bound, limited_by
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.experiments.config import RunConfig
from mcpbench.experiments.options import CALIBRATION, LOAD, MEASURING, Option, Values
from mcpbench.experiments.run import ASSERT, TIMING, RunExperiment, timing_of
from mcpbench.loads import KINDS
from mcpbench.results.gate import GATE_SCHEMA, Gate, GateCheck, GateSide

LOAD_MODEL_BOUND = f"{HARNESS_BOUND_PREFIX}{LOAD_MODEL}"
DEFAULT_LEVELS = "1,10"
DEFAULT_ROUNDS = 3
# The confirmation's rounds measure one or two levels only, so they are cheap; five give its one-sided test four
# degrees of freedom where three gave two (a 1.5x regression confirmed far more often: docs/ci.md).
DEFAULT_CONFIRM_ROUNDS = 5
# A CI step's timeline (docs/ci.md): a fixed 5 s warm-up and a 5 s window on each fresh start. Both sides get the
# same one, so their ratio is fair; a JIT server whose figures still move after 5 s wants --warmup auto.
CI_TIMING = {"warmup": ("5", "Fixed warm-up seconds on each fresh start (default 5), or 'auto': until throughput, "
                          "latency and CPU per call are steady (10-60 s)."),
             "duration": ("5", "Measured seconds per measurement (default 5; or 90s, 2m).")}


class CiSettings(BaseModel):
    """run.json config.settings of a `mcpbench ci` run."""

    base: str
    candidate: str
    rounds: int
    confirm_rounds: int
    min_effect: float
    screen_alpha: float
    confirm_alpha: float


def _fraction(value: float) -> float:
    if not 0 <= value < 1:
        raise ValueError(f"--min-effect {value:g}: give a ratio in [0, 1), e.g. 0.05 for 5 %")
    return value


class CiExperiment(RunExperiment):
    name = "ci"
    order = 22
    help = ("A base and a candidate of one server measured in the same interleaved rounds; a suspected regression "
            "is measured again before it counts. Writes gate.json, gate.md and gate.junit.xml; exits 1 on a "
            "confirmed regression, 2 when a side could not be measured (docs/ci.md).")
    options: ClassVar[tuple[Option, ...]] = (
        Option("base", Optional[str], None, "The base: the command that starts it ({port} in it), its URL, or "
               "with --transport stdio its stdio command.", ("--base",), metavar="'CMD'"),
        Option("candidate", Optional[str], None, "The candidate, given as --base is.", ("--candidate",),
               metavar="'CMD'"),
        *MEASURING, *CALIBRATION,
        *(option.but(default=DEFAULT_LEVELS, help="The levels: closed-model VUs, e.g. 1,10 (each a check of every "
                                                  "figure).") if option.name == "vus" else option for option in LOAD),
        Option("quick", bool, True, "Short windows (default), or the full profile's timing.", ("--quick/--full",)),
        *(option.but(default=CI_TIMING[option.name][0], help=CI_TIMING[option.name][1]) if option.name in CI_TIMING
          else option for option in TIMING),
        Option("runs", int, DEFAULT_ROUNDS, "Interleaved rounds of the screen.", ("--rounds",), minimum=2),
        Option("confirm_rounds", int, DEFAULT_CONFIRM_ROUNDS, "New rounds that measure the levels of a suspected "
               "regression again (0: a suspected regression fails at once).", minimum=0),
        Option("min_effect", float, gate.MIN_EFFECT, "The smallest change that counts, as a ratio beyond 1 "
               "(0.05: 5 %).", check=_fraction),
        Option("transport", str, "http", "http, or stdio: --base and --candidate are stdio commands the load "
               "driver starts."),
        ASSERT,
    )
    retakes = True

    def configure(self, values: Values, specs: list[ServerSpec]) -> RunConfig:
        transport = values.get("transport") or "http"
        if transport not in ("http", "stdio"):
            raise ValueError(f"--transport {transport!r}: choose http or stdio")
        if len(specs) != 2:
            raise ValueError(f"mcpbench ci compares two servers, a base and a candidate (--base and --candidate, or "
                             f"two --target); {len(specs)} given")
        if KINDS[values.get("load") or "closed"].model != "closed":
            raise ValueError("mcpbench ci measures the closed model at --vus levels")
        self.base, self.candidate = specs
        self.criteria(values)
        self.screen_rounds: int = values.get("runs") or DEFAULT_ROUNDS
        self.confirm_rounds: int = values.get("confirm_rounds", DEFAULT_CONFIRM_ROUNDS)
        self.min_effect: float = values.get("min_effect", gate.MIN_EFFECT)
        self.equal_rates = {}
        self.stopping = None
        self.screen: dict[tuple[str, str], gate.Check] = {}
        self.suspected: list[tuple[str, str]] = []
        self.unchecked: dict[str, str] = {}   # "level figure" -> why the screen left it out
        self.gate: Gate | None = None
        return RunConfig.from_options(values, [*specs], timing_of(values),
                                      modes=("stdio",) if transport == "stdio" else None,
                                      runs=self.screen_rounds + self.confirm_rounds, shuffle=True, load="closed")

    def settings(self) -> BaseModel:
        return CiSettings(base=self.base.name, candidate=self.candidate.name, rounds=self.screen_rounds,
                          confirm_rounds=self.confirm_rounds, min_effect=self.min_effect,
                          screen_alpha=gate.SCREEN_ALPHA, confirm_alpha=gate.CONFIRM_ALPHA)

    # -- what it measures --------------------------------------------------------------------------------------
    def measure_server(self, server) -> None:
        loads = [load for load in self.config.loads(server.round) if load.mode in server.modes]
        if server.round > self.screen_rounds:  # a confirmation round: only the levels of a suspected regression
            levels = {level for level, _ in self.suspected}
            loads = [load for load in loads if load.label in levels]
        random.shuffle(loads)
        for load in loads:
            self._measure(server, load)

    def more_rounds(self, runner, round_index: int) -> bool:
        if round_index == self.screen_rounds:
            self.screen = gate.screen(self._pairs(range(1, self.screen_rounds + 1)), self.min_effect)
            self.suspected = gate.suspected(self.screen)
            said = ", ".join(f"{level} {figure}" for level, figure in self.suspected) or "none"
            self.console.print(f"[bold]Screen[/] over {self.screen_rounds} rounds: suspected regressions: {said}"
                               + (f"; measuring them again in {self.confirm_rounds} new rounds"
                                  if self.suspected and self.confirm_rounds else ""))
            return bool(self.suspected) and self.confirm_rounds > 0
        return round_index < self.config.runs

    # -- its verdict -------------------------------------------------------------------------------------------
    @property
    def levels(self) -> list[str]:
        return [load.label for load in self.config.loads(1)]

    @property
    def figures(self) -> tuple[gate.Figure, ...]:
        started = self.base.url is None and self.candidate.url is None
        return gate.figures_for(started)

    def _by_round(self, server: str, level: str, figure: gate.Figure, rounds: Iterable[int]) -> dict[int, float | None]:
        kept = self.measured.get((server, level), {})
        return {r: figure.of(kept[r]) for r in rounds if r in kept and kept[r].status == "ok"}

    def _limits(self, level: str, figure: gate.Figure, rounds: list[int]) -> list[str]:
        """What other than the server set the figure at the level in these rounds (a measurement's bound:
        flags, in words): the closed model's own limit sets calls/s; the harness's CPU sets calls/s and the
        p99 too. CPU per call is the server's whatever limited the load."""
        if figure is gate.CPU:
            return []
        flags = {flag for spec in (self.base, self.candidate)
                 for r, summary in self.measured.get((spec.name, level), {}).items() if r in rounds
                 for flag in summary.flags if is_bound(flag)}
        if figure is gate.P99:
            flags.discard(LOAD_MODEL_BOUND)
        return limited_by(sorted(flags))

    def _pairs(self, rounds: Iterable[int], keys: list[tuple[str, str]] | None = None) -> gate.Pairs:
        """(level, figure) -> (base, candidate) by round over `rounds`: every check (less those a limit other
        than the server's set, kept in self.unchecked), or `keys`."""
        rounds = list(rounds)
        wanted = keys if keys is not None else [(level, f.name) for level in self.levels for f in self.figures]
        pairs: dict[tuple[str, str], tuple[gate.Rounds, gate.Rounds]] = {}
        for level, name in wanted:
            limits = self._limits(level, gate.FIGURES[name], rounds) if keys is None else []
            if limits:
                self.unchecked[f"{level} {name}"] = "set by " + " and ".join(limits) + ", not by the server"
                continue
            pairs[(level, name)] = (self._by_round(self.base.name, level, gate.FIGURES[name], rounds),
                                    self._by_round(self.candidate.name, level, gate.FIGURES[name], rounds))
        return pairs

    def _record(self, stage: str, check: gate.Check, rounds: Iterable[int]) -> GateCheck:
        figure = gate.FIGURES[check.figure]
        rounds = list(rounds)
        sides = [gate.geometric_mean(self._by_round(spec.name, check.level, figure, rounds).values())
                 for spec in (self.base, self.candidate)]
        return GateCheck(stage=stage, level=check.level, figure=figure.name, title=figure.title, unit=figure.unit,
                         base=sides[0], candidate=sides[1], ratio=check.ratio, low=check.low, high=check.high,
                         rounds=check.rounds, outcome=check.outcome)

    def judge(self, runner) -> Gate:
        """The gate's record from what was measured: the screen, the confirmation, the verdict."""
        assert runner.record is not None
        run = runner.record.run
        screen_rounds = range(1, self.screen_rounds + 1)
        confirm_rounds = range(self.screen_rounds + 1, self.config.runs + 1)
        if not self.screen:  # the run ended before the screen's last round
            self.screen = gate.screen(self._pairs(screen_rounds), self.min_effect)
            self.suspected = gate.suspected(self.screen)
        confirmation = gate.confirm(self._pairs(confirm_rounds, self.suspected), self.min_effect) \
            if self.suspected and self.confirm_rounds else {}
        confirmed = gate.confirmed(confirmation, self.screen) if self.confirm_rounds else list(self.suspected)
        checks = [self._record("screen", c, screen_rounds) for c in self.screen.values()]
        checks += [self._record("confirmation", c, confirm_rounds) for c in confirmation.values()]
        failed = [f"{name}: {server.status}{' at ' + server.phase if server.phase else ''} — {server.reason}"
                  for name, server in run.servers.items() if server.status not in ("ok", "running")]
        untested = [c for c in checks if c.outcome == "not tested"]
        if confirmed:
            verdict = "regression"
            reason = "Confirmed: " + ", ".join(f"{level} {figure}" for level, figure in confirmed)
        elif failed or run.status != "complete" or untested:
            verdict = "not measured"
            reason = "; ".join(failed) or (f"the run ended {run.status}" if run.status != "complete" else
                                           f"{len(untested)} check(s) had fewer than {gate.MIN_ROUNDS} rounds of "
                                           "both sides measured")
        else:
            verdict, reason = "no regression", None
        return Gate(schema=GATE_SCHEMA, verdict=verdict, reason=reason, run_id=run.run_id,
                    base=GateSide(name=self.base.name, command=_command(self.base)),
                    candidate=GateSide(name=self.candidate.name, command=_command(self.candidate)),
                    min_effect=self.min_effect, screen_alpha=gate.SCREEN_ALPHA, confirm_alpha=gate.CONFIRM_ALPHA,
                    rounds=self.screen_rounds, confirm_rounds=self.confirm_rounds, checks=checks,
                    confirmed=[f"{level} {figure}" for level, figure in confirmed], not_checked=self.unchecked,
                    assertions=self.assertions.results if self.assertions else [], environment=run.environment)

    def conclude(self, runner) -> None:
        if runner.record is None:
            return
        self.judge_assertions(runner)
        self.gate = self.judge(runner)
        paths = self.gate.write(Path(runner.run_dir.path))
        colour = {"regression": "red", "no regression": "green"}.get(self.gate.verdict, "yellow")
        self.console.print(f"[bold {colour}]Gate: {self.gate.verdict}[/]" + (f" — {self.gate.reason}"
                                                                             if self.gate.reason else ""))
        for check in self.gate.checks:
            interval = f"{check.low:.3f}–{check.high:.3f}" if check.low and check.high else "not tested"
            ratio = f"×{check.ratio:.3f}" if check.ratio else "—"
            self.console.print(f"  {check.stage} {check.level} {check.figure}: {ratio} ({interval}) {check.outcome}",
                               highlight=False)
        for key, why in self.gate.not_checked.items():
            self.console.print(f"  not checked: {key}: {why}", highlight=False)
        self.console.print("Gate files: " + ", ".join(str(p) for p in paths.values()), highlight=False)

    def exit_code(self, runner) -> int | None:
        """The gate's (0, 1 a confirmed regression, 2 not measured); 1 too when an --assert failed."""
        if self.gate is None:
            return 2
        failed = self.assertions is not None and self.assertions.failed
        return 1 if failed and self.gate.exit_code == 0 else self.gate.exit_code


def _command(spec: ServerSpec) -> str:
    argv = spec.run_command or spec.stdio_command or ()
    return spec.url or " ".join(argv)


EXPERIMENT = CiExperiment
