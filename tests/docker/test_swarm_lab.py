"""The swarm runtime end to end on a lab of its own (scripts/swarm-lab.sh: four network namespaces, a dockerd in
each, one swarm): up, verify, a short run of one server with two load instances on two load nodes, Redis killed
on the infra node mid-measurement, down — and nothing of ours left deployed after each command, nor anything of
the lab after down. Through the CLI, into temporary results directories.

The lab is the tests' own (MCPBENCH_LAB=mcpbtest, underlay 192.168.232.0/24, its own swarm file), so a lab a
user has up is left alone. Needs root and dockerd (docker/setup-engine.sh); CI (CI=true) must run it.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mcpbench.host.paths import ROOT

pytestmark = [pytest.mark.docker, pytest.mark.timeout(1800)]

SERVER = os.environ.get("MCPBENCH_SWARM_SERVER", "baseline")
LAB = "mcpbtest"
SHORT = ["--quick", "--vus", "10", "--ramp-up", "1", "--warmup", "3", "--duration", "8", "--ramp-down", "1"]


def cannot(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"the swarm lab test must run in CI, but: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """The lab up, its swarm file; down afterwards, checked gone."""
    if os.environ.get("MCPBENCH_SKIP_DOCKER"):
        pytest.skip("MCPBENCH_SKIP_DOCKER is set")
    if os.geteuid() != 0:
        cannot("the lab needs root (network namespaces, dockerd)")
    from mcpbench.runtime.docker import ensure_engine
    from mcpbench.runtime.docker_engine import DockerError

    try:
        ensure_engine().close()  # installs dockerd where missing
    except DockerError as exc:
        cannot(f"no Docker engine could be set up here: {exc}")
    swarm_file = tmp_path_factory.mktemp("swarm") / "swarm.json"
    env = {**os.environ, "MCPBENCH_LAB": LAB, "MCPBENCH_LAB_SUBNET": "192.168.232", "MCPBENCH_SWARM_FILE": str(swarm_file)}
    script = ROOT / "scripts" / "swarm-lab.sh"
    up = subprocess.run(["bash", str(script), "up"], env=env, capture_output=True, text=True, timeout=300)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        yield env
    finally:
        down = subprocess.run(["bash", str(script), "down"], env=env, capture_output=True, text=True, timeout=300)
        assert down.returncode == 0, down.stdout + down.stderr
        namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        assert f"{LAB}-" not in namespaces
        assert subprocess.run(["ip", "link", "show", f"{LAB}0"], capture_output=True).returncode != 0
        assert not Path(f"/run/mcpbench-lab/{LAB}").exists() and not swarm_file.exists()


@pytest.fixture(scope="module")
def images(lab, tmp_path_factory):
    done = mcpbench("images", "build", SERVER, "--logs", str(tmp_path_factory.mktemp("image-logs")), env=lab)
    assert done.returncode == 0, done.stdout + done.stderr


def mcpbench(*args: str, env: dict, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcpbench.cli", *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, env=env)


def manager(env: dict) -> list[str]:
    return ["docker", "--host", f"unix:///run/mcpbench-lab/{LAB}/server.sock"]


def nothing_deployed(env: dict) -> None:
    """No service, stack network, config or secret on the manager; no container on any node."""
    docker = manager(env)
    for what in (["service", "ls", "-q"], ["network", "ls", "-q", "--filter", "label=com.docker.stack.namespace"],
                 ["config", "ls", "-q"], ["secret", "ls", "-q"]):
        out = subprocess.run([*docker, *what], capture_output=True, text=True, check=True).stdout.split()
        assert not out, f"{' '.join(what)}: {out}"
    for node in ("server", "infra", "load1", "load2"):
        out = subprocess.run(["docker", "--host", f"unix:///run/mcpbench-lab/{LAB}/{node}.sock", "ps", "-aq"],
                             capture_output=True, text=True, check=True).stdout.split()
        assert not out, f"containers left on {node}: {out}"


def only_run(results: Path) -> Path:
    runs = [p for p in results.iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


def test_verify_on_the_swarm(lab, images, tmp_path: Path) -> None:
    done = mcpbench("verify", SERVER, "--runtime", "swarm", "--cpus", "1", "--results-dir", str(tmp_path), env=lab)
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((only_run(tmp_path) / "run.json").read_text())
    assert record["status"] == "complete" and record["servers"][SERVER]["status"] == "ok"
    swarm = record["environment"]["swarm"]
    assert sorted(n["role"] for n in swarm["nodes"]) == ["infra", "load", "load", "server"]
    # Every image the nodes ran is the one built here, by id.
    image = json.loads((only_run(tmp_path) / SERVER / "image.json").read_text())
    assert image["node"] == "server" and image["image_id"] == swarm["images"][f"mcpbench/{SERVER}:latest"]["image_id"]
    rtt = swarm["network_rtt_ms"]
    assert all(isinstance(v, dict) and v["median_ms"] > 0 and v["connects"] > 0 for v in rtt.values()), rtt
    nothing_deployed(lab)


def test_a_run_with_two_load_instances_merges_both_nodes_samples(lab, images, tmp_path: Path) -> None:
    done = mcpbench("run", SERVER, "--runtime", "swarm", "--cpus", "1", "--runs", "1", "--load-instances", "2",
                    *SHORT, "--results-dir", str(tmp_path), env=lab)
    assert done.returncode == 0, done.stdout + done.stderr
    run = only_run(tmp_path)
    record = json.loads((run / "run.json").read_text())
    assert record["status"] == "complete" and record["servers"][SERVER]["status"] == "ok", record["servers"]
    measurement = next(p for p in (run / SERVER).iterdir() if (p / "summary.json").exists())
    context = json.loads((measurement / "context.json").read_text())
    summary = json.loads((measurement / "summary.json").read_text())
    assert sorted(part["node"] for part in context["load_instances"]) == ["load1", "load2"]
    assert all(part["exit_code"] == 0 for part in context["load_instances"])
    # The merged samples pass the count cross-checks and Little's law like one instance's.
    assert summary["status"] == "ok" and summary["checks"]["problems"] == [], summary["checks"]
    assert summary["checks"]["littles_law"]["gap"] <= 0.10
    assert (measurement / "loadgen-counts.0.json").exists() and (measurement / "loadgen-counts.1.json").exists()
    with gzip.open(measurement / "samples.csv.gz", "rt") as handle:
        vus = {int(line.split(",")[1]) for line in list(handle)[1:] if line.split(",")[1]}
    assert len(vus) == 10  # both segments' VUs (5 each) made calls
    # Each node measured as the local host is: its CPUs, the load per node, the probe on the server node.
    resources = summary["resources"]
    assert {"loadgen@load1", "loadgen@load2", "server", "redis", "api"} <= set(resources)
    assert any(name.startswith("steal0@") for name in resources)
    assert any(cpu.endswith("@server") for cpu in summary["host"]["probe"])
    nothing_deployed(lab)


def test_redis_killed_on_the_infra_node_invalidates_the_measurement_only(lab, images, tmp_path: Path) -> None:
    killed: list[str] = []

    def kill_redis_once_loaded() -> None:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and not list(tmp_path.glob(f"*/{SERVER}/*/loadgen-samples.0.log")):
            time.sleep(0.2)
        time.sleep(4)
        infra = ["docker", "--host", f"unix:///run/mcpbench-lab/{LAB}/infra.sock"]
        ids = subprocess.run([*infra, "ps", "-q", "--filter", "name=_redis"], capture_output=True, text=True).stdout.split()
        for ref in ids:
            subprocess.run([*infra, "kill", ref], capture_output=True)
            killed.append(ref)

    killer = threading.Thread(target=kill_redis_once_loaded, daemon=True)
    killer.start()
    done = mcpbench("run", SERVER, "--runtime", "swarm", "--cpus", "1", "--runs", "1", "--load-instances", "2",
                    "--no-calibrate", *SHORT[:-2], "--duration", "20", "--ramp-down", "1",
                    "--results-dir", str(tmp_path), env=lab)
    killer.join(timeout=60)
    assert killed, "Redis was never found to kill"
    assert done.returncode == 1, done.stdout + done.stderr  # a server not ok: the run says so in its exit code
    assert "Traceback" not in done.stdout + done.stderr
    record = json.loads((only_run(tmp_path) / "run.json").read_text())
    assert record["status"] == "complete"
    summary = json.loads(next((only_run(tmp_path) / SERVER).glob("*/summary.json")).read_text())
    assert summary["status"] == "invalid" and summary["phase"] == "infra", summary.get("reason")
    assert "infrastructure restarted" in done.stdout
    nothing_deployed(lab)


def test_with_a_registry_images_move_by_digest(lab, images, tmp_path: Path) -> None:
    """`swarm-lab.sh up --registry` (the last test: the lab keeps its registry until down): the images are
    pushed, every node pulls them by digest, and what runs is still the image built here, by id."""
    up = subprocess.run(["bash", str(ROOT / "scripts" / "swarm-lab.sh"), "up", "--registry"], env=lab,
                        capture_output=True, text=True, timeout=900)
    assert up.returncode == 0, up.stdout + up.stderr
    done = mcpbench("verify", SERVER, "--runtime", "swarm", "--cpus", "1", "--results-dir", str(tmp_path), env=lab)
    assert done.returncode == 0, done.stdout + done.stderr
    swarm = json.loads((only_run(tmp_path) / "run.json").read_text())["environment"]["swarm"]
    assert swarm["images_moved_by"] == "registry 192.168.232.1:5000/mcpbench"
    image = swarm["images"][f"mcpbench/{SERVER}:latest"]
    assert image["reference"].startswith(f"192.168.232.1:5000/mcpbench/{SERVER}@sha256:")
    server_engine = ["docker", "--host", f"unix:///run/mcpbench-lab/{LAB}/server.sock"]
    pulled = subprocess.run([*server_engine, "image", "inspect", image["reference"], "--format", "{{.Id}}"],
                            capture_output=True, text=True)
    assert pulled.stdout.strip() == image["image_id"], pulled.stderr
    nothing_deployed(lab)
