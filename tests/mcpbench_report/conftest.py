"""Session fixtures of the report tests: the recorded results loaded and consolidated, and one report site
built from them (shared by the site and browser tests)."""

from __future__ import annotations

import pytest

from report_helpers import OPEN, ROUNDS, SWEEP


@pytest.fixture(scope="session")
def fixture_dirs():
    from mcpbench_report.load import load

    return load([ROUNDS, SWEEP, OPEN])


@pytest.fixture(scope="session")
def consolidated(fixture_dirs):
    from mcpbench_report.consolidate import consolidate

    return consolidate(fixture_dirs)


@pytest.fixture(scope="session")
def site(tmp_path_factory, consolidated):
    """The report of the recorded fixtures (rounds + sweep + open), built once per session."""
    from mcpbench_report.build import build_site

    out = tmp_path_factory.mktemp("report") / "site"
    info = build_site(consolidated, out)
    return info
