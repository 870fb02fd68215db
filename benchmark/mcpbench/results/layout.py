"""Where every file of a results directory lives (docs/results-format.md): the one place a path is made.

    <results root>/<run-id>/                RunDir: run.json, error.log
        <server>/                           ServerDir: server.json, build.json, build.log, verify.json, image.json,
                                                       capacity.json, soak.json
            <label>-r<round>/               MeasurementDir: summary.json, context.json, samples.csv.gz,
                                                            loadgen-counts.json, resources.csv, processes.csv,
                                                            server.log, loadgen.log
            <label>-r<round>.disturbed[N]/  set aside: the host disturbed it and it was measured again
            <label>-r<round>.incomplete[N]/ set aside: the run stopped during it (`run --resume`)
        _calibration[/<N>]/<label>/         the harness's limits (N: its Nth calibration, after a restart)
        _calibration[/<N>]/<mode>-ladder/<label>/   the open-model capacity ladder's steps
        _infra[-restart-N]/                 Redis + API service logs of each infrastructure start

Writers (the experiment runner, resume, calibration) and readers (liveness, recompute, the report's loader,
the analysis scripts) walk the directory through these objects; a file name is spelled in model.py only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mcpbench.results import model

# Directories of a run that are the orchestrator's own, not a server's (their names start so).
OWN_PREFIX = "_"
CALIBRATION_DIR = "_calibration"
INFRA_DIR = "_infra"
DISTURBED = ".disturbed"
INCOMPLETE = ".incomplete"
# <label>-r<round>, set aside or not: a label may hold a dot itself (session-equal0.7)
_MEASUREMENT = re.compile(rf"^(?P<label>.+)-r(?P<round>\d+)(?:({re.escape(DISTURBED)}|{re.escape(INCOMPLETE)})\d*)?$")


@dataclass(frozen=True)
class MeasurementDir:
    """One measurement: <server>/<label>-r<round> (or a calibration's <label>), its files by name."""

    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def server(self) -> str:
        return self.path.parent.name

    @property
    def label(self) -> str:
        """The load's label (session-50vu, session-equal0.7), without the round or a set-aside suffix."""
        match = _MEASUREMENT.match(self.name)
        return match["label"] if match else self.name

    @property
    def round(self) -> int | None:
        match = _MEASUREMENT.match(self.name)
        return int(match["round"]) if match else None

    @property
    def set_aside(self) -> bool:
        """Kept, not used: disturbed by the host, or cut short by a stop."""
        return DISTURBED in self.name or INCOMPLETE in self.name

    @property
    def finished(self) -> bool:
        """A measurement that counts: not set aside, and its summary written (written last)."""
        return not self.set_aside and self.summary.is_file()

    def mkdir(self) -> MeasurementDir:
        self.path.mkdir(parents=True, exist_ok=True)
        return self

    def aside(self, suffix: str) -> MeasurementDir:
        """Where this measurement goes when set aside (`.disturbed`, `.incomplete`): the first free name."""
        target = self.path.with_name(self.name + suffix)
        n = 2
        while target.exists():
            target = self.path.with_name(f"{self.name}{suffix}{n}")
            n += 1
        return MeasurementDir(target)

    @property
    def summary(self) -> Path:
        return self.path / model.SUMMARY_FILE

    @property
    def context(self) -> Path:
        return self.path / model.CONTEXT_FILE

    @property
    def samples(self) -> Path:
        return self.path / model.SAMPLES_FILE

    @property
    def counts(self) -> Path:
        """The load generator's counts (k6-counts.json in a measurement written before schema 4)."""
        return _current_or_old(self.path / model.COUNTS_FILE, self.path / model.OLD_COUNTS_FILE)

    @property
    def resources(self) -> Path:
        return self.path / model.RESOURCES_FILE

    @property
    def processes(self) -> Path:
        return self.path / model.PROCESSES_FILE

    @property
    def server_log(self) -> Path:
        return self.path / model.SERVER_LOG

    @property
    def setup_log(self) -> Path:
        return self.path / model.SETUP_LOG

    @property
    def loadgen_log(self) -> Path:
        """What the load generator said (k6.log before schema 4)."""
        return _current_or_old(self.path / model.LOADGEN_LOG, self.path / model.OLD_LOADGEN_LOG)

    def instance_files(self, index: int, instances: int) -> tuple[Path, Path, Path]:
        """Raw sample log, counts and console log of load-generator instance `index` of `instances`: one
        instance keeps the plain names, several number theirs."""
        suffix = "" if instances == 1 else f".{index}"
        return (self.path / f"{model.SAMPLES_LOG_STEM}{suffix}.log", self.path / f"{model.COUNTS_STEM}{suffix}.json",
                self.path / f"{model.LOADGEN_LOG_STEM}{suffix}.log")

    def scratch(self, name: str) -> MeasurementDir:
        """A directory inside this one for a step whose files are not kept (the pre-warm load's)."""
        return MeasurementDir(self.path / name)

    def files(self) -> list[Path]:
        return sorted(p for p in self.path.iterdir() if p.is_file()) if self.path.is_dir() else []


def _current_or_old(current: Path, old: Path) -> Path:
    """A file's current name, or the name an older schema wrote it under when only that one exists."""
    return old if not current.exists() and old.exists() else current


def measurement_dir(where: MeasurementDir | Path) -> MeasurementDir:
    """A measurement directory given either way (the analysis scripts and tests hand a path)."""
    return where if isinstance(where, MeasurementDir) else MeasurementDir(Path(where))


@dataclass(frozen=True)
class ServerDir:
    """One server's directory in a run: its records and its measurements."""

    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    def measurement(self, label: str, round_index: int) -> MeasurementDir:
        return MeasurementDir(self.path / f"{label}-r{round_index}")

    def named(self, name: str) -> MeasurementDir:
        """A measurement by its directory's name (as run.json lists it: session-50vu-r1.disturbed)."""
        return MeasurementDir(self.path / name)

    def measurements(self, include_set_aside: bool = False) -> list[MeasurementDir]:
        """Its measurement directories (finished ones; with include_set_aside, every one), by name."""
        if not self.path.is_dir():
            return []
        found = [MeasurementDir(p) for p in sorted(self.path.iterdir()) if p.is_dir()]
        return [m for m in found if include_set_aside or m.finished]

    def recorded(self) -> list[MeasurementDir]:
        """Every measurement with a summary, set-aside ones included (the report says why those are not used)."""
        return [m for m in self.measurements(include_set_aside=True) if m.summary.is_file()]

    @property
    def server_json(self) -> Path:
        return self.path / model.SERVER_FILE

    @property
    def build_json(self) -> Path:
        return self.path / model.BUILD_FILE

    @property
    def build_log(self) -> Path:
        return self.path / model.BUILD_LOG

    @property
    def verify_json(self) -> Path:
        return self.path / model.VERIFY_FILE

    @property
    def image_json(self) -> Path:
        return self.path / model.IMAGE_FILE

    def result(self, file: str) -> Path:
        """An experiment's own result file (model.EXPERIMENT_RESULTS: capacity.json, soak.json)."""
        if file not in model.EXPERIMENT_RESULTS:
            raise ValueError(f"{file} is not an experiment's result file (results/model.py EXPERIMENT_RESULTS)")
        return self.path / file

    def results(self) -> dict[str, Path]:
        """The experiment result files this server has, by file name."""
        return {file: self.path / file for file in model.EXPERIMENT_RESULTS if (self.path / file).is_file()}

    def files(self) -> list[Path]:
        return sorted(p for p in self.path.iterdir() if p.is_file()) if self.path.is_dir() else []


@dataclass(frozen=True)
class CalibrationDir:
    """One calibration of the harness: the closed model's limit and the open-model ladder's steps."""

    path: Path

    def measurement(self, label: str) -> MeasurementDir:
        """_calibration[/N]/<label>: the closed model's limit at the run's VUs."""
        return MeasurementDir(self.path / label)

    def ladder_step(self, mode: str, label: str) -> MeasurementDir:
        """_calibration[/N]/<mode>-ladder/<label>: one rate of the open-model capacity ladder."""
        return MeasurementDir(self.path / f"{mode}-ladder" / label)


@dataclass(frozen=True)
class RunDir:
    """A results directory: results/<run-id>."""

    path: Path

    @classmethod
    def under(cls, root: Path, run_id: str) -> RunDir:
        return cls(root / run_id)

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def run_json(self) -> Path:
        return self.path / model.RUN_FILE

    @property
    def error_log(self) -> Path:
        return self.path / model.ERROR_LOG

    def exists(self) -> bool:
        return self.run_json.is_file()

    def server(self, name: str) -> ServerDir:
        return ServerDir(self.path / name)

    def servers(self) -> list[ServerDir]:
        """Every server directory (not the orchestrator's own: _calibration, _infra…), by name."""
        if not self.path.is_dir():
            return []
        return [ServerDir(p) for p in sorted(self.path.iterdir())
                if p.is_dir() and not p.name.startswith(OWN_PREFIX) and not _is_site(p)]

    def measurements(self) -> Iterator[MeasurementDir]:
        """Every finished server measurement, server by server."""
        for server in self.servers():
            yield from server.measurements()

    def summaries(self) -> list[Path]:
        """Every summary the run wrote: its calibrations' and its servers' (set-aside ones too)."""
        return ([m.summary for m in self.calibrations()]
                + [m.summary for server in self.servers() for m in server.recorded()])

    def calibration(self, index: int = 0) -> CalibrationDir:
        """The harness's Nth calibration of the run: _calibration, then _calibration/<N>."""
        base = self.path / CALIBRATION_DIR
        return CalibrationDir(base / str(index) if index else base)

    def calibrations(self) -> list[MeasurementDir]:
        """Every calibration measurement of the run."""
        return [MeasurementDir(p.parent) for p in sorted((self.path / CALIBRATION_DIR).rglob(model.SUMMARY_FILE))]

    def infra(self, start: int = 1) -> Path:
        """The logs of the Nth infrastructure start (Redis + API service): _infra, then _infra-restart-N."""
        return self.path / (INFRA_DIR if start <= 1 else f"{INFRA_DIR}-restart-{start - 1}")


# `mcpbench report` leaves this file in a site it made (scripts/bench.sh writes results/<run>/site): a site is no
# server directory, and the report's copy of the raw files leaves it out.
SITE_MARKER = ".mcpbench-report"


def _is_site(path: Path) -> bool:
    return (path / SITE_MARKER).is_file()


def runs_under(root: Path) -> list[RunDir]:
    """Every results directory directly under `root` (results/), by name (their run ids start with the time)."""
    return [RunDir(p.parent) for p in sorted(root.glob(f"*/{model.RUN_FILE}"))]
