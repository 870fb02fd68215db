"""The CI gate's verdict (`mcpbench ci`, docs/ci.md) as one record, and the files it is written as: gate.json (this
model, its own GATE_SCHEMA), gate.md (a pull request's comment or `$GITHUB_STEP_SUMMARY`: the verdict first, then a
table per level) and gate.junit.xml (a test case per regression check, for a CI's test view; written with
junitparser). The record is made once, from the rule's checks (analysis/gate.py), and every file is a view of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite
from pydantic import Field

from mcpbench.records import Closed, described
from mcpbench.results.assertions import AssertionResult
from mcpbench.results.model import Environment
from mcpbench.results.write import write_json

# Its own version (asv: a version per file type): a change of a field's meaning is a new number.
GateSchema = Literal[1]
GATE_SCHEMA: GateSchema = 1
GATE_FILE = "gate.json"
GATE_MARKDOWN = "gate.md"
GATE_JUNIT = "gate.junit.xml"

Verdict = Literal["regression", "no regression", "not measured"]
Stage = Literal["screen", "confirmation"]
CheckOutcome = Literal["regression", "improvement", "no change", "not tested"]
# Exit codes (docs/ci.md): what a CI step reads.
EXIT_CODES: dict[Verdict, int] = {"no regression": 0, "regression": 1, "not measured": 2}


class GateSide(Closed):
    name: str = described("the target's name (base, candidate)")
    command: str = described("how it was started: its command, or its URL")


class GateCheck(Closed):
    stage: Stage = described("`screen`: rounds 1…R, every check; `confirmation`: the new rounds, suspected checks only")
    level: str = described("the load, as its measurement directory is named (e.g. session-10vu)")
    figure: str = described("cpu_ms_per_call, p99_ms or calls_per_s")
    title: str = described("the figure in words")
    unit: str = described("its unit")
    base: float | None = described("the base's figure: geometric mean over its rounds (p99: of the per-round p99s)")
    candidate: float | None = described("the candidate's, the same way")
    ratio: float | None = described("candidate / base: geometric mean of the per-round ratios")
    low: float | None = described("its interval's low end, simultaneous over the stage's checks (null: not tested)")
    high: float | None = described("its high end")
    rounds: int = described("rounds both sides were measured in")
    outcome: CheckOutcome = described("what the stage's test says of it")


class Gate(Closed):
    schema_: GateSchema = Field(alias="schema", description="this file's format version (GATE_SCHEMA)")
    verdict: Verdict = described("`regression`: one confirmed (exit 1); `no regression` (exit 0); `not measured`: "
                                 "a side could not be measured (exit 2, `reason`)")
    reason: str | None = described("why not measured, or which regressions were confirmed")
    run_id: str = described("the results directory's run id")
    base: GateSide = described("the base")
    candidate: GateSide = described("the candidate")
    min_effect: float = described("the smallest change counted, as a ratio beyond 1 (0.05: 5 %)")
    screen_alpha: float = described("the screen's family-wise level (two-sided, Bonferroni over its checks)")
    confirm_alpha: float = described("the confirmation's")
    rounds: int = described("the screen's rounds")
    confirm_rounds: int = described("the confirmation's rounds, measured only when a regression was suspected")
    checks: list[GateCheck] = described("every check of both stages")
    confirmed: list[str] = described("the confirmed regressions, `level figure`")
    not_checked: dict[str, str] = described("`level figure` -> why it was not checked: a limit other than the "
                                            "server's set it (the load model's VUs and think time set calls/s)")
    assertions: list[AssertionResult] = described("--assert's outcomes for both sides at every level (empty: none "
                                                  "given); a failed one fails the step (exit 1) too")
    environment: Environment = described("run.json's environment: the machine, its fingerprint and the tools")

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def stage(self, stage: Stage) -> list[GateCheck]:
        return [check for check in self.checks if check.stage == stage]

    # -- gate.md -----------------------------------------------------------------------------------------------
    def markdown(self) -> str:
        """The verdict first, then one table per level (base, candidate, ratio, interval, outcome)."""
        head = {"regression": "❌ **Regression confirmed**", "no regression": "✅ **No regression**",
                "not measured": "⚠️ **Not measured**"}[self.verdict]
        lines = [f"### mcpbench: {head} — `{self.candidate.name}` against `{self.base.name}`", ""]
        if self.reason:
            lines += [self.reason, ""]
        suspected = [c for c in self.stage("screen") if c.outcome == "regression"]
        lines.append(f"{len(self.stage('screen'))} checks over {self.rounds} interleaved rounds; "
                     f"{len(suspected)} suspected, "
                     + (f"measured again in {self.confirm_rounds} new rounds, {len(self.confirmed)} confirmed."
                        if suspected else "so nothing was measured again.")
                     + f" A change counts beyond ×{1 + self.min_effect:g} with its interval clear of 1.")
        for level in dict.fromkeys(c.level for c in self.checks):
            lines += ["", f"#### {level}", "",
                      "| figure | stage | base | candidate | ratio | interval | outcome |",
                      "|---|---|---:|---:|---:|---|---|"]
            for c in (c for c in self.checks if c.level == level):
                lines.append(f"| {c.title} ({c.unit}) | {c.stage} | {_num(c.base)} | {_num(c.candidate)} | "
                             f"{_ratio(c.ratio)} | {_interval(c)} | {_outcome(c.outcome)} |")
        if self.assertions:
            lines += ["", "#### Assertions", "", "| side | level | criterion | median | outcome |",
                      "|---|---|---|---:|---|"]
            for a in self.assertions:
                lines.append(f"| {a.server} | {a.level} | `{a.criterion}` | {_num(a.value)} | "
                             f"{'**fail**' if a.outcome == 'fail' else a.outcome} |")
        if self.not_checked:
            lines += ["", "Not checked: " + "; ".join(f"{key} ({why})" for key, why in self.not_checked.items()) + "."]
        lines += ["", f"<sub>run `{self.run_id}` · screen α {self.screen_alpha:g} two-sided, confirmation α "
                      f"{self.confirm_alpha:g} one-sided (paired t on log ratios, Bonferroni over each stage's "
                      "checks) · how to read it: mcpbench's docs/ci.md</sub>", ""]
        return "\n".join(lines)

    # -- gate.junit.xml ----------------------------------------------------------------------------------------
    def junit(self) -> JUnitXml:
        """A test case per check (screen and confirmation): a confirmed regression fails, a regression only
        suspected passes (its confirmation decides), an untested check is skipped."""
        suite = TestSuite(f"mcpbench ci: {self.candidate.name} against {self.base.name}")
        confirmed = set(self.confirmed)
        for c in self.checks:
            case = TestCase(f"{c.level} {c.figure}", classname=f"mcpbench.ci.{c.stage}")
            said = (f"{c.title}: base {_num(c.base)} {c.unit}, candidate {_num(c.candidate)} {c.unit}, "
                    f"ratio {_ratio(c.ratio)} {_interval(c)}: {c.outcome}")
            if c.outcome == "not tested":
                case.result = [Skipped(said)]
            elif c.stage == "confirmation" and f"{c.level} {c.figure}" in confirmed:
                case.result = [Failure(said, "regression")]
            case.system_out = said
            suite.add_testcase(case)
        for assertion in self.assertions:
            suite.add_testcase(assertion.testcase())
        xml = JUnitXml()
        xml.add_testsuite(suite)
        return xml

    def write(self, directory: Path) -> dict[str, Path]:
        """gate.json, gate.md and gate.junit.xml in `directory`; their paths by format."""
        paths = {"json": directory / GATE_FILE, "markdown": directory / GATE_MARKDOWN,
                 "junit": directory / GATE_JUNIT}
        write_json(paths["json"], self.model_dump(mode="json", by_alias=True))
        paths["markdown"].write_text(self.markdown(), encoding="utf-8")
        self.junit().write(str(paths["junit"]), pretty=True)
        return paths


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:#.4g}"


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"×{value:.3f}"


def _interval(check: GateCheck) -> str:
    if check.low is None or check.high is None:
        return f"not tested ({check.rounds} shared round(s))"
    return f"{check.low:.3f}–{check.high:.3f}"


def _outcome(outcome: str) -> str:
    return {"regression": "**regression**", "improvement": "improvement"}.get(outcome, outcome)
