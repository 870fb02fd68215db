"""A server given on the command line instead of by a directory: `--command 'CMD {port}'` (an MCP server
over Streamable HTTP that the suite starts, on a free port, under the run's limits), `--stdio 'CMD'` (one the
load driver starts over stdio), `--url URL` (one already running: nothing started, limited or read of it), or
several `--target NAME=CMD` / `--target NAME=URL` (configurations of one server measured side by side; with
`--transport stdio` each CMD is a stdio command the load driver starts, so two stdio servers make an A/B too). Each
becomes the ServerSpec a manifest would make, with the workload file's calls instead of the lineup's: the runner,
the analysis and the report measure it as they measure the lineup.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from mcpbench.catalog.manifest import ServerInfo, ServerSpec
from mcpbench.workload.file import Workload, WorkloadError

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
NOT_GIVEN = "not given"
READY_TIMEOUT_S = 120.0
# A server given by URL is already up: it answers at once or it is not there.
REACH_TIMEOUT_S = 10.0
URL = re.compile(r"^https?://[^\s/]+")


class TargetError(ValueError):
    """A target the command line cannot make (one line)."""


def _argv(command: str, option: str) -> tuple[str, ...]:
    try:
        argv = tuple(shlex.split(command))
    except ValueError as exc:
        raise TargetError(f"{option} {command!r}: {exc}") from None
    if not argv:
        raise TargetError(f"{option}: an empty command")
    return argv


def _environment(pairs: list[str] | None) -> dict[str, str]:
    env = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise TargetError(f"--env {pair!r}: give KEY=VALUE")
        env[key] = value
    return env


def _headers(pairs: list[str] | None) -> dict[str, str]:
    headers = {}
    for pair in pairs or []:
        name, sep, value = pair.partition(":")
        if not sep or not name.strip() or any(c in name for c in " \t"):
            raise TargetError(f"--header {pair!r}: give 'Name: value'")
        headers[name.strip()] = value.strip()
    return headers


def _url(text: str, option: str) -> str:
    if not URL.match(text):
        raise TargetError(f"{option} {text!r}: give an http:// or https:// URL (the MCP endpoint, e.g. …/mcp)")
    return text


def _name(argv: tuple[str, ...]) -> str:
    """A name from the command when none is given: its program's, lower case."""
    program = Path(argv[0]).name.lower()
    cleaned = re.sub(r"[^a-z0-9._-]+", "-", program).strip("-.") or "target"
    return cleaned if NAME.match(cleaned) else f"target-{cleaned}"


def _spec(name: str, workload: Workload, directory: Path, env: dict[str, str], ready_timeout_s: float,
          http: tuple[str, ...] = (), stdio: tuple[str, ...] | None = None, url: str | None = None,
          ready: str | None = None) -> ServerSpec:
    if not NAME.match(name):
        raise TargetError(f"target name {name!r}: lower-case letters, digits, '.', '_' and '-' only")
    command = url or " ".join(shlex.quote(part) for part in (http or stdio or ()))
    runtime = "already running (not started, not limited)" if url else Path((http or stdio or ("?",))[0]).name
    info = ServerInfo(display_name=name, language=NOT_GIVEN, runtime=runtime, sdk=NOT_GIVEN, sdk_version=NOT_GIVEN,
                      description=f"a server given on the command line: {command}")
    return ServerSpec(name=name, directory=directory, manifest_path=workload.path, info=info, build_commands=(),
                      build_timeout_s=1.0, run_command=http, run_env=dict(env),
                      ready_timeout_s=REACH_TIMEOUT_S if url else ready_timeout_s,
                      variant_of=None, docker={}, stdio_command=stdio, stdio_env=dict(env) if stdio else None,
                      workload=workload, url=url, ready_command=ready if http else None, given=True)


def target_specs(workload: Path | None, command: str | None = None, stdio: str | None = None,
                 targets: list[str] | None = None, env: list[str] | None = None, name: str | None = None,
                 ready_timeout_s: float = READY_TIMEOUT_S, directory: Path | None = None, url: str | None = None,
                 headers: list[str] | None = None, ready: str | None = None,
                 transport: str = "http") -> list[ServerSpec]:
    """The servers the command line gives, in its order; TargetError (one line) when they cannot be made.
    `transport` stdio: each --target's command is a stdio server's (a URL is then refused)."""
    given = [flag for flag, value in (("--command", command), ("--stdio", stdio), ("--url", url),
                                      ("--target", targets)) if value]
    if targets and (command or stdio or url):  # --command with --stdio is one server serving both transports
        raise TargetError("--target NAME=COMMAND names every target: leave out --command, --stdio and --url")
    if url and command:
        raise TargetError("--url is a server already running, --command one the suite starts: give one of them")
    if workload is None:
        raise TargetError(f"{given[0]} needs --workload FILE: the calls to make (docs/workload-file.md)")
    try:
        calls = Workload.read(Path(workload).resolve())  # a resumed run's recorded option is text
    except WorkloadError as exc:
        raise TargetError(str(exc)) from None
    calls = calls.with_headers(_headers(headers))
    if ready and not (command or targets):
        raise TargetError("--ready checks a server the suite starts: it goes with --command or --target NAME=COMMAND")
    where = (directory or Path.cwd()).resolve()
    environment = _environment(env)
    if targets:
        if name:
            raise TargetError("--name names a --command or --stdio target; a --target names itself (NAME=COMMAND)")
        specs = []
        for target in targets:
            label, sep, text = target.partition("=")
            if not sep or not label or not text.strip():
                raise TargetError(f"--target {target!r}: give NAME=COMMAND or NAME=URL")
            if text.strip().startswith(("http://", "https://")):
                if transport == "stdio":
                    raise TargetError(f"--target {label}={text.strip()}: a URL is an HTTP server; over stdio give the "
                                      "command that starts it")
                specs.append(_spec(label, calls, where, environment, ready_timeout_s,
                                   url=_url(text.strip(), f"--target {label}=")))
            elif transport == "stdio":
                specs.append(_spec(label, calls, where, environment, ready_timeout_s,
                                   stdio=_argv(text, f"--target {label}=")))
            else:
                specs.append(_spec(label, calls, where, environment, ready_timeout_s,
                                   http=_argv(text, f"--target {label}="), ready=ready))
        names = [spec.name for spec in specs]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise TargetError(f"--target {twice[0]} is given twice")
        return specs
    http = _argv(command, "--command") if command else ()
    over_stdio = _argv(stdio, "--stdio") if stdio else None
    reached = _url(url, "--url") if url else None
    default = _name(http or over_stdio or ("target",)) if not reached else "target"
    return [_spec(name or default, calls, where, environment, ready_timeout_s, http=http, stdio=over_stdio,
                  url=reached, ready=ready)]
