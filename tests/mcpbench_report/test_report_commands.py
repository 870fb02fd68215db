"""mcpbench_report.commands: the Typer functions behind `mcpbench report` and `mcpbench compare`."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from mcpbench_report import commands

from report_helpers import AGAIN, HALF_CPU, ROUNDS, steady, write_results


@pytest.fixture(scope="module")
def app():
    app = typer.Typer()
    app.command("report")(commands.report)
    app.command("compare")(commands.compare)
    return app


def run(app, *args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def test_signatures_are_as_agreed():
    report = inspect.signature(commands.report)
    # target_rate (the capacity page's sizing) came with `mcpbench capacity`
    # wide: every column of the console ranking (an 80-column terminal gets one line per server, issue 21)
    # history, budgets and prices: the history page and the decision page (issue 25)
    # issue 35: the pages declare their own options (pages/*.py), after the command's own, in nav order
    assert list(report.parameters) == ["results", "out", "allow_mixed", "slo_p99_ms", "wide", "history",
                                       "budget_mb", "budget_p99_ms", "price_vcpu_hour", "price_gib_hour",
                                       "target_rate", "reference"]
    assert report.parameters["history"].default is False
    assert report.parameters["price_vcpu_hour"].default is None and report.parameters["price_gib_hour"].default is None
    assert report.parameters["target_rate"].default == [1000.0, 10000.0]
    assert report.parameters["out"].default == Path("site")
    assert report.parameters["reference"].default == "rust"
    assert report.parameters["slo_p99_ms"].default == 100.0
    assert report.parameters["allow_mixed"].default is False
    cmp = inspect.signature(commands.compare)
    assert list(cmp.parameters) == ["old", "new", "html", "allow_mixed", "min_effect", "absolute", "fail_on_regression",
                                    "wide"]
    assert cmp.parameters["min_effect"].default == 0.05 and cmp.parameters["fail_on_regression"].default is False
    assert cmp.parameters["html"].default is None
    assert commands.report.__doc__ and commands.compare.__doc__


def test_report_writes_a_site(app, tmp_path):
    results = write_results(tmp_path / "r", {"a": [steady(8, 1.0)], "b": [steady(4, 3.0)]})
    out = tmp_path / "site"
    result = run(app, "report", results, "--out", out, "--slo-p99-ms", 50)
    assert result.exit_code == 0, result.output
    assert (out / "index.html").is_file() and "wrote" in result.output
    assert "Ranking" in result.output


def test_report_bad_input(app, tmp_path):
    result = run(app, "report", tmp_path / "missing")
    assert result.exit_code == 2 and "no such directory" in result.output
    result = run(app, "report", ROUNDS, HALF_CPU, "--out", tmp_path / "s")
    assert result.exit_code == 2 and "--allow-mixed" in result.output and "profile.cpus" in result.output
    failed = write_results(tmp_path / "f", {}, extra_servers={
        "x": {"status": "failed", "phase": "build", "reason": "no", "measurements": []}})
    result = run(app, "report", failed, "--out", tmp_path / "s")
    assert result.exit_code == 2 and "nothing was measured" in result.output
    ok = write_results(tmp_path / "ok", {"a": [steady(8, 1.0)]})
    result = run(app, "report", ok, "--slo-p99-ms", 0)
    assert result.exit_code == 2


def test_compare_command(app, tmp_path):
    html = tmp_path / "compare.html"
    result = run(app, "compare", ROUNDS, HALF_CPU, "--allow-mixed", "--html", html)
    assert result.exit_code == 0, result.output
    assert "regression" in result.output and html.is_file()
    assert run(app, "compare", ROUNDS, HALF_CPU, "--allow-mixed", "--fail-on-regression").exit_code == 1  # python
    same = run(app, "compare", ROUNDS, AGAIN, "--fail-on-regression")       # the same code, measured again
    assert same.exit_code == 0 and "no significant regression" in same.output
    assert run(app, "compare", ROUNDS, AGAIN, "--min-effect", 2).exit_code == 2   # a share: 0..1
    result = run(app, "compare", ROUNDS, tmp_path / "missing")
    assert result.exit_code == 2 and "no such directory" in result.output
