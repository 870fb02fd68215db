package mcpbench.sdk;

import java.util.concurrent.CountDownLatch;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import reactor.core.publisher.Mono;

/**
 * The MCP Java SDK's StdioServerTransportProvider with one gap closed (java-spring's StdioTransport, without
 * Spring). The SDK handles requests concurrently, but hands each reply to its writer with an emitNext that
 * gives up when other replies are being handed over for 100 ms ("Failed to enqueue message", SDK 2.1.0; it
 * was an immediate tryEmitNext in 2.0, modelcontextprotocol/java-sdk#686): that reply is dropped and its
 * caller waits forever. On a busy core that happened within seconds under the stdio load. Here replies are
 * handed over one at a time; the SDK still writes them. And it tells when the session ends (stdin closed).
 */
final class StdioTransport implements McpServerTransportProvider {

	private final StdioServerTransportProvider stdio;

	/** Counted down when the SDK closes the one stdio session, i.e. when stdin reached its end. */
	final CountDownLatch closed = new CountDownLatch(1);

	StdioTransport(StdioServerTransportProvider stdio) {
		this.stdio = stdio;
	}

	@Override
	public void setSessionFactory(McpServerSession.Factory sessions) {
		this.stdio.setSessionFactory(transport -> sessions.create(new SessionTransport(transport)));
	}

	@Override
	public Mono<Void> notifyClients(String method, Object params) {
		return this.stdio.notifyClients(method, params);
	}

	@Override
	public Mono<Void> closeGracefully() {
		return this.stdio.closeGracefully();
	}

	private final class SessionTransport implements McpServerTransport {

		private final McpServerTransport transport;

		SessionTransport(McpServerTransport transport) {
			this.transport = transport;
		}

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
			StdioTransport.this.closed.countDown();
		}

	}

}
