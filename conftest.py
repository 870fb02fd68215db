"""Shared test fixtures (real Redis and API service on free ports). It lives at the top level, not in
tests/, because a conftest in tests/ would put tests/ on sys.path, where tests/mcpbench would shadow the
mcpbench package."""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mcpbench.host import processes
from mcpbench.catalog.build import build_api_service
from mcpbench.runtime.local_infra import Infra


@pytest.fixture(scope="session")
def api_service_built(tmp_path_factory: pytest.TempPathFactory) -> None:
    if not shutil.which("go"):
        pytest.skip("go is not installed: the API service cannot be built")
    log = tmp_path_factory.mktemp("build") / "api-service.log"
    outcome = build_api_service(log)
    assert outcome.status == "ok", outcome.reason


@pytest.fixture(scope="session")
def infra(api_service_built: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Infra]:
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (scripts/setup.sh installs it)")
    running = Infra.start(tmp_path_factory.mktemp("infra"), None)
    try:
        yield running
    finally:
        running.stop()
        processes.stop_all()


@pytest.fixture
def fixtures_dir() -> Path:
    return Path(__file__).parent / "tests" / "mcpbench" / "fixtures"


@pytest.fixture(params=["driver", "k6"])
def generator_name(request: pytest.FixtureRequest) -> str:
    """Each HTTP load test runs with the load driver, and with k6 only where the user installed k6 (the project
    never fetches it: AGPL)."""
    from mcpbench.loadgen import k6

    if request.param == "k6" and not k6.available():
        pytest.skip("k6 is not installed (optional: the project never fetches it)")
    if request.param == "driver" and not shutil.which("go"):
        pytest.skip("go is not installed: the load driver cannot be built")
    return request.param


@pytest.fixture(scope="session")
def reanalysed() -> Callable[[Path], object]:
    """A recorded measurement re-analysed from its raw files (analysis.summary.reanalyze), once per session: the
    report's fixture test and the fault attribution's both read every recorded measurement again (~40 s each)."""
    from mcpbench.analysis.summary import reanalyze

    return functools.cache(lambda where: reanalyze(Path(where).resolve()))
