package mcpbench.contract.spring;

import java.util.List;
import java.util.Locale;

import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.ServerTransportSecurityValidator;

import org.springframework.util.Assert;

/** The contract's ALLOWED_HOSTS list as the MCP SDK's Host/Origin validator, for both Spring AI transports. */
public final class HostValidator {

	private HostValidator() {
	}

	/**
	 * The SDK's DefaultServerTransportSecurityValidator takes host[:port] and origin patterns, where
	 * ":*" matches any port (or none): each allowed host becomes "host:*", "http://host:*" and
	 * "https://host:*". A request without Origin passes; a missing or foreign Host gets 421, a foreign
	 * Origin 403. It compares case-sensitively, so the list is lowercased, the form browsers send (a
	 * mixed-case Host from another client is refused). "*" alone is the suite's measure-the-cost
	 * switch: the SDK's no-op validator, Spring AI's default.
	 */
	public static ServerTransportSecurityValidator of(List<String> allowedHosts) {
		List<String> hosts = allowedHosts.stream()
			.map(host -> host.trim().toLowerCase(Locale.ROOT))
			.filter(host -> !host.isEmpty())
			.toList();
		if (hosts.contains("*")) {
			return ServerTransportSecurityValidator.NOOP;
		}
		// An empty host list would make the SDK skip the Host check altogether.
		Assert.state(!hosts.isEmpty(), "ALLOWED_HOSTS names no host");
		var validator = DefaultServerTransportSecurityValidator.builder();
		for (String host : hosts) {
			validator.allowedHost(host + ":*").allowedOrigin("http://" + host + ":*").allowedOrigin("https://" + host + ":*");
		}
		return validator.build();
	}

}
