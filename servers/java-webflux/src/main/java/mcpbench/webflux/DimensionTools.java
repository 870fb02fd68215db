package mcpbench.webflux;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static mcpbench.webflux.Clients.JSON;

/** Issue 37: tools/list at scale (EXTRA_TOOLS=N more tools), payload size and streamed progress (DIMENSION_TOOLS=1:
 * echo_payload, stream_progress); off unless those contract settings turn them on (docs/workload.md §6). SDK tool
 * specifications as beans, which Spring AI's auto-configuration registers beside the @McpTool methods' (stateless
 * over HTTP; session-bound on stdio and over HTTP with SSE_REPLIES=1, where the protocol is STREAMABLE). */
@Configuration(proxyBeanMethods = false)
class DimensionTools {

	static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

	static final int MAX_SIZE = 16 * 1024 * 1024;

	static final int MAX_COUNT = 1000;

	private static final String EXTRA_SCHEMA = """
			{"type": "object", "required": ["query"], "properties": {
			  "query": {"type": "string", "description": "free-text search query"},
			  "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "how many records to return"},
			  "sort": {"type": "string", "enum": ["relevance", "price", "rating", "newest"], "description": "sort order"},
			  "filters": {"type": "object", "description": "optional filters", "properties": {
			    "category": {"type": "string"}, "min_price": {"type": "number"}, "in_stock": {"type": "boolean"}}}}}""";

	private static final String ECHO_SCHEMA = """
			{"type": "object", "required": ["size"], "properties": {
			  "size": {"type": "integer", "minimum": 0, "maximum": 16777216, "description": "how many characters of payload to return"},
			  "data": {"type": "string", "default": "", "description": "text whose characters are counted"}}}""";

	private static final String PROGRESS_SCHEMA = """
			{"type": "object", "required": ["count"], "properties": {
			  "count": {"type": "integer", "minimum": 0, "maximum": 1000, "description": "how many progress notifications to send"}}}""";

	/** A tool and its call: the arguments (and where its progress goes) to the result's text. */
	record Definition(McpSchema.Tool tool, BiFunction<Map<String, Object>, Progress, Mono<String>> call) {
	}

	/** Sends notifications/progress for the call's token; null when the call has none, or nowhere to send it. */
	interface Progress {

