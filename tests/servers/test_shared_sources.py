"""Server files that fairness depends on and that exist as copies: the copies must stay equal. (What can be
shared is shared once per language: servers/common-go, servers/common-java; what stays here is written
against each web stack's own types.)"""

from __future__ import annotations

import re
from pathlib import Path

SERVERS = Path(__file__).resolve().parents[2] / "servers"

# The Spring servers' transport configuration (the patches themselves are common-java/spring's) differs only in
# the web stack's names (MVC vs WebFlux).
SPRING_TRANSPORT = ("java-spring/src/main/java/mcpbench/spring/McpTransportConfig.java",
                    "java-webflux/src/main/java/mcpbench/webflux/McpTransportConfig.java")
STACK_NAMES = [
    (r"package mcpbench\.\w+;", "package PKG;"),
    (r"org\.springframework\.ai\.mcp\.server\.web(mvc|flux)\.transport\.Web(Mvc|Flux)StatelessServerTransport",
     "TRANSPORT_CLASS"),
    (r"Web(Mvc|Flux)StatelessServerTransport", "TRANSPORT"),
    (r"org\.springframework\.ai\.mcp\.server\.web(mvc|flux)\.transport\.Web(Mvc|Flux)StreamableServerTransportProvider",
     "STREAMABLE_CLASS"),
    (r"Web(Mvc|Flux)StreamableServerTransportProvider", "STREAMABLE"),
    # the streamable transports' builders name the endpoint differently (MVC: mcpEndpoint, WebFlux: messageEndpoint)
    (r"\.(mcpEndpoint|messageEndpoint)\(", ".ENDPOINT("),
    (r"org\.springframework\.web\.(servlet\.function|reactive\.function\.server)\.", "FUNCTIONAL."),
]


def normalised(text: str) -> str:
    for pattern, replacement in STACK_NAMES:
        text = re.sub(pattern, replacement, text)
    return text


def test_the_spring_transport_patches_differ_only_in_the_web_stack() -> None:
    left, right = (normalised((SERVERS / p).read_text()) for p in SPRING_TRANSPORT)
    assert left == right, "the two McpTransportConfig.java differ beyond MVC vs WebFlux names"
