"""k6, only where the user installed it themselves (`--loadgen k6`; the project never fetches it: k6 is
under the AGPL). It runs `k6/load.js`, the same iteration the load driver runs, so a user can cross-check
the driver against k6 on their own machine; one or several local processes per test, split by k6's own
execution segments (`--execution-segment i/n:(i+1)/n`) and merged like the driver's segments (merge.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpbench.host import processes
from mcpbench.host.paths import K6_SCRIPT
from mcpbench.host.toolchain import which
from mcpbench.loadgen.base import LoadError, LoadRun, OnStart, OnTick, StdioLaunch, seconds_text
from mcpbench.loadgen.instances import OVERRUN_S, Instance, LocalInstances
from mcpbench.results.layout import MeasurementDir
from mcpbench.workload.file import Workload

if TYPE_CHECKING:
    from mcpbench.loads import Load
    from mcpbench.loads.base import Stage
    from mcpbench.loads.timing import Timing

NOT_INSTALLED = ("k6 is not installed: --loadgen k6 uses a k6 you installed yourself (on PATH, or K6=/path/to/k6); "
                 "mcpbench never fetches it (AGPL). The default load generator, the load driver, needs nothing.")


def k6_binary() -> str:
    found = os.environ.get("K6") or which("k6")
    if not found or not Path(found).exists():
        raise LoadError(NOT_INSTALLED)
    return found


def available() -> bool:
    try:
        k6_binary()
    except LoadError:
        return False
    return True


# k6 wants whole-number arrival-rate targets: iterations per this many seconds give the rate a 0.1/s resolution.
OPEN_TIME_UNIT_S = 10


def k6_stages(stages: Sequence[Stage], scale: float = 1) -> list[dict[str, Any]]:
    """k6's `stages` from a load's (seconds, target) stages: the same linear moves, k6 reading a 0 s stage as a
    step too; targets scaled and rounded to k6's whole numbers."""
    return [{"duration": seconds_text(duration), "target": round(target * scale)} for duration, target in stages]


def k6_scenario(load: Load, timing: Timing) -> dict[str, Any]:
    """The k6 scenario object (options.scenarios.load) for the load's model and stages, `exec` naming load.js's
    iteration function: ramping-vus for the closed model, ramping-arrival-rate for the open one."""
    if load.model == "closed":
        return {"executor": "ramping-vus", "exec": "closedIteration", "startVUs": 0,
                "stages": k6_stages(load.stages(timing)), "gracefulRampDown": "5s", "gracefulStop": "5s"}
    return {"executor": "ramping-arrival-rate", "exec": "openIteration", "startRate": 0,
            "timeUnit": f"{OPEN_TIME_UNIT_S}s", "preAllocatedVUs": load.vus, "maxVUs": load.max_vus(load.vus),
            "stages": k6_stages(load.stages(timing), OPEN_TIME_UNIT_S), "gracefulStop": "5s"}


def k6_env(url: str, load: Load, timing: Timing, counts_path: Path, checks: bool = True) -> dict[str, str]:
    """What load.js reads: the target, the session mode, the load's k6 scenario (k6_scenario), and the
    per-request settings."""
    return {
        "TARGET_URL": url, "MODE": load.mode, "SCENARIO": json.dumps(k6_scenario(load, timing)),
        "THINK_TIME_S": str(timing.think_time_s), "REQUEST_TIMEOUT": f"{timing.request_timeout_s:g}s",
        "COUNTS_PATH": str(counts_path), "CHECKS": "on" if checks else "off",
    }


def segments(instances: int) -> list[list[str]]:
    """k6's arguments for each instance: none for a single one, else its execution segment."""
    if instances == 1:
        return [[]]
    bounds = [Fraction(i, instances) for i in range(instances + 1)]
    sequence = ",".join(str(b) for b in bounds)
    return [["--execution-segment", f"{bounds[i]}:{bounds[i + 1]}", "--execution-segment-sequence", sequence]
            for i in range(instances)]


class LocalK6(LocalInstances):
    name = "k6"

    @classmethod
    def unavailable(cls) -> str | None:
        return None if available() else NOT_INSTALLED

    def prepare(self, log_dir: Path) -> None:
        k6_binary()  # fail before the first measurement, in one line

    def run(self, url: str, load: Load, timing: Timing, out: MeasurementDir, on_start: OnStart | None = None,
            on_tick: OnTick | None = None, checks: bool = True, launch: StdioLaunch | None = None,
            workload: Workload | None = None) -> LoadRun:
        if launch is not None:
            raise LoadError("k6 speaks HTTP only: a stdio server needs the load driver")
        if workload is not None:  # load.js carries the lineup's calls only
            raise LoadError("k6 makes the lineup's calls only: a workload file needs the load driver")
        out = MeasurementDir(out.path.resolve())  # k6 runs in it, so a relative path would point below itself
        out_dir = out.path
        arguments = segments(self.instances)

        def spawn(index: int, samples_log: Path, counts_path: Path, log_path: Path) -> processes.ManagedProcess:
            env = {"PATH": "/usr/bin:/bin", "HOME": str(out_dir), "K6_NO_USAGE_REPORT": "true",
                   **k6_env(url, load, timing, counts_path, checks),
                   # k6's garbage collector cost ~12 % of its CPU at Go's default GOGC=100; 400 makes it
                   # ~2 % (the heap may grow to 5x the live heap; GOMEMLIMIT keeps it bounded).
                   "GOGC": "400", "GOMEMLIMIT": "2GiB"}
            # Port 0 for k6's REST API: its default 6565 may be taken (another k6, another program).
            argv = [k6_binary(), "run", "--quiet", "--no-color", "--no-usage-report", "--address", "127.0.0.1:0",
                    "--log-format", "raw", "--log-output", f"file={samples_log}", *arguments[index], str(K6_SCRIPT)]
            return processes.spawn("k6", argv, cwd=out_dir, env=env, log_path=log_path, cpus=self.cpus)

        done = self.run_instances(self.instances, spawn, out, timing.total_s + OVERRUN_S, "k6", on_start, on_tick,
                                  timing.request_timeout_s)
        if done.samples.empty:
            raise LoadError(_no_samples_reason(done.instances, done.exit_code))
        return LoadRun(done.samples, done.start_epoch, done.exit_code, done.run_s, done.stopped_early, done.counts,
                       done.ended_epoch - done.start_epoch if done.start_epoch is not None else None)


def _no_samples_reason(instances: list[Instance], exit_code: int | None) -> str:
    tail = instances[0].process.log_tail()
    # The console shows a failure's first line only, so k6's own last error goes there.
    # k6's own logger writes `level=error msg=…`; a script exception comes raw (--log-format raw).
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    errors = [line.split("msg=", 1)[-1] for line in lines if "level=error" in line]
    reason = errors[-1] if errors else lines[0] if lines else f"see {instances[0].process.log_path}"
    return f"k6 produced no samples (exit {exit_code}): {reason}\n{tail}"
