package mcpbench.contract.spring;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The stdio profile's transport: the one Spring AI configures for spring.ai.mcp.server.stdio=true
 * (the MCP Java SDK's StdioServerTransportProvider), with one gap closed. The SDK handles requests
 * concurrently, but hands each reply to its writer with a tryEmitNext that fails when another reply
 * is handed over at the same moment: that reply is dropped ("Failed to enqueue message",
 * modelcontextprotocol/java-sdk#686, still so in SDK 2.0.1) and its caller waits forever. Here
 * replies are handed over one at a time; the SDK still writes them. And when stdin closes, which
 * ends the one stdio session, the process exits (without a web server nothing else ends it).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "spring.ai.mcp.server.stdio", havingValue = "true")
public class StdioTransport {

	@Bean
	McpServerTransportProvider stdioServerTransport(@Qualifier("mcpServerJsonMapper") JsonMapper jsonMapper) {
		var stdio = new StdioServerTransportProvider(new JacksonMcpJsonMapper(jsonMapper));
		return new McpServerTransportProvider() {

			@Override
			public void setSessionFactory(McpServerSession.Factory sessions) {
				stdio.setSessionFactory(transport -> sessions.create(new SessionTransport(transport)));
			}

			@Override
			public Mono<Void> notifyClients(String method, Object params) {
				return stdio.notifyClients(method, params);
			}

			@Override
			public Mono<Void> closeGracefully() {
				return stdio.closeGracefully();
			}

		};
	}

	private record SessionTransport(McpServerTransport transport) implements McpServerTransport {

		@Override
		public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
			// Subscribing enqueues the message (the transport is ready once a request has come in).
			return Mono.defer(() -> {
				synchronized (this) {
					return Mono.fromFuture(this.transport.sendMessage(message).toFuture());
				}
			});
		}

		@Override
		public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
			return this.transport.unmarshalFrom(data, type);
		}

		@Override
		public Mono<Void> closeGracefully() {
			return this.transport.closeGracefully();
		}

		/** The SDK closes the session when stdin reaches its end. */
		@Override
		public void close() {
			this.transport.close();
			Thread.ofPlatform().start(() -> System.exit(0)); // Boot's shutdown hook closes the context
		}

	}

}
