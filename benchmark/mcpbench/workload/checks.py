"""One check of a server's verification (verify.json `checks`): what was checked, its outcome, what was seen.
verify (workload/verify.py), a workload file's checks (verify_calls.py) and the conformance suite
(conformance.py) each make them; results/model.py names them in verify.json."""

from __future__ import annotations

from typing import Literal

from mcpbench.records import Closed, described

Status = Literal["pass", "warn", "fail", "unavailable"]  # unavailable: this machine lacks the toolchain


class Check(Closed):
    name: str = described("what was checked")
    status: Status = described("its outcome")
    reason: str | None = described("what was seen")


def worst(checks: list[Check]) -> Status:
    """The outcome of a list of checks: fail if one failed, else warn if one warned, else pass."""
    statuses = {check.status for check in checks}
    return "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"
