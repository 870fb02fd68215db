"""Verify a server against a workload file before any load: it answers `initialize`, lists every tool the
workload calls, and each call — a tool with its arguments, or a method (resources/read, prompts/get…) with its
params, as VU 1 sends them — made once, passes its checks. A failure
is one check naming the call and what came back (the lineup's servers have workload/verify.py, which holds
them to the whole spec)."""

from __future__ import annotations

import json

import httpx

from mcpbench.workload.checks import Check
from mcpbench.workload.file import TOOLS_CALL, Workload
from mcpbench.workload.mcp_client import McpClient, Reply
from mcpbench.workload.verify import Verify


def _said(reply: Reply) -> str:
    body = " ".join(reply.body.split())
    return f"HTTP {reply.status}: {body[:200]!r}"


def verify_calls(url: str, workload: Workload) -> Verify:
    """Every check against the MCP endpoint `url`; never raises for a misbehaving server."""
    checks: list[Check] = []
    try:
        with McpClient(url, headers=workload.headers) as client:
            reply = client.initialize()
            if reply.status != 200 or not reply.result:
                return Verify.of([Check(name="initialize", status="fail", reason=_said(reply))])
            info = reply.result.get("serverInfo") or {}
            checks.append(Check(name="initialize", status="pass",
                                reason=f"protocol {reply.result.get('protocolVersion')}, server "
                                       f"{info.get('name')!r} {info.get('version') or ''}".rstrip()))
            client.notify("notifications/initialized")
            listed = client.request("tools/list")
            tools = {tool.get("name") for tool in (listed.result or {}).get("tools") or [] if isinstance(tool, dict)}
            wanted = [c.tool or "" for c in workload.calls if c.method == TOOLS_CALL]
            missing = [tool for tool in wanted if tool not in tools]
            if missing:
                checks.append(Check(name="tools/list", status="fail",
                                    reason=f"the server does not list {', '.join(missing)} (it lists "
                                           f"{', '.join(sorted(t for t in tools if t)) or 'no tools'})"))
                return Verify.of(checks)
            checks.append(Check(name="tools/list", status="pass",
                                reason=f"{len(tools)} tools, every tool of the workload among them"))
            for call in workload.calls:
                if call.method == TOOLS_CALL:
                    reply = client.call_tool(call.tool or "", call.rendered_arguments())
                else:
                    reply = client.request(call.method, call.rendered_params() or None)
                name = f"call {call.label}"
                if reply.status != 200 or reply.error or reply.result is None:
                    error = reply.error or {}
                    said = (f"JSON-RPC error {error.get('code')}: {error.get('message')}" if reply.error
                            else _said(reply))
                    checks.append(Check(name=name, status="fail", reason=said))
                    continue
                problem = call.problem(reply.result)
                checks.append(Check(name=name, status="fail" if problem else "pass",
                                    reason=problem or f"{len(call.check)} check(s) hold"))
            status = client.delete_session()
            checks.append(Check(name="DELETE",
                                status="pass" if 200 <= status < 300 or status in (404, 405) else "warn",
                                reason=f"HTTP {status}"))
    except (httpx.HTTPError, json.JSONDecodeError, ValueError) as exc:
        checks.append(Check(name="connection", status="fail",
                            reason=f"{type(exc).__name__}: {exc}".splitlines()[0]))
    return Verify.of(checks)
