package mcpbench.micronaut;

import java.util.Arrays;
import java.util.List;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.server.annotation.PreMatching;

/**
 * DNS-rebinding protection with the ALLOWED_HOSTS list (README "DNS-rebinding protection"): a request whose
 * Host, or whose Origin if it sends one, names a host outside the list gets 403. Neither micronaut-mcp
 * 0.0.19 nor the MCP Java SDK 0.17 it runs on checks Host or Origin, and Micronaut has nothing that
 * refuses a Host: micronaut.server.host-resolution.allowed-hosts only replaces an unlisted host in
 * generated links, and CorsFilter's drive-by-localhost rule only refuses a foreign Origin sent to a
 * loopback Host (kept, it is on by default), never a rebound Host name.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
final class HostGuard {

    /** Parsed once at start; null when ALLOWED_HOSTS=*, the switch-off that only the suite's cost measurement sets. */
    private final List<String> allowed;

    HostGuard() {
        String env = System.getenv("ALLOWED_HOSTS");
        List<String> hosts = Arrays.stream((env == null ? "localhost,127.0.0.1,[::1]" : env).split(","))
                .map(String::trim).filter(h -> !h.isEmpty()).toList();
        this.allowed = hosts.contains("*") ? null : hosts;
    }

    /** Before route matching: a refused request is not routed, and its body is never read. */
    @PreMatching
    @RequestFilter
    @Nullable
    public HttpResponse<?> check(HttpRequest<?> request) {
        if (allowed == null) {
            return null;
        }
        String host = request.getHeaders().get(HttpHeaders.HOST);
        String origin = request.getHeaders().get(HttpHeaders.ORIGIN);
        if (host != null && allowed(host, 0) && (origin == null || originAllowed(origin))) {
            return null;
        }
        return HttpResponse.status(HttpStatus.FORBIDDEN).contentType(MediaType.TEXT_PLAIN_TYPE).body("Host or Origin not allowed");
    }

    /** "scheme://host[:port]"; anything else (including the opaque origin "null") names no host. */
    private boolean originAllowed(String origin) {
        int scheme = origin.indexOf("://");
        return scheme >= 0 && allowed(origin, scheme + 3);
    }

    /**
     * Whether the host of the authority at value[start..] ("host[:port]", "[v6]:port") is in the list,
     * case-insensitive; compared in place, nothing allocated.
     */
    private boolean allowed(String value, int start) {
        int end = value.startsWith("[", start) ? value.indexOf(']', start) + 1 : value.indexOf(':', start);
        if (end <= start) {
            end = value.length();
        }
        int length = end - start;
        for (String a : allowed) {
            if (a.length() == length && value.regionMatches(true, start, a, 0, length)) {
                return true;
            }
        }
        return false;
    }
}
