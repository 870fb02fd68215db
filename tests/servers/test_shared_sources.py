"""Server files that fairness depends on and that exist as copies: the copies must stay equal. (The Go
servers share theirs as one module, servers/common-go.)"""

from __future__ import annotations

import re
from pathlib import Path

SERVERS = Path(__file__).resolve().parents[2] / "servers"

# The Spring servers' transport patch differs only in the web stack's names (MVC vs WebFlux).
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


# The Spring servers' stdio transport (the reply-serialising workaround of java-sdk#686) is one file in two
# build contexts: only the package differs.
SPRING_STDIO = ("java-spring/src/main/java/mcpbench/spring/StdioTransport.java",
                "java-webflux/src/main/java/mcpbench/webflux/StdioTransport.java")


def test_the_spring_stdio_transports_differ_only_in_their_package() -> None:
    left, right = (normalised((SERVERS / p).read_text()) for p in SPRING_STDIO)
    assert left == right, "the two StdioTransport.java differ beyond their package"