		Mono<Void> send(int progress, int total);

	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	List<McpStatelessServerFeatures.AsyncToolSpecification> statelessDimensionTools(
			@Value("${mcpbench.extra-tools}") String extraTools, @Value("${mcpbench.dimension-tools}") String dimensionTools,
			@Value("${mcpbench.server-type}") String serverType) {
		return definitions(extraTools, dimensionTools, serverType).stream()
			// The stateless transport answers with one JSON body: a notification has nowhere to go (no Progress).
			.map(t -> new McpStatelessServerFeatures.AsyncToolSpecification(t.tool(), (context, call) -> call(t, call, null)))
			.toList();
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	List<McpServerFeatures.AsyncToolSpecification> sessionDimensionTools(
			@Value("${mcpbench.extra-tools}") String extraTools, @Value("${mcpbench.dimension-tools}") String dimensionTools,
			@Value("${mcpbench.server-type}") String serverType) {
		return definitions(extraTools, dimensionTools, serverType).stream()
			.map(t -> new McpServerFeatures.AsyncToolSpecification(t.tool(),
					(exchange, call) -> call(t, call, progress(exchange, call.progressToken()))))
			.toList();
	}

	/** The tools the two settings ask for (none when both are unset). */
	static List<Definition> definitions(String extraTools, String dimensionTools, String serverType) {
		int extra = extraTools.isBlank() ? 0 : Integer.parseInt(extraTools.trim());
		var tools = new ArrayList<Definition>(extra + 1);
		@SuppressWarnings("unchecked")
		Map<String, Object> extraSchema = JSON.readValue(EXTRA_SCHEMA, Map.class); // one schema, shared by all
		for (int i = 1; i <= extra; i++) {
			String name = "extra_%05d".formatted(i);
			var tool = McpSchema.Tool.builder(name, extraSchema)
				.description("Extra tool " + i + ": a catalog lookup registered for the tools/list scale test.")
				.build();
			tools.add(new Definition(tool,
					(args, progress) -> Mono.just(JSON.writeValueAsString(new ExtraResult(name, args.get("query"), serverType)))));
		}
		if ("1".equals(dimensionTools.trim())) {
			@SuppressWarnings("unchecked")
			Map<String, Object> echoSchema = JSON.readValue(ECHO_SCHEMA, Map.class);
			var tool = McpSchema.Tool.builder("echo_payload", echoSchema)
				.description("Returns size bytes of deterministic text and counts the characters of data.")
				.build();
			tools.add(new Definition(tool, (args, progress) -> Mono.just(echoPayload(args, serverType))));
			@SuppressWarnings("unchecked")
			Map<String, Object> progressSchema = JSON.readValue(PROGRESS_SCHEMA, Map.class);
			tools.add(new Definition(McpSchema.Tool.builder("stream_progress", progressSchema)
				.description("Sends count progress notifications, then answers.")
				.build(), (args, progress) -> streamProgress(args, progress, serverType)));
		}
		return tools;
	}

	/** The call's text, or a tool error (isError) saying why it failed, as Spring AI does for @McpTool methods. */
	private static Mono<CallToolResult> call(Definition tool, CallToolRequest call, Progress progress) {
		return Mono.defer(() -> tool.call().apply(call.arguments() != null ? call.arguments() : Map.of(), progress))
			.map(text -> CallToolResult.builder().addTextContent(text).isError(false).build())
			.onErrorResume(RuntimeException.class, ex -> Mono
				.just(CallToolResult.builder().addTextContent(String.valueOf(ex.getMessage())).isError(true).build()));
	}

	/** size characters of the alphabet repeated, and the number of characters (code points) of data. */
	private static String echoPayload(Map<String, Object> args, String serverType) {
		if (!(args.get("size") instanceof Integer size) || size < 0 || size > MAX_SIZE) {
			throw new IllegalArgumentException("size must be an integer from 0 to " + MAX_SIZE);
		}
		String data = args.get("data") instanceof String text ? text : "";
		String payload = ALPHABET.repeat(size / ALPHABET.length()) + ALPHABET.substring(0, size % ALPHABET.length());
		return JSON.writeValueAsString(new EchoResult(size, data.codePointCount(0, data.length()), payload, serverType));
	}

	/**
	 * The SDK's progress notification on the session's exchange, which the STREAMABLE transport writes to the call's
	 * own SSE reply; the Mono completes once it is sent.
	 */
	private static Progress progress(McpAsyncServerExchange exchange, Object token) {
		return token == null ? null : (progress, total) -> exchange
			.progressNotification(McpSchema.ProgressNotification.builder(token, progress).total((double) total).build());
	}

	/** count notifications, each sent before the next (concatMap), when the call can send them; then how many went out. */
	private static Mono<String> streamProgress(Map<String, Object> args, Progress progress, String serverType) {
		if (!(args.get("count") instanceof Integer count) || count < 0 || count > MAX_COUNT) {
			throw new IllegalArgumentException("count must be an integer from 0 to " + MAX_COUNT);
		}
		int sent = progress != null ? count : 0;
		return Flux.range(1, sent)
			.concatMap(i -> progress.send(i, count))
			.then(Mono.fromSupplier(() -> JSON.writeValueAsString(new ProgressResult(count, sent, serverType))));
	}

	// Wire types; JSON names are the snake_case of the component names (Clients.JSON).

	record ExtraResult(String tool, Object query, String serverType) {
	}

	record EchoResult(int size, int received, String payload, String serverType) {
	}

	record ProgressResult(int count, int sent, String serverType) {
	}

}
