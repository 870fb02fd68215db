from pathlib import Path

from mcpbench.catalog.manifest import discover, load_manifest

VALID = """
[server]
display_name = "Node.js · TS SDK"
language = "TypeScript"
runtime = "Node 20"
sdk = "@modelcontextprotocol/sdk"
sdk_version = "1.32.2"
requires = ["node"]

[build]
command = "npm ci && npm run build"

[run]
command = ["node", "dist/server.js"]
env = { WORKERS_PER_CPU = 2 }

[variants.bun]
display_name = "Bun · TS SDK"
runtime = "Bun 1.4.5"
run.command = ["node_modules/.bin/bun", "dist/server.js"]
run.env = { EXTRA = "1" }
"""


def write(root: Path, name: str, text: str) -> Path:
    (root / name).mkdir(parents=True, exist_ok=True)
    path = root / name / "mcpbench.toml"
    path.write_text(text)
    return path


def test_a_manifest_gives_its_server_and_its_variants(tmp_path: Path) -> None:
    specs = load_manifest(write(tmp_path, "nodejs", VALID))
    assert [s.name for s in specs] == ["nodejs", "bun"]
    node, bun = specs
    assert node.run_command == ("node", "dist/server.js")
    assert node.run_env == {"WORKERS_PER_CPU": "2"}
    assert node.variant_of is None
    assert bun.variant_of == "nodejs"
    assert bun.info.display_name == "Bun · TS SDK"
    assert bun.info.language == "TypeScript"  # inherited
    assert bun.run_command == ("node_modules/.bin/bun", "dist/server.js")
    assert bun.run_env == {"WORKERS_PER_CPU": "2", "EXTRA": "1"}
    assert bun.build_commands == node.build_commands == ("npm ci && npm run build",)


def test_discovery_finds_every_directory_and_reports_broken_ones_by_file_and_field(tmp_path: Path) -> None:
    write(tmp_path, "nodejs", VALID)
    broken = write(tmp_path, "broken", VALID.replace('sdk_version = "1.32.2"\n', ""))
    bad_toml = write(tmp_path, "badtoml", "[server\n")
    discovery = discover(tmp_path)
    assert [s.name for s in discovery.servers] == ["nodejs", "bun"]
    messages = {e.path: e.message for e in discovery.errors}
    assert "field 'server.sdk_version'" in messages[broken]
    assert "not valid TOML" in messages[bad_toml]


def test_unknown_fields_and_wrong_types_are_named(tmp_path: Path) -> None:
    path = write(tmp_path, "x", VALID.replace('requires = ["node"]', 'requires = "node"\nport = 8080'))
    discovery = discover(tmp_path)
    assert not discovery.servers
    message = discovery.errors[0].message
    assert "field 'server.requires'" in message
    assert "field 'server.port'" in message
    assert str(path) in str(discovery.errors[0])


def test_empty_run_command_is_rejected(tmp_path: Path) -> None:
    write(tmp_path, "x", VALID.replace('command = ["node", "dist/server.js"]', "command = []"))
    assert "field 'run.command'" in discover(tmp_path).errors[0].message


def test_a_variant_name_that_collides_with_a_directory_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, "nodejs", VALID)
    write(tmp_path, "zzz", VALID.replace("[variants.bun]", "[variants.nodejs]"))
    discovery = discover(tmp_path)
    assert [s.name for s in discovery.servers] == ["nodejs", "bun", "zzz"]
    assert "already defined" in discovery.errors[0].message


def test_the_repository_manifests_are_all_valid() -> None:
    servers = Path(__file__).resolve().parents[2] / "servers"
    discovery = discover(servers)
    assert not discovery.errors, [str(e) for e in discovery.errors]
    assert discovery.servers, "no server discovered in servers/"


def test_version_args_are_inherited_by_variants_and_can_be_switched_off(tmp_path: Path) -> None:
    text = VALID.replace('requires = ["node"]', 'requires = ["node"]\nversion_args = ["--version"]')
    text += '\n[variants.compiled]\nversion_args = []\nrun.command = ["./server"]\n'
    node, bun, compiled = load_manifest(write(tmp_path, "nodejs", text))
    assert node.info.version_args == ["--version"] and bun.info.version_args == ["--version"]
    assert compiled.info.version_args == []


