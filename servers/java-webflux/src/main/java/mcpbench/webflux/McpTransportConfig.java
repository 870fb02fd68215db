package mcpbench.webflux;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.ServerTransportSecurityValidator;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import io.modelcontextprotocol.spec.ProtocolVersions;
import reactor.core.publisher.Mono;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.mcp.server.common.autoconfigure.properties.McpServerStreamableHttpProperties;
import org.springframework.ai.mcp.server.webflux.transport.WebFluxStatelessServerTransport;
import org.springframework.ai.mcp.server.webflux.transport.WebFluxStreamableServerTransportProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.jackson.JacksonComponent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.http.HttpStatus;
import org.springframework.util.Assert;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * Gaps in the Spring AI 2.0.0 / MCP SDK 2.0.0 stateless transport, closed without
 * replacing it:
 * <ul>
 * <li>it does not list 2024-11-05 (the version the load script sends), so every initialize
 * logged a warning — a log line per session under load;</li>
 * <li>an unknown method came back as HTTP 500 instead of a JSON-RPC "method not found";</li>
 * <li>its error bodies serialise the McpError exception, stack trace and all;</li>
 * <li>a tools/call without "arguments" failed with a NullPointerException;</li>
 * <li>DELETE /mcp (session end) fell through to a 404; stateless servers answer 405;</li>
 * <li>Spring AI builds the transport with the SDK's DNS-rebinding guard off (a no-op
 * validator) and has no property to turn it on.</li>
 * </ul>
 * HTTP only: the stdio profile (application-stdio.properties) runs without a web application.
 * <p>
 * SSE_REPLIES=1 (Application) selects Spring AI's stateful STREAMABLE transport instead: it lists
 * 2024-11-05, answers DELETE (session end) itself and needs none of these patches but the Host/Origin
 * guard. SDK 2.0.0 leaves its reply to an unknown method open (fixed in 2.0.1).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication
class McpTransportConfig {

	/**
	 * Spring AI's stateless transport, built as its auto-configuration builds it (which backs off for
	 * this bean), plus the MCP SDK's Host/Origin validator configured from ALLOWED_HOSTS.
	 */
	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	WebFluxStatelessServerTransport statelessTransport(@Qualifier("mcpServerJsonMapper") JsonMapper jsonMapper,
			McpServerStreamableHttpProperties properties, @Value("${mcpbench.allowed-hosts}") List<String> allowedHosts) {
		return WebFluxStatelessServerTransport.builder()
			.jsonMapper(new JacksonMcpJsonMapper(jsonMapper))
			.messageEndpoint(properties.getMcpEndpoint())
			.securityValidator(hostValidator(allowedHosts))
			.build();
	}

	/** SSE_REPLIES=1: Spring AI's streamable transport, built as its auto-configuration builds it, plus the guard. */
	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	WebFluxStreamableServerTransportProvider streamableTransport(@Qualifier("mcpServerJsonMapper") JsonMapper jsonMapper,
			McpServerStreamableHttpProperties properties, @Value("${mcpbench.allowed-hosts}") List<String> allowedHosts) {
		return WebFluxStreamableServerTransportProvider.builder()
			.jsonMapper(new JacksonMcpJsonMapper(jsonMapper))
			.messageEndpoint(properties.getMcpEndpoint())
			.keepAliveInterval(properties.getKeepAliveInterval())
			.disallowDelete(properties.isDisallowDelete())
			.securityValidator(hostValidator(allowedHosts))
			.build();
	}

