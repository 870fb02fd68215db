"""`mcpbench images …` and `mcpbench compose …`: the docker runtime's images and compose file.

    mcpbench images build [servers…]   the base image (debootstrap + docker import, if missing), Redis,
                                        the API service and each server's image — no registry needed
    mcpbench images base [--force]     only the base image
    mcpbench images list               the images and their sizes
    mcpbench compose generate          write docker-compose.yml from the manifests
    mcpbench compose check             exit 1 when docker-compose.yml is not what the manifests give
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.table import Table

from mcpbench.catalog.manifest import discover
from mcpbench.cli.options import (
    JsonOpt,
    ServersArg,
    ServersDirOpt,
    console,
    fail,
    print_json,
    selected_servers,
    terminate_on_sigterm,
)
from mcpbench.host.paths import RESULTS_DIR, ROOT, SERVERS_DIR
from mcpbench.runtime import docker_compose as compose

images_app = typer.Typer(add_completion=False, no_args_is_help=True,
                         help="Docker images of the servers, Redis and the API service (no registry needed).")
compose_app = typer.Typer(add_completion=False, no_args_is_help=True,
                          help="docker-compose.yml, generated from the manifests.")





def _engine(need_compose: bool = False):
    from mcpbench.runtime.docker import ensure_engine
    from mcpbench.runtime.docker_engine import DockerError

    try:
        return ensure_engine(lambda message: console.print(f"[yellow]{message}[/]"), need_compose)
    except DockerError as exc:
        raise fail(str(exc)) from exc


@images_app.command("build")
def images_build(
    servers: ServersArg = None,
    servers_dir: ServersDirOpt = SERVERS_DIR,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Rebuild every layer (a cold build).")] = False,
    logs: Annotated[Path, typer.Option(help="Where the build logs go.")] = RESULTS_DIR / "_build-logs" / "docker",
) -> None:
    """Build the base image if missing, then Redis, the API service, the load driver and the servers' images."""
    from mcpbench.runtime.docker import ImageBuilder, image_details

    terminate_on_sigterm()  # scripts/test.sh builds images in the background and stops them on its way out
    specs = selected_servers(servers_dir, servers)
    engine = _engine()
    builder = ImageBuilder(engine)
    logs.mkdir(parents=True, exist_ok=True)
    failed = 0
    with console.status("base image, Redis, the API service and the load driver…"):
        outcome = builder.build_infra(logs / "_infra.log", no_cache=no_cache)
    _report("redis + api-service + load-driver", outcome, None)
    if outcome.status != "ok":
        raise typer.Exit(1)
    for spec in specs:
        with console.status(f"building {spec.name}…"):
            outcome = builder.build_server(spec, logs / f"{spec.name}.log", no_cache=no_cache)
        details = image_details(engine, f"{compose.IMAGE_PREFIX}{spec.name}:latest") if outcome.status == "ok" else None
        _report(spec.name, outcome, details)
        failed += outcome.status == "failed"  # skipped (`unsupported`) is said, not an error
    console.print(f"logs in {logs}")
    if failed:
        raise typer.Exit(1)


def _report(name: str, outcome, details) -> None:
    mark = {"ok": "[green]✓[/]", "skipped": "[yellow]-[/]"}.get(outcome.status, "[red]✗[/]")
    size = f", {details.image_size_mb:.1f} MB" if details else ""
    console.print(f"{mark} {name} {outcome.status} in {outcome.seconds:.1f} s{size}"
                  + (f": {outcome.reason}" if outcome.reason else ""))


@images_app.command("base")
def images_base(
    force: Annotated[bool, typer.Option("--force", help="Rebuild it even if it exists.")] = False,
    rootfs: Annotated[Optional[str], typer.Option(
        help="Start from this image instead of debootstrap "
             "(e.g. debian:trixie-slim, where a registry is reachable).")] = None,
) -> None:
    """Build the shared Debian base image locally: debootstrap + docker import + the host's extra CAs."""
    _engine()
    argv = ["bash", str(ROOT / "docker" / "build-base.sh")] + (["--force"] if force else []) \
        + (["--rootfs", rootfs] if rootfs else [])
    started = time.monotonic()
    done = subprocess.run(argv, cwd=ROOT)
    console.print(f"base image: exit {done.returncode} after {time.monotonic() - started:.1f} s")
    raise typer.Exit(done.returncode)


@images_app.command("list")
def images_list(servers_dir: ServersDirOpt = SERVERS_DIR, as_json: JsonOpt = False) -> None:
    """The base, Redis, API service and server images, with their sizes."""
    from mcpbench.runtime.docker import image_details

    engine = _engine()
    names = [compose.BASE_IMAGE, compose.REDIS_IMAGE, compose.API_IMAGE, compose.LOAD_DRIVER_IMAGE]
    unsupported = set()
    for spec in discover(servers_dir).servers:
        names.append(f"{compose.IMAGE_PREFIX}{spec.name}:latest")
        try:
            compose.container_plan(spec)
        except compose.DockerUnsupported:
            unsupported.add(names[-1])
        except compose.DockerConfigError:
            pass
    rows: list[dict[str, Any]] = []  # a table's rows, or --json's
    for name in names:
        if not engine.image(name):
            rows.append({"image": name, "status": "unsupported" if name in unsupported else "not built"})
            continue
        details = image_details(engine, name)
        rows.append({"image": name, "status": "built", "size_mb": details.image_size_mb,
                     "own_layers_mb": details.image_own_layers_mb, "created": details.image_created})
    if as_json:
        print_json({"images": rows})
        return
    table = Table(title="mcpbench images")
    for column in ("image", "size MB", "own layers MB", "created"):
        table.add_column(column)
    for row in rows:
        if row["status"] != "built":
            table.add_row(row["image"], "-", "-", row["status"])
            continue
        own = row["own_layers_mb"]
        table.add_row(row["image"], f"{row['size_mb']:.1f}", "-" if own is None else f"{own:.1f}",
                      str(row["created"])[:19])
    console.print(table)


@compose_app.command("generate")
def compose_generate(
    servers_dir: ServersDirOpt = SERVERS_DIR,
    output: Annotated[Path, typer.Option(help="Where to write it.")] = compose.COMPOSE_FILE,
) -> None:
    """Write docker-compose.yml from every manifest (Redis, the API service, one profile per server)."""
    specs = discover(servers_dir).servers
    text = compose.generate(specs, output.parent.resolve())
    output.write_text(text, encoding="utf-8")
    _, excluded = compose.document(specs, output.parent.resolve())
    console.print(f"wrote {output}: {len(specs) - len(excluded)} servers")
    for item in excluded:
        console.print(f"[yellow]left out[/] {item.name}: {item.reason}")


@compose_app.command("check")
def compose_check(
    servers_dir: ServersDirOpt = SERVERS_DIR,
    path: Annotated[Path, typer.Option(help="The compose file to check.")] = compose.COMPOSE_FILE,
) -> None:
    """Exit 1 when docker-compose.yml differs from what the manifests give (run `mcpbench compose generate`)."""
    result = compose.check(discover(servers_dir).servers, path, path.parent.resolve())
    for item in result.excluded:
        console.print(f"[yellow]left out[/] {item.name}: {item.reason}")
    if not result.current:
        raise fail(f"{path} is stale: run `mcpbench compose generate`", 1)
    console.print(f"{path} is current")


def register(app: typer.Typer) -> None:
    app.add_typer(images_app, name="images")
    app.add_typer(compose_app, name="compose")
