package mcpbench.sdk;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionException;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.ServerHttpHeaderValidator;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.ProtocolVersions;
import reactor.core.publisher.Mono;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * What the SDK leaves to its user and a framework (Spring AI, Quarkus, Micronaut) does on top: tool
 * declarations to SDK tool specifications, a tool's exception to a tool error, the Host/Origin
 * validator from a list, the HTTP transports' protocol revisions, and their error bodies.
 */
final class Mcp {

	/**
	 * The SDK's own JSON mapper (Jackson 3 with JsonMapper.shared()'s defaults, what McpJsonDefaults
	 * supplies), plus one serializer: the servlet transport writes an McpError it answers with (400 for
	 * malformed JSON, 415, 500) as the exception itself, stack trace and all.
	 */
	static final McpJsonMapper JSON_MAPPER = new JacksonMcpJsonMapper(JsonMapper.builder()
		.addModule(new SimpleModule("mcp-errors").addSerializer(McpError.class, new McpErrorSerializer()))
		.build());

	/** The four revisions of the SDK's ProtocolVersions, which its HTTP transports list from 2025-03-26 on. */
	private static final List<String> PROTOCOL_VERSIONS = List.of(ProtocolVersions.MCP_2024_11_05,
			ProtocolVersions.MCP_2025_03_26, ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);

	private Mcp() {
	}

	/**
	 * The tools for the stateless server (HTTP). It answers each request with one JSON-RPC response and
	 * hands a tool only its McpTransportContext, no exchange: a progress notification has nowhere to go
	 * (SSE_REPLIES=1 and SESSIONS=1 run the session server instead, Main.http).
	 */
	static List<McpStatelessServerFeatures.SyncToolSpecification> statelessTools(List<BenchTools.Definition> tools) {
		BenchTools.Progress nowhere = (progress, total) -> {
		};
		return tools.stream()
			.map(t -> new McpStatelessServerFeatures.SyncToolSpecification(t.tool(),
					(context, call) -> call(t, call, call.progressToken() == null ? null : nowhere)))
			.toList();
	}

	/** The same tools for the session servers (stdio; HTTP with SSE_REPLIES=1 or SESSIONS=1), which can send progress. */
	static List<McpServerFeatures.SyncToolSpecification> sessionTools(List<BenchTools.Definition> tools) {
		return tools.stream()
			.map(t -> new McpServerFeatures.SyncToolSpecification(t.tool(),
					(exchange, call) -> call(t, call, progress(exchange, call))))
			.toList();
	}

	/**
	 * The SDK's progress API for a call that carries a progress token (null for one without): each
	 * notification goes through the call's exchange, which writes it on the call's own reply (its SSE stream
	 * over HTTP) and returns once it is written.
	 */
	private static BenchTools.Progress progress(McpSyncServerExchange exchange, CallToolRequest call) {
		Object token = call.progressToken();
		return token == null ? null : (progress, total) -> exchange
			.progressNotification(new McpSchema.ProgressNotification(token, progress, (double) total, null));
	}

	/**
	 * A call's text result, or a tool error (isError) saying why it failed, as Spring AI turns a tool's
	 * exception into one: left to the SDK, an exception would be a JSON-RPC internal error. The input
	 * schema was checked by the SDK already; "arguments" is optional in MCP (absent: every default).
	 */
	private static CallToolResult call(BenchTools.Definition tool, CallToolRequest call, BenchTools.Progress progress) {
		try {
			String text = tool.call().apply(call.arguments() != null ? call.arguments() : Map.of(), progress);
			return CallToolResult.builder().addTextContent(text).isError(false).build();
		}
		catch (RuntimeException ex) {
			Throwable cause = ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
			return CallToolResult.builder().addTextContent(String.valueOf(cause.getMessage())).isError(true).build();
		}
	}

