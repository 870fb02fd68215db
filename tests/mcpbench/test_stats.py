import numpy as np
import pytest

from mcpbench.analysis.stats import latency_stats


def test_percentiles_are_computed_from_the_samples() -> None:
    figures = latency_stats([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    assert figures["count"] == 10
    assert figures["avg"] == pytest.approx(5.5)
    assert figures["min"] == 1 and figures["max"] == 10
    # Linear interpolation: rank = p/100 * (n - 1)
    assert figures["p50"] == pytest.approx(5.5)
    assert figures["p90"] == pytest.approx(9.1)
    assert figures["p99"] == pytest.approx(9.91)
    assert figures["p999"] == pytest.approx(9.991)


def test_an_empty_sample_says_so_instead_of_inventing_zeros() -> None:
    figures = latency_stats(np.array([]))
    assert figures["count"] == 0
    assert figures["p99"] is None and figures["avg"] is None
