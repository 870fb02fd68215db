"""servers/python's two stacks beside MCPServer on uvicorn: python-granian (the same app on granian) and
python-lowlevel (the SDK's low-level Server on the same launch). The low-level server's hand-written input schemas
are MCPServer's byte for byte and its argument checks hand the shared tool bodies the values MCPServer's pydantic
models hand them; granian is launched with the uvicorn launch's host, port, workers and lifespan."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

PYTHON = Path(__file__).resolve().parents[2] / "servers" / "python"


def manifest() -> dict:
    return tomllib.loads((PYTHON / "mcpbench.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["python-granian", "python-lowlevel"])
def test_the_variant_is_a_stack_of_its_own_with_its_own_lines(name: str) -> None:
    variant = manifest()["variants"][name]
    assert "what_if" not in variant, "a stack of its own, measured in the first run (--stacks-only)"
    for field in ("display_name", "description", "framework"):
        assert variant.get(field), f"[variants.{name}] {field}"
    assert variant["stdio"]["command"][:2] == [".venv/bin/python", "-m"]


def test_granian_serves_the_python_app_and_lowlevel_its_own_module() -> None:
    raw = manifest()
    granian, lowlevel = raw["variants"]["python-granian"], raw["variants"]["python-lowlevel"]
    assert granian["run"]["command"] == raw["run"]["command"] + ["--server", "granian"]
    assert granian["stdio"]["command"] == raw["stdio"]["command"], "no HTTP server over stdio: python's stdio"
    assert lowlevel["run"]["command"] == [".venv/bin/python", "-m", "mcpbench_lowlevel"]
    assert lowlevel["stdio"]["command"] == [".venv/bin/python", "-m", "mcpbench_lowlevel", "--stdio"]
    assert "run" not in granian or "env" not in granian["run"], "workers from CPU_LIMIT as python's"


def test_the_docker_variants_are_a_stage_and_a_command_of_the_same_dockerfile() -> None:
    raw = manifest()
    dockerfile = (PYTHON / "Dockerfile").read_text(encoding="utf-8")
    stages = {block.split()[0]: block for block in dockerfile.split(" AS ")[1:]}
    docker = raw["docker"]["variants"]
    assert docker["python-granian"] == {"target": "granian"}
    assert '"mcpbench_fastmcp", "--server", "granian"]' in stages["granian"]
    assert docker["python-lowlevel"]["command"] == ["/app/.venv/bin/python", "-m", "mcpbench_lowlevel"]
    # The default (last) stage serves python; it and python-lowlevel's image have no granian, unused there.
    last = list(stages)[-1]
    assert "target" not in raw["docker"] and last != "granian"
    assert "COPY --from=build-uvicorn /app /app" in stages[last]
    assert "uninstall" in stages["build-uvicorn"] and "granian" in stages["build-uvicorn"]
    ignored = (PYTHON / ".dockerignore").read_text(encoding="utf-8")
    for package in ("mcpbench_workload", "mcpbench_fastmcp", "mcpbench_lowlevel"):
        assert f"!{package}/" in ignored and f"COPY {package}/ ./{package}/" in dockerfile


def test_granian_is_pinned_with_hashes_in_the_one_lock() -> None:
    lock = (PYTHON / "requirements.lock").read_text(encoding="utf-8")
    pin = re.search(r"^granian==(2\.8\.\d+) \\\n((?:    --hash=sha256:[0-9a-f]{64}.*\n)+)", lock, re.MULTILINE)
    assert pin, "granian 2.8.x with its hashes in requirements.lock"
    assert '"granian>=2.8,<2.9"' in (PYTHON / "pyproject.toml").read_text(encoding="utf-8")


# ---- against the built venv: MCPServer and the low-level Server side by side, granian's launch arguments ----

PROBE = r"""
import json, os, sys
from unittest import mock
what = sys.argv[1]
if what == "tools":
    import asyncio
    from mcpbench_fastmcp.server import mcp
    from mcpbench_lowlevel.server import LIST_TOOLS
    dump = lambda tools: json.dumps([t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools])
    print(json.dumps({"mcpserver": dump(asyncio.run(mcp.list_tools())), "lowlevel": dump(LIST_TOOLS.tools)}))
elif what == "arguments":
    from mcpbench_fastmcp.server import mcp
    from mcpbench_lowlevel.server import TOOLS, _Invalid
    out = []
    for name, arguments in json.loads(sys.argv[2]):
        try:
            validated = mcp._tool_manager.get_tool(name).fn_metadata.validate_arguments(arguments)
            high = {k: [type(v).__name__, v] for k, v in validated.items() if k in arguments}
        except Exception:
            high = None
        try:
            low = {k: check(arguments[k]) for k, check in TOOLS[name][1].items() if k in arguments}
            low = {k: [type(v).__name__, v] for k, v in low.items()}
        except _Invalid:
            low = None
        out.append({"mcpserver": high, "lowlevel": low})
    print(json.dumps(out))
