"""Student's t: the two-sided p-value and the quantile every test of the suite uses, one definition.

scipy.special's ufuncs rather than scipy.stats.t: the same functions (stdtr, stdtrit, real degrees of freedom,
infinity included), without rv_continuous's argument checks, which cost ~0.5 ms a scalar call. The report's
A/A and power replays rank 20 servers 1,000 times, ~400,000 calls: 75 % of their time went there.
"""

from __future__ import annotations

import math

from scipy import special


def two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for T ~ t(df)."""
    if math.isinf(t):
        return 0.0
    return float(2 * special.stdtr(df, -abs(t)))


def quantile(q: float, df: float) -> float:
    """The q quantile of t(df)."""
    return float(special.stdtrit(df, q))
