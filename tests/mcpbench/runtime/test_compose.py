"""docker-compose.yml is generated from the manifests and must be current; `[docker]` tables are validated."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbench.runtime import docker_compose as compose
from mcpbench.catalog.manifest import discover, load_manifest
from mcpbench.host.paths import ROOT, SERVERS_DIR

MANIFEST = """
[server]
display_name = "Node.js"
language = "TypeScript"
runtime = "Node 20"
sdk = "sdk"
sdk_version = "1"

[run]
command = ["node", "dist/server.js"]
env = { NODE_ENV = "production", DATA = "{dir}/data", LISTEN = "{port}" }

[variants.bun]
display_name = "Bun"
run.command = ["node_modules/.bin/bun", "dist/server.js"]

[variants.tuned]
display_name = "Tuned"
run.env = { TUNED = "1" }
"""


def server(root: Path, text: str, docker: str = "", dockerfile: bool = True, name: str = "nodejs") -> Path:
    directory = root / name
    directory.mkdir(parents=True, exist_ok=True)
    if dockerfile:
        (directory / "Dockerfile").write_text("FROM scratch\n")
    path = directory / "mcpbench.toml"
    path.write_text(text + docker)
    return path


def specs_of(path: Path) -> dict:
    return {spec.name: spec for spec in load_manifest(path)}


# -- the committed file ------------------------------------------------------------------------------------
def test_the_committed_compose_file_is_what_the_manifests_give() -> None:
    result = compose.check(discover(SERVERS_DIR).servers)
    assert result.actual is not None, "docker-compose.yml is missing: run `mcpbench compose generate`"
    assert result.current, "docker-compose.yml is stale: run `mcpbench compose generate` and commit it"


def test_every_discovered_server_is_containerised() -> None:
    excluded = [e for e in compose.plans(discover(SERVERS_DIR).servers)[1] if not e.declared]
    assert not excluded, "\n".join(f"{e.name}: {e.reason}" for e in excluded)


def test_the_committed_file_does_not_depend_on_where_the_checkout_is() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    assert str(ROOT) not in text


# -- the document ------------------------------------------------------------------------------------------
def test_redis_api_and_one_profile_per_server_on_one_private_network(tmp_path: Path) -> None:
    specs = list(specs_of(server(tmp_path, MANIFEST, '\n[docker]\n[docker.variants.bun]\ntarget = "bun"\n')).values())
    doc, excluded = compose.document(specs, tmp_path)
    assert not excluded
    services = doc["services"]
    assert list(services) == ["redis", "api", "bun", "nodejs", "tuned"]
    assert doc["networks"] == {"bench": {}}
    for name, service in services.items():
        assert service["networks"] == ["bench"]
        # only loopback, and a free port unless the user pins one
        assert all(port.startswith("127.0.0.1:${MCPBENCH_") for port in service["ports"]), name
        assert len(service["ports"]) == 1
        assert "healthcheck" in service
    for name in ("bun", "nodejs", "tuned"):
        service = services[name]
        assert service["profiles"] == [name]
        assert service["image"] == f"mcpbench/{name}:latest"
        limits = service["deploy"]["resources"]["limits"]
        assert limits == {"cpus": "${MCPBENCH_CPUS:-2}", "memory": "${MCPBENCH_MEMORY_MB:-2048}M"}
        assert service["memswap_limit"] == "${MCPBENCH_MEMORY_MB:-2048}M"
        assert service["cpuset"] == "${MCPBENCH_SERVER_CPUSET:-}"
        assert service["depends_on"]["redis"] == {"condition": "service_healthy"}
        env = service["environment"]
        assert env["PORT"] == "8080" and env["SERVER_TYPE"] == name
        assert env["REDIS_URL"] == "redis://redis:6379" and env["API_SERVICE_URL"] == "http://api:8080"
        assert env["CPU_LIMIT"] == limits["cpus"] and env["MEMORY_LIMIT_MB"] == "${MCPBENCH_MEMORY_MB:-2048}"
        assert env["DATA"] == "/app/data" and env["LISTEN"] == "8080"  # {dir} and {port} in the container
    assert services["bun"]["build"] == {"context": "./nodejs", "target": "bun"}
    assert services["tuned"]["environment"]["TUNED"] == "1"
    assert services["redis"]["cpuset"] == services["api"]["cpuset"] == "${MCPBENCH_HARNESS_CPUSET:-}"
    assert services["api"]["build"]["dockerfile"].endswith("docker/api-service/Dockerfile")


def test_a_server_without_a_dockerfile_is_left_out_with_the_reason(tmp_path: Path) -> None:
    specs = list(specs_of(server(tmp_path, MANIFEST, dockerfile=False)).values())
    text = compose.generate(specs, tmp_path)
    doc, excluded = compose.document(specs, tmp_path)
    assert list(doc["services"]) == ["redis", "api"]
    assert {e.name for e in excluded} == {"nodejs", "bun", "tuned"}
    assert "Not containerised" in text and "Dockerfile does not exist" in text
    assert str(tmp_path) not in text  # paths relative to the checkout


def test_generation_is_deterministic_and_yaml_quotes_what_it_must(tmp_path: Path) -> None:
    specs = list(specs_of(server(tmp_path, MANIFEST, '\n[docker]\ncommand = ["node", "--max-old-space-size=512", "dist/server.js"]\n'
                                 'env = { FLAG = "true", NUM = 3, EMPTY = "" }\n[docker.variants.bun]\ncommand = ["bun", "x"]\n')).values())
    first = compose.generate(specs, tmp_path)
    assert first == compose.generate(list(reversed(specs)), tmp_path)
    assert 'FLAG: "true"' in first and 'NUM: "3"' in first and 'EMPTY: ""' in first
    assert 'command: [node, "--max-old-space-size=512", dist/server.js]' in first
    assert 'cpuset: "${MCPBENCH_SERVER_CPUSET:-}"' in first
    assert "init: true" in first


def test_yaml_scalars() -> None:
    assert compose._scalar("redis://redis:6379") == "redis://redis:6379"
    assert compose._scalar("yes") == '"yes"'
    assert compose._scalar("8080") == '"8080"'
    assert compose._scalar(8080) == "8080"
    assert compose._scalar("a: b") == '"a: b"'
    assert compose._scalar("-c") == '"-c"'
    assert compose._scalar(True) == "true"
    assert compose.to_yaml({"a": {"b": [1, "x y"]}, "c": {}}) == 'a:\n  b: [1, "x y"]\nc: {}\n'


# -- [docker] validation -----------------------------------------------------------------------------------
@pytest.mark.parametrize("docker, field", [
    ('\n[docker]\ncomand = ["x"]\n', "docker.comand"),
    ('\n[docker]\ncommand = []\n', "docker.command"),
    ('\n[docker]\nready_timeout_s = -1\n', "docker.ready_timeout_s"),
    ('\n[docker.variants.bun]\ntarget = 3\n', "docker.variants.bun.target"),
])
def test_a_bad_docker_table_names_the_file_and_the_field(tmp_path: Path, docker: str, field: str) -> None:
    path = server(tmp_path, MANIFEST, docker)
    with pytest.raises(compose.DockerConfigError) as caught:
        compose.container_plan(specs_of(path)["nodejs"])
    assert str(path) in str(caught.value) and f"field '{field}'" in str(caught.value)


def test_a_docker_variant_must_exist_in_the_manifest(tmp_path: Path) -> None:
    path = server(tmp_path, MANIFEST, '\n[docker.variants.deno]\ntarget = "deno"\n')
    with pytest.raises(compose.DockerConfigError, match=r"field 'docker.variants.deno': there is no \[variants.deno\]"):
        compose.container_plan(specs_of(path)["nodejs"])


def test_a_variant_that_replaces_the_command_needs_its_own_container_command(tmp_path: Path) -> None:
    path = server(tmp_path, MANIFEST)
    specs = specs_of(path)
    assert compose.container_plan(specs["nodejs"]).command is None  # the image's CMD
    assert compose.container_plan(specs["tuned"]).command is None  # env-only variant: same image, same CMD
    with pytest.raises(compose.DockerConfigError, match=r"docker.variants.bun.command\) or build stage"):
        compose.container_plan(specs["bun"])


def test_a_missing_dockerfile_names_the_field(tmp_path: Path) -> None:
    path = server(tmp_path, MANIFEST, '\n[docker]\ndockerfile = "Containerfile"\n')
    with pytest.raises(compose.DockerConfigError, match="field 'docker.dockerfile': Containerfile does not exist"):
        compose.container_plan(specs_of(path)["nodejs"])


def test_variant_overrides(tmp_path: Path) -> None:
    path = server(tmp_path, MANIFEST, '\n[docker]\ntarget = "node"\nbuild_args = { A = "1" }\nenv = { X = "base" }\n'
                                      'ready_timeout_s = 30\n'
                                      '[docker.variants.bun]\ntarget = "bun"\nbuild_args = { B = 2 }\nenv = { X = "bun" }\n'
                                      'command = ["bun", "{dir}/dist/server.js", "--port={port}"]\nready_timeout_s = 9\n')
    specs = specs_of(path)
    node, bun = compose.container_plan(specs["nodejs"]), compose.container_plan(specs["bun"])
    assert (node.target, node.build_args, node.env["X"], node.ready_timeout_s) == ("node", {"A": "1"}, "base", 30)
    assert (bun.target, bun.build_args, bun.env["X"], bun.ready_timeout_s) == ("bun", {"A": "1", "B": "2"}, "bun", 9)
    assert bun.command == ("bun", "/app/dist/server.js", "--port=8080")
    assert node.build_key != bun.build_key
    assert compose.container_plan(specs["tuned"]).build_key == node.build_key  # one build, two tags


def test_a_variant_can_be_declared_unsupported_with_the_reason(tmp_path: Path) -> None:
    path = server(tmp_path, MANIFEST, '\n[docker.variants.bun]\nunsupported = "needs GraalVM"\n')
    specs = list(specs_of(path).values())
    doc, excluded = compose.document(specs, tmp_path)
    assert "bun" not in doc["services"] and "nodejs" in doc["services"]
    assert [(e.name, e.declared) for e in excluded] == [("bun", True)]
    assert "docker.variants.bun.unsupported: needs GraalVM" in excluded[0].reason
    assert "needs GraalVM" in compose.generate(specs, tmp_path)


def test_a_server_built_with_shared_contract_code_has_servers_as_its_context(tmp_path: Path) -> None:
    # docker.context = "..": the context is servers/ (where the shared module is), the Dockerfile named in it;
    # reached through a link (as the e2e tests link servers into a scratch servers/), the real servers/.
    real = tmp_path / "checkout" / "servers"
    server(real, MANIFEST, '\n[docker]\ncontext = ".."\n')
    linked = tmp_path / "scratch" / "servers"
    linked.mkdir(parents=True)
    (linked / "nodejs").symlink_to(real / "nodejs")
    for directory in (real, linked):
        plan = compose.container_plan(specs_of(directory / "nodejs" / "mcpbench.toml")["nodejs"])
        assert (plan.context, plan.dockerfile) == (real.resolve(), "nodejs/Dockerfile")
    doc, _ = compose.document(list(specs_of(real / "nodejs" / "mcpbench.toml").values()), tmp_path / "checkout")
    assert doc["services"]["nodejs"]["build"] == {"context": "./servers", "dockerfile": "nodejs/Dockerfile"}
    assert compose.container_plan(specs_of(server(tmp_path / "own", MANIFEST))["nodejs"]).dockerfile == "Dockerfile"


def test_a_context_that_is_not_a_directory_names_the_field(tmp_path: Path) -> None:
    path = server(tmp_path, MANIFEST, '\n[docker]\ncontext = "../missing"\n')
    with pytest.raises(compose.DockerConfigError, match="field 'docker.context': ../missing is not a directory"):
        compose.container_plan(specs_of(path)["nodejs"])