else:
    from mcpbench_workload import serving
    calls = {}
    with mock.patch("granian.server.Server") as granian, mock.patch("uvicorn.run") as uvicorn:
        serving.run_granian("mcpbench_fastmcp.server:app")
        serving.run_uvicorn("mcpbench_fastmcp.server:app")
    args, kwargs = granian.call_args
    calls["granian"] = {"target": args[0], **{k: str(v) for k, v in kwargs.items()}}
    args, kwargs = uvicorn.call_args
    calls["uvicorn"] = {"target": args[0], **{k: str(v) for k, v in kwargs.items()}}
    print(json.dumps(calls))
"""


@pytest.fixture(scope="module")
def venv_python() -> Path:
    if not shutil.which("python3"):
        pytest.skip("python3 is not on PATH: servers/python cannot be built")
    subprocess.run(["bash", "build.sh"], cwd=PYTHON, check=True, timeout=900, capture_output=True)
    return PYTHON / ".venv" / "bin" / "python"


def probe(python: Path, *args: str, env: dict[str, str] | None = None) -> object:
    done = subprocess.run([str(python), "-c", PROBE, *args], cwd=PYTHON, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", **(env or {})})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.integration
def test_the_lowlevel_input_schemas_are_mcpservers_byte_for_byte(venv_python: Path) -> None:
    tools = probe(venv_python, "tools")
    assert tools["lowlevel"] == tools["mcpserver"]
    assert [t["name"] for t in json.loads(tools["lowlevel"])] == ["search_products", "get_user_cart", "checkout"]


# (tool, arguments): what the load and verify send, the schema's edge cases, and values off the schema.
ON_SCHEMA = [
    ("search_products", {"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10}),
    ("search_products", {"min_price": 50, "max_price": 500, "limit": 10.0}),  # int for number, 10.0 for integer
    ("search_products", {}),
    ("get_user_cart", {"user_id": "user-00042", "extra": 1}),  # a name the schema does not have: ignored
    ("checkout", {"user_id": "user-00042", "items": [{"product_id": 42, "quantity": 2, "note": "x"}]}),
    ("checkout", {"items": [{"product_id": 1337.0, "quantity": 1}]}),
    ("checkout", {"items": []}),  # valid arguments; the body's ToolError answers it
]
OFF_SCHEMA_REJECTED_BY_BOTH = [
    ("search_products", {"category": 7, "min_price": "cheap", "limit": "ten"}),  # verify's wrong argument types
    ("search_products", {"category": None}),
    ("search_products", {"limit": 10.5}),
    ("get_user_cart", {"user_id": ["user-00042"]}),
    ("checkout", {"items": [{"product_id": 42}]}),
    ("checkout", {"items": {"product_id": 42, "quantity": 1}}),
]
# pydantic's lax mode coerces these; the low-level server checks the advertised schema, which rejects them.
OFF_SCHEMA_COERCED_BY_MCPSERVER_ONLY = [
    ("search_products", {"limit": "10"}),
    ("search_products", {"min_price": True}),
    ("checkout", {"items": '[{"product_id": 42, "quantity": 1}]'}),
]


@pytest.mark.integration
def test_the_lowlevel_argument_checks_hand_the_bodies_mcpservers_values(venv_python: Path) -> None:
    cases = ON_SCHEMA + OFF_SCHEMA_REJECTED_BY_BOTH + OFF_SCHEMA_COERCED_BY_MCPSERVER_ONLY
    results = probe(venv_python, "arguments", json.dumps(cases))
    for (tool, arguments), result in zip(ON_SCHEMA, results):
        assert result["lowlevel"] is not None and result["lowlevel"] == result["mcpserver"], (tool, arguments, result)
    for (tool, arguments), result in zip(OFF_SCHEMA_REJECTED_BY_BOTH, results[len(ON_SCHEMA):]):
        assert result == {"mcpserver": None, "lowlevel": None}, (tool, arguments, result)
    for (tool, arguments), result in zip(OFF_SCHEMA_COERCED_BY_MCPSERVER_ONLY, results[-3:]):
        assert result["mcpserver"] is not None and result["lowlevel"] is None, (tool, arguments, result)


@pytest.mark.integration
@pytest.mark.parametrize(("env", "workers"), [({"CPU_LIMIT": "1"}, "1"), ({"CPU_LIMIT": "1.5"}, "2"),
                                               ({"CPU_LIMIT": "2", "WORKERS": "4"}, "4")])
def test_granian_is_launched_as_uvicorn_is(venv_python: Path, env: dict[str, str], workers: str) -> None:
    calls = probe(venv_python, "launch", env={"HOST": "127.0.0.2", "PORT": "43210", **env})
    granian, uvicorn = calls["granian"], calls["uvicorn"]
    assert granian["target"] == uvicorn["target"] == "mcpbench_fastmcp.server:app"
    where = ("127.0.0.2", "43210", workers)
    assert (granian["address"], granian["port"], granian["workers"]) == where
    assert (uvicorn["host"], uvicorn["port"], uvicorn["workers"]) == where
    assert granian["interface"] == "asgi", "ASGI with lifespan: each worker's pools open in the app's startup"
    assert (granian["loop"], uvicorn["loop"]) == ("uvloop", "uvloop")
    assert granian["log_access"] == uvicorn["access_log"] == "False"
    assert granian["http"] == "1" and granian["websockets"] == "False" and granian["backlog"] == "1024"
    assert granian["workers_kill_timeout"] == uvicorn["timeout_graceful_shutdown"] == "5"