def test_stacks_only_leaves_out_the_what_if_variants_unless_they_are_named(tmp_path: Path) -> None:
    from mcpbench.catalog.selection import select

    text = VALID + '\n[variants.nodejs-4workers]\nwhat_if = "the v2 study\'s 4 workers"\nrun.env = { WORKERS = "4" }\n'
    write(tmp_path, "nodejs", text)
    discovery = discover(tmp_path)
    assert discovery.by_name()["nodejs-4workers"].what_if == "the v2 study's 4 workers"
    assert discovery.by_name()["nodejs-4workers"].describe().what_if == "the v2 study's 4 workers"
    assert [s.name for s in select(discovery, None)] == ["nodejs", "bun", "nodejs-4workers"]
    assert [s.name for s in select(discovery, None, stacks_only=True)] == ["nodejs", "bun"]  # bun is a stack
    assert [s.name for s in select(discovery, ["nodejs-4workers"], stacks_only=True)] == ["nodejs-4workers"]


def test_the_first_run_leaves_out_the_alternatives_and_the_what_ifs_unless_they_are_named(tmp_path: Path) -> None:
    from mcpbench.catalog.selection import select

    text = VALID.replace('runtime = "Bun 1.4.5"', 'runtime = "Bun 1.4.5"\nalternative_to = "nodejs"') \
        + '\n[variants.nodejs-4workers]\nwhat_if = "the v2 study\'s 4 workers"\nrun.env = { WORKERS = "4" }\n'
    write(tmp_path, "nodejs", text)
    base_only = VALID.split("[variants.bun]")[0]
    write(tmp_path, "webflux", base_only.replace('requires = ["node"]', 'requires = ["node"]\nalternative_to = "nodejs"'))
    discovery = discover(tmp_path)
    assert discovery.errors == []
    assert discovery.by_name()["bun"].alternative_to == "nodejs"
    assert discovery.by_name()["bun"].describe().model_dump()["alternative_to"] == "nodejs"  # server.json says it
    assert [s.name for s in select(discovery, None, first_run=True)] == ["nodejs"]
    assert [s.name for s in select(discovery, None, stacks_only=True)] == ["nodejs", "bun", "webflux"]
    assert [s.name for s in select(discovery, ["webflux", "bun"], first_run=True)] == ["webflux", "bun"]


def test_an_alternative_to_no_server_is_a_broken_manifest(tmp_path: Path) -> None:
    write(tmp_path, "nodejs", VALID.replace('runtime = "Bun 1.4.5"', 'runtime = "Bun 1.4.5"\nalternative_to = "nodjs"'))
    discovery = discover(tmp_path)
    assert [s.name for s in discovery.servers] == ["nodejs"]
    assert len(discovery.errors) == 1 and "alternative_to names 'nodjs'" in str(discovery.errors[0])


def test_the_repository_first_run_measures_each_sdk_once() -> None:
    """scripts/bench.sh's lineup (docs/first-run-profile.md: 30 minutes hold about 13 servers with rust's twin)."""
    from mcpbench.catalog.selection import select

    servers = Path(__file__).resolve().parents[2] / "servers"
    discovery = discover(servers)
    first = [s.name for s in select(discovery, None, first_run=True)]
    assert first == ["baseline", "go", "go-mcp-go", "java-sdk", "java-spring", "kotlin", "nodejs", "nodejs-fastmcp",
                     "python", "python-fastmcp", "quarkus", "rust"]
    alternatives = {s.name: s.alternative_to for s in discovery.servers if s.alternative_to}
    assert set(alternatives.values()) <= set(first)  # an alternative names a server the first run measures


def test_the_repository_marks_its_v2_parity_and_end_of_life_variants_as_what_ifs() -> None:
    servers = Path(__file__).resolve().parents[2] / "servers"
    what_ifs = {s.name for s in discover(servers).servers if s.what_if}
    assert what_ifs == {"nodejs-v2workers", "bun-v2workers", "python-v2workers", "nodejs-node24", "nodejs-node20"}


def test_every_repository_server_says_what_kind_of_mcp_layer_it_is() -> None:
    """The report's SDK-kind filter and the decision page group by it; a server without one is "not stated"."""
    servers = Path(__file__).resolve().parents[2] / "servers"
    kinds = {s.name: s.info.sdk_kind for s in discover(servers).servers}
    assert None not in kinds.values(), [name for name, kind in kinds.items() if kind is None]
    assert kinds["baseline"] == "none" and kinds["go-mcp-go"] == "community" and kinds["java-spring"] == "framework"
    assert kinds["rust"] == "official" and kinds["python-fastmcp"] == "framework"


