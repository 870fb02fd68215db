"""`--assert`'s outcomes (analysis/slo.py) as one record: assertions.json (its own ASSERTIONS_SCHEMA) and
assertions.junit.xml (a test case per assertion, a failure per assertion broken; junitparser), written by any run
given `--assert`; `mcpbench ci` carries the same outcomes in its gate's files."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite
from pydantic import Field

from mcpbench.records import Closed, described
from mcpbench.results.write import write_json

AssertionsSchema = Literal[1]
ASSERTIONS_SCHEMA: AssertionsSchema = 1
ASSERTIONS_FILE = "assertions.json"
ASSERTIONS_JUNIT = "assertions.junit.xml"
AssertionOutcome = Literal["pass", "fail", "not measured"]


class AssertionResult(Closed):
    server: str = described("the server")
    level: str = described("the load, as its measurement directory is named")
    criterion: str = described("as given, e.g. p99<50ms")
    value: float | None = described("the median over its rounds (errors: a fraction)")
    by_round: dict[int, float | None] = described("each round's figure")
    outcome: AssertionOutcome = described("`not measured`: no round has the figure")
    text: str = described("the outcome in one line")

    def testcase(self) -> TestCase:
        case = TestCase(f"{self.server} {self.level} {self.criterion}", classname="mcpbench.assert")
        if self.outcome == "fail":
            case.result = [Failure(self.text, "assertion")]
        elif self.outcome == "not measured":
            case.result = [Skipped(self.text)]
        case.system_out = self.text
        return case


class Assertions(Closed):
    schema_: AssertionsSchema = Field(alias="schema", description="this file's format version (ASSERTIONS_SCHEMA)")
    run_id: str = described("the results directory's run id")
    given: str = described("--assert as given")
    results: list[AssertionResult] = described("every criterion for every server and level")

    @property
    def failed(self) -> list[AssertionResult]:
        return [a for a in self.results if a.outcome == "fail"]

    def junit(self) -> JUnitXml:
        suite = TestSuite(f"mcpbench --assert {self.given}")
        for result in self.results:
            suite.add_testcase(result.testcase())
        xml = JUnitXml()
        xml.add_testsuite(suite)
        return xml

    def write(self, directory: Path) -> dict[str, Path]:
        paths = {"json": directory / ASSERTIONS_FILE, "junit": directory / ASSERTIONS_JUNIT}
        write_json(paths["json"], self.model_dump(mode="json", by_alias=True))
        self.junit().write(str(paths["junit"]), pretty=True)
        return paths