	/**
	 * The SDK's DefaultServerTransportSecurityValidator takes host[:port] and origin patterns, where ":*"
	 * matches any port (or none): each allowed host becomes "host:*", "http://host:*" and "https://host:*"
	 * (java-spring's McpTransportConfig.hostValidator, word for word). A request without Origin passes; a
	 * missing or foreign Host gets 421, a foreign Origin 403. It compares case-sensitively, so the list is
	 * lowercased, the form browsers send. "*" alone is the suite's measure-the-cost switch: the SDK's no-op
	 * validator, the transport's default.
	 */
	static ServerHttpHeaderValidator hostValidator(List<String> allowedHosts) {
		List<String> hosts = allowedHosts.stream()
			.map(host -> host.trim().toLowerCase(Locale.ROOT))
			.filter(host -> !host.isEmpty())
			.toList();
		if (hosts.contains("*")) {
			return ServerHttpHeaderValidator.NOOP;
		}
		// An empty host list would make the SDK skip the Host check altogether.
		if (hosts.isEmpty()) {
			throw new IllegalStateException("ALLOWED_HOSTS names no host");
		}
		var validator = DefaultServerTransportSecurityValidator.builder();
		for (String host : hosts) {
			validator.allowedHost(host + ":*").allowedOrigin("http://" + host + ":*").allowedOrigin("https://" + host + ":*");
		}
		return validator.build();
	}

	/**
	 * The SDK's stateless servlet transport as the server sees it, with two additions: it lists
	 * 2024-11-05 (the revision the load's initialize sends; the stateless transport lists only the three
	 * later ones, so every initialize would log a warning and be answered with 2025-11-25), and it keeps
	 * the server's handler for in-process calls (the warm-up, Main).
	 */
	static final class StatelessTransport implements McpStatelessServerTransport {

		private final McpStatelessServerTransport servlet;

		private volatile McpStatelessServerHandler handler;

		StatelessTransport(McpStatelessServerTransport servlet) {
			this.servlet = servlet;
		}

		@Override
		public void setMcpHandler(McpStatelessServerHandler handler) {
			this.handler = handler;
			this.servlet.setMcpHandler(handler);
		}

		/** A request through the same handler as HTTP requests, without the HTTP part. */
		Mono<McpSchema.JSONRPCResponse> handle(McpSchema.JSONRPCRequest request) {
			return this.handler.handleRequest(McpTransportContext.EMPTY, request);
		}

		@Override
		public Mono<Void> closeGracefully() {
			return this.servlet.closeGracefully();
		}

		@Override
		public List<String> protocolVersions() {
			return PROTOCOL_VERSIONS;
		}

	}

	/**
	 * The SDK's streamable servlet transport (SSE_REPLIES=1, SESSIONS=1, Main.http) as the session server sees it,
	 * listing 2024-11-05 as StatelessTransport does: its own list starts at 2025-03-26, so every initialize of the
	 * load would log a warning and be answered 2025-11-25. Everything else is the servlet's.
	 */
	static final class StreamableTransport implements McpStreamableServerTransportProvider {

		private final McpStreamableServerTransportProvider servlet;

		StreamableTransport(McpStreamableServerTransportProvider servlet) {
			this.servlet = servlet;
		}

		@Override
		public void setSessionFactory(McpStreamableServerSession.Factory sessionFactory) {
			this.servlet.setSessionFactory(sessionFactory);
		}

		@Override
		public Mono<Void> notifyClients(String method, Object params) {
			return this.servlet.notifyClients(method, params);
		}

		@Override
		public Mono<Void> notifyClient(String sessionId, String method, Object params) {
			return this.servlet.notifyClient(sessionId, method, params);
		}

		@Override
		public Mono<Void> closeGracefully() {
			return this.servlet.closeGracefully();
		}

		@Override
		public void close() {
			this.servlet.close();
		}

		@Override
		public List<String> protocolVersions() {
			return PROTOCOL_VERSIONS;
		}

	}

	/** An McpError as a JSON-RPC error object (java-spring's McpTransportConfig.McpErrorSerializer). */
	private static final class McpErrorSerializer extends ValueSerializer<McpError> {

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