	/**
	 * The SDK's DefaultServerTransportSecurityValidator takes host[:port] and origin patterns, where
	 * ":*" matches any port (or none): each allowed host becomes "host:*", "http://host:*" and
	 * "https://host:*". A request without Origin passes; a missing or foreign Host gets 421, a foreign
	 * Origin 403. It compares case-sensitively, so the list is lowercased, the form browsers send (a
	 * mixed-case Host from another client is refused). "*" alone is the suite's measure-the-cost
	 * switch: the SDK's no-op validator, Spring AI's default.
	 */
	static ServerTransportSecurityValidator hostValidator(List<String> allowedHosts) {
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

	@Bean
	@Primary
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	PatchedTransport mcpTransport(WebFluxStatelessServerTransport transport) {
		return new PatchedTransport(transport);
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	RouterFunction<ServerResponse> mcpDelete() {
		return RouterFunctions.route()
			.DELETE("/mcp", request -> ServerResponse.status(HttpStatus.METHOD_NOT_ALLOWED).header("Allow", "POST").build())
			.build();
	}

	/** Hands the transport a patched handler, and keeps it for in-process calls (see Warmup). */
	static final class PatchedTransport implements McpStatelessServerTransport {

		private final McpStatelessServerTransport transport;

		private volatile McpStatelessServerHandler handler;

		PatchedTransport(McpStatelessServerTransport transport) {
			this.transport = transport;
		}

		@Override
		public void setMcpHandler(McpStatelessServerHandler handler) {
			this.handler = new JsonRpcErrors(handler);
			this.transport.setMcpHandler(this.handler);
		}

		/** A request through the same handler as HTTP requests, without the HTTP part. */
		Mono<McpSchema.JSONRPCResponse> handle(McpSchema.JSONRPCRequest request) {
			McpStatelessServerHandler current = this.handler;
			return current != null ? current.handleRequest(McpTransportContext.EMPTY, request)
					: Mono.error(new IllegalStateException("MCP server not initialised"));
		}

		@Override
		public Mono<Void> closeGracefully() {
			return this.transport.closeGracefully();
		}

		@Override
		public List<String> protocolVersions() {
			return List.of(ProtocolVersions.MCP_2024_11_05, ProtocolVersions.MCP_2025_03_26,
					ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);
		}

	}

	/**
	 * Turns a request-level McpError (e.g. an unknown method) into a JSON-RPC error reply, and
	 * gives a tools/call without "arguments" (optional in MCP) an empty map, which the
	 * annotation binder needs to apply the tools' defaults instead of failing.
	 */
	private record JsonRpcErrors(McpStatelessServerHandler delegate) implements McpStatelessServerHandler {

		@Override
		public Mono<McpSchema.JSONRPCResponse> handleRequest(McpTransportContext context,
				McpSchema.JSONRPCRequest request) {
			if (McpSchema.METHOD_TOOLS_CALL.equals(request.method()) && request.params() instanceof Map<?, ?> params
					&& params.get("arguments") == null) {
				var withArguments = new HashMap<Object, Object>(params);
				withArguments.put("arguments", Map.of());
				request = new McpSchema.JSONRPCRequest(request.jsonrpc(), request.method(), request.id(), withArguments);
			}
			McpSchema.JSONRPCRequest call = request;
			return this.delegate.handleRequest(context, call)
				.onErrorResume(McpError.class,
						e -> Mono.just(McpSchema.JSONRPCResponse.error(call.id(), e.getJsonRpcError())));
		}

		@Override
		public Mono<Void> handleNotification(McpTransportContext context, McpSchema.JSONRPCNotification notification) {
			return this.delegate.handleNotification(context, notification);
		}

	}

	/** Writes an McpError the transport returns as an HTTP body as a JSON-RPC error object. */
	@JacksonComponent
	static class McpErrorSerializer extends ValueSerializer<McpError> {

		@Override
		public void serialize(McpError error, JsonGenerator gen, SerializationContext context) {
			var rpc = error.getJsonRpcError();
			gen.writeStartObject();
			gen.writeStringProperty("jsonrpc", "2.0");
			gen.writeNullProperty("id");
			gen.writeName("error");
			gen.writeStartObject();
			gen.writeNumberProperty("code", rpc != null ? rpc.code() : McpSchema.ErrorCodes.INTERNAL_ERROR);
			gen.writeStringProperty("message", rpc != null ? rpc.message() : error.getMessage());
			gen.writeEndObject();
			gen.writeEndObject();
		}

	}

}
