package mcpbench.spring;

import java.util.List;

import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import mcpbench.contract.spring.HostValidator;
import mcpbench.contract.spring.PatchedTransport;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.mcp.server.common.autoconfigure.properties.McpServerStreamableHttpProperties;
import org.springframework.ai.mcp.server.webmvc.transport.WebMvcStatelessServerTransport;
import org.springframework.ai.mcp.server.webmvc.transport.WebMvcStreamableServerTransportProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

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
 * The patches are the Spring stacks' shared code (servers/common-java/spring: PatchedTransport,
 * HostValidator, McpErrorSerializer); this class builds the transport of this web stack with them.
 * HTTP only: the stdio profile (application-stdio.properties) runs without a web application.
 * <p>
 * SSE_REPLIES=1 or SESSIONS=1 (Application) selects Spring AI's stateful STREAMABLE transport instead: it lists
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
	WebMvcStatelessServerTransport statelessTransport(@Qualifier("mcpServerJsonMapper") JsonMapper jsonMapper,
			McpServerStreamableHttpProperties properties, @Value("${mcpbench.allowed-hosts}") List<String> allowedHosts) {
		return WebMvcStatelessServerTransport.builder()
			.jsonMapper(new JacksonMcpJsonMapper(jsonMapper))
			.messageEndpoint(properties.getMcpEndpoint())
			.securityValidator(HostValidator.of(allowedHosts))
			.build();
	}

	/**
	 * SSE_REPLIES=1, SESSIONS=1: Spring AI's streamable transport, built as its auto-configuration builds it, plus
	 * the guard.
	 */
	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	WebMvcStreamableServerTransportProvider streamableTransport(@Qualifier("mcpServerJsonMapper") JsonMapper jsonMapper,
			McpServerStreamableHttpProperties properties, @Value("${mcpbench.allowed-hosts}") List<String> allowedHosts) {
		return WebMvcStreamableServerTransportProvider.builder()
			.jsonMapper(new JacksonMcpJsonMapper(jsonMapper))
			.mcpEndpoint(properties.getMcpEndpoint())
			.keepAliveInterval(properties.getKeepAliveInterval())
			.disallowDelete(properties.isDisallowDelete())
			.securityValidator(HostValidator.of(allowedHosts))
			.build();
	}

	@Bean
	@Primary
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	PatchedTransport mcpTransport(WebMvcStatelessServerTransport transport) {
		return new PatchedTransport(transport);
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	RouterFunction<ServerResponse> mcpDelete() {
		return RouterFunctions.route()
			.DELETE("/mcp", request -> ServerResponse.status(HttpStatus.METHOD_NOT_ALLOWED).header("Allow", "POST").build())
			.build();
	}

}