def test_a_manifest_refuses_an_unknown_sdk_kind(tmp_path: Path) -> None:
    write(tmp_path, "x", VALID.replace('sdk_version', 'sdk_kind = "vendor"\nsdk_version', 1))
    discovery = discover(tmp_path)
    assert not discovery.servers and "sdk_kind" in str(discovery.errors[0])


def test_a_what_if_twin_is_the_server_with_one_setting_over_its_environment(tmp_path: Path) -> None:
    import pytest

    from mcpbench.catalog.selection import SelectionError, select, what_if_twins

    write(tmp_path, "nodejs", VALID + '\n[stdio]\ncommand = ["node", "dist/server.js", "--stdio"]\n')
    discovery = discover(tmp_path)
    chosen = what_if_twins(select(discovery, ["nodejs", "bun"]), discovery, "unguarded:ALLOWED_HOSTS=*")
    assert [s.name for s in chosen] == ["nodejs", "nodejs-unguarded", "bun", "bun-unguarded"]
    twin = chosen[3]
    assert (twin.variant_of, twin.what_if, twin.overrides) == ("bun", "ALLOWED_HOSTS=*", {"ALLOWED_HOSTS": "*"})
    assert twin.run_env == {"WORKERS_PER_CPU": "2", "EXTRA": "1", "ALLOWED_HOSTS": "*"}
    assert twin.stdio_env == {"WORKERS_PER_CPU": "2", "EXTRA": "1", "ALLOWED_HOSTS": "*"}
    assert twin.run_command == chosen[2].run_command and twin.info.display_name == "Bun · TS SDK (ALLOWED_HOSTS=*)"
    assert twin.describe().overrides == {"ALLOWED_HOSTS": "*"}
    assert "overrides" not in chosen[2].describe().model_dump(exclude_unset=True)   # as server.json holds it
    with pytest.raises(SelectionError, match="give LABEL:KEY=VALUE"):
        what_if_twins(chosen[:1], discovery, "ALLOWED_HOSTS=*")
    write(tmp_path, "node", VALID.replace("[variants.bun]", "[variants.node-x]"))
    with pytest.raises(SelectionError, match="node-x is already a server's name"):
        what_if_twins(select(discover(tmp_path), ["node"]), discover(tmp_path), "x:X=1")


def test_an_aa_twin_is_the_server_again_under_a_second_name(tmp_path: Path) -> None:
    """--twin SERVER: SERVER-twin right after SERVER, with a setting no server reads (results.model.TWIN_WHAT_IF);
    a known server that is not measured gets none (bench.sh's --twin rust with other servers named), an unknown
    name is an error."""
    import pytest

    from mcpbench.catalog.selection import SelectionError, aa_twins, select
    from mcpbench.results.model import TWIN_WHAT_IF

    write(tmp_path, "nodejs", VALID)
    discovery = discover(tmp_path)
    chosen, left_out = aa_twins(select(discovery, ["nodejs", "bun"]), discovery, ["bun"])
    assert [s.name for s in chosen] == ["nodejs", "bun", "bun-twin"] and left_out == []
    twin = chosen[2]
    assert (twin.variant_of, twin.what_if) == ("bun", TWIN_WHAT_IF) and twin.run_command == chosen[1].run_command
    assert twin.info.display_name == "Bun · TS SDK (A/A twin)"
    assert aa_twins(select(discovery, ["nodejs"]), discovery, ["bun"]) == ([chosen[0]], ["bun"])
    with pytest.raises(SelectionError, match="no server named 'rust'"):
        aa_twins(chosen, discovery, ["rust"])


def test_the_docs_list_every_server() -> None:
    """docs/servers.md's lineup table names every discovered server: a new directory shows up there or fails here."""
    root = Path(__file__).resolve().parents[2]
    section = (root / "docs" / "servers.md").read_text().split("## The lineup", 1)[1].split("\n## ", 1)[0]
    missing = [s.name for s in discover(root / "servers").servers if f"`{s.name}`" not in section]
    assert not missing, f"docs/servers.md's lineup does not name {missing}"
