package mcpbench.quarkus;

import java.util.List;

import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.HostAndPort;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * DNS-rebinding protection with the ALLOWED_HOSTS list (README "DNS-rebinding protection"): a request whose
 * Host, or whose Origin if it sends one, names a host outside the list gets 403 from a Vert.x filter.
 * The extension's own check (quarkus.mcp.server.http.dns-rebinding-check.enabled) stays on, but it cannot
 * take a list: it only compares Origin with a fixed set of loopback names, only when quarkus.http.host is
 * loopback (not in a container, where HOST=0.0.0.0), and never looks at Host, which is what a rebound
 * name changes. ALLOWED_HOSTS=* registers no filter; the extension's switch cannot follow it, because
 * 1.13.0 fixes that property at build time (McpHttpServersRuntimeConfig is a BUILD_AND_RUN_TIME_FIXED root).
 */
@Singleton
public class HostGuard {

    /** Filters run in priority order ahead of the routes: the MCP route's body handler never reads a refused request. */
    static final int PRIORITY = 1_000;

    /** The contract's switch-off value: only the suite's protection-on-vs-off measurement sets it. */
    static final String OFF = "*";

    void register(@Observes Filters filters,
            @ConfigProperty(name = "ALLOWED_HOSTS", defaultValue = "localhost,127.0.0.1,[::1]") List<String> hosts) {
        // Parsed once here (runtime init); the request path only compares strings.
        List<String> list = hosts.stream().map(String::trim).filter(h -> !h.isEmpty()).toList();
        if (list.contains(OFF)) {
            return;
        }
        filters.register(ctx -> {
            String origin = ctx.request().getHeader(HttpHeaders.ORIGIN);
            if (allowed(list, ctx.request().authority()) && (origin == null || allowed(list, originAuthority(origin)))) {
                ctx.next();
            } else {
                ctx.response().setStatusCode(403).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain").end("Host or Origin not allowed");
            }
        }, PRIORITY);
    }

    /** Host and :authority both come parsed by Vert.x (null when missing or malformed); "[::1]" keeps its brackets. */
    private static boolean allowed(List<String> list, HostAndPort authority) {
        if (authority == null) {
            return false;
        }
        String host = authority.host();
        for (String a : list) {
            if (a.equalsIgnoreCase(host)) {
                return true;
            }
        }
        return false;
    }

    /** "scheme://host[:port]"; anything else (including the opaque origin "null") names no host. */
    private static HostAndPort originAuthority(String origin) {
        int start = origin.indexOf("://");
        return start < 0 ? null : HostAndPort.parseAuthority(origin.substring(start + 3), -1);
    }
}
