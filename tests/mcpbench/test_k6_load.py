"""The k6 script against the API service's trivial MCP endpoint: real k6, real HTTP, tiny timelines."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbench.config import Load, Timing
from mcpbench.infra import Infra
from mcpbench.loadgen import LoadError, load_samples, run_k6
from mcpbench.toolchain import which

TIMING = Timing(ramp_up_s=0.5, warmup_s=1, duration_s=2, ramp_down_s=0.5)


@pytest.fixture(autouse=True)
def _needs_k6() -> None:
    if not which("k6"):
        pytest.skip("k6 is not installed (scripts/setup.sh builds it)")


@pytest.mark.parametrize("mode, http_per_call", [("session", {3, 4}), ("stateless", {1}), ("persistent", {1})])
def test_every_mode_drives_all_tools_and_records_one_sample_per_call(
        infra: Infra, tmp_path: Path, mode: str, http_per_call: set[int]) -> None:
    run = run_k6(f"{infra.api_url}/calibrate/mcp", Load(mode, 3), TIMING, tmp_path, None)
    samples = run.samples
    assert run.exit_code == 0
    assert run.k6_start_epoch_s is not None
    assert set(samples["tool"]) == {"search_products", "get_user_cart", "checkout", "tools/list"}
    assert samples["ok"].all(), samples[samples["ok"] == 0].head()
    counts = samples["http_ms"].str.split(";").map(len)
    assert set(counts) <= http_per_call
    assert samples["t_s"].between(0, TIMING.total_s + 6).all()
    assert (tmp_path / "samples.csv.gz").exists() and (tmp_path / "k6-summary.json").exists()
    assert len(load_samples(tmp_path / "samples.csv.gz")) == len(samples)


def test_the_open_model_sends_tool_calls_at_the_arrival_rate(infra: Infra, tmp_path: Path) -> None:
    timing = Timing(ramp_up_s=0.5, warmup_s=0.5, duration_s=4, ramp_down_s=0.5)
    run = run_k6(f"{infra.api_url}/calibrate/mcp", Load("stateless", 5, "open", 20.0), timing, tmp_path, None)
    inside = run.samples[run.samples["t_s"].between(*timing.window)]
    assert "tools/list" not in set(run.samples["tool"])
    assert 0.8 * 20 * 4 <= len(inside) <= 1.2 * 20 * 4


def test_a_wrong_answer_counts_as_an_error(infra: Infra, tmp_path: Path) -> None:
    # The API service's plain /health answers 200 with JSON that is no JSON-RPC reply at all.
    run = run_k6(f"{infra.api_url}/health", Load("stateless", 1), TIMING, tmp_path, None)
    assert not run.samples["ok"].any()
    assert set(run.samples["error_kind"]) <= {"bad_response", "http_405", "http_404"}


def test_a_relative_output_directory_works(infra: Infra, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `mcpbench run --results-dir results/x` hands a relative path down, and k6 runs inside that directory.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rel").mkdir()
    run = run_k6(f"{infra.api_url}/calibrate/mcp", Load("stateless", 1), TIMING, Path("rel"), None)
    assert run.exit_code == 0 and len(run.samples) > 0
    assert (tmp_path / "rel" / "samples.csv.gz").exists()


def test_k6s_own_error_is_on_the_first_line_of_the_failure(
        infra: Infra, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The console prints a failure's first line only; "k6 produced no samples" alone says nothing.
    broken = tmp_path / "broken.js"
    broken.write_text("throw new Error('the script is broken');\nexport default function () {}\n")
    monkeypatch.setattr("mcpbench.loadgen.K6_SCRIPT", broken)
    with pytest.raises(LoadError) as failure:
        run_k6(f"{infra.api_url}/calibrate/mcp", Load("stateless", 1), TIMING, tmp_path, None)
    assert "the script is broken" in str(failure.value).splitlines()[0]
