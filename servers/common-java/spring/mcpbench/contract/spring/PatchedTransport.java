package mcpbench.contract.spring;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import io.modelcontextprotocol.spec.ProtocolVersions;
import reactor.core.publisher.Mono;

/**
 * Spring AI's stateless transport (MVC's or WebFlux's, the server's McpTransportConfig builds it) with the
 * gaps of Spring AI 2.0.0 / MCP SDK 2.0.0 closed without replacing it: it lists 2024-11-05 (the version the
 * load script sends; without it every initialize logged a warning), an unknown method gets a JSON-RPC
 * "method not found" instead of HTTP 500, and a tools/call without "arguments" gets an empty map instead
 * of a NullPointerException.
 */
/** Hands the transport a patched handler, and keeps it for in-process calls (see Warmup). */
public final class PatchedTransport implements McpStatelessServerTransport {

	private final McpStatelessServerTransport transport;

	private volatile McpStatelessServerHandler handler;

	public PatchedTransport(McpStatelessServerTransport transport) {
		this.transport = transport;
	}

	@Override
	public void setMcpHandler(McpStatelessServerHandler handler) {
		this.handler = new JsonRpcErrors(handler);
		this.transport.setMcpHandler(this.handler);
	}

	/** A request through the same handler as HTTP requests, without the HTTP part. */
	public Mono<McpSchema.JSONRPCResponse> handle(McpSchema.JSONRPCRequest request) {
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

}
