package mcpbench.micronaut;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.mcp.server.stdio.StdioServerTransportProviderReplacement;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import jakarta.inject.Singleton;
import reactor.core.publisher.Mono;

/**
 * The stdio transport micronaut-mcp configures (its StdioServerTransportProviderReplacement, the MCP Java
 * SDK's StdioServerTransportProvider), with one gap closed. Requests are handled concurrently, but each
 * reply goes to the writer with a tryEmitNext that fails when another reply is handed over at the same
 * moment: that reply is dropped ("Failed to enqueue message", modelcontextprotocol/java-sdk#686) and its
 * caller waits forever. Here replies are handed over one at a time; the SDK still writes them. And when
 * stdin closes, which ends the one stdio session, the application stops and the process exits.
 */
@Factory
@Requires(property = "micronaut.mcp.server.transport", value = "STDIO")
class StdioTransport {

    @Singleton
    @Replaces(McpServerTransportProvider.class)
    McpServerTransportProvider stdioServerTransport(McpJsonMapper jsonMapper, ApplicationContext context) {
        var stdio = new StdioServerTransportProviderReplacement(jsonMapper);
        return new McpServerTransportProvider() {

            @Override
            public void setSessionFactory(McpServerSession.Factory sessions) {
                stdio.setSessionFactory(transport -> sessions.create(new SessionTransport(transport, context)));
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

    private record SessionTransport(McpServerTransport transport, ApplicationContext context) implements McpServerTransport {

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            // Subscribing enqueues the message (the transport is ready once a request has come in).
            return Mono.defer(() -> {
                synchronized (this) {
                    return Mono.fromFuture(transport.sendMessage(message).toFuture());
                }
            });
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
            return transport.unmarshalFrom(data, type);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return transport.closeGracefully();
        }

        /** The SDK closes the session when stdin reaches its end. */
        @Override
        public void close() {
            transport.close();
            Thread.ofPlatform().start(() -> {
                context.close();
                System.exit(0);
            });
        }
    }
}
