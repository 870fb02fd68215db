package mcpbench.spring;

import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import mcpbench.contract.DimensionContract;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static mcpbench.contract.DimensionContract.ECHO_PAYLOAD;
import static mcpbench.contract.DimensionContract.STEPPED_WORK;
import static mcpbench.contract.DimensionContract.STREAM_PROGRESS;
import static mcpbench.spring.Clients.JSON;

/** Issue 37: tools/list at scale (EXTRA_TOOLS=N more tools), payload size, streamed progress and cancellation
 * (DIMENSION_TOOLS=1: echo_payload, stream_progress, stepped_work); off unless those contract settings turn them on
 * (docs/workload.md §6). SDK tool specifications as beans, which Spring AI's auto-configuration registers beside the
 * @McpTool methods' (stateless over HTTP; session-bound on stdio and over HTTP with SSE_REPLIES=1 or SESSIONS=1,
 * where the protocol is STREAMABLE). The tools themselves, their checks and replies are the contract's
 * (servers/common-java/mcp: DimensionContract). */
@Configuration(proxyBeanMethods = false)
class DimensionTools {

	/** A tool and its call: the arguments (and where its progress goes) to the result's text. */
	record Definition(McpSchema.Tool tool, BiFunction<Map<String, Object>, Progress, String> call) {
	}

	/** Sends notifications/progress for the call's token; null when the call has none, or nowhere to send it. */
	interface Progress {

		void send(int progress, int total);

	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	List<McpStatelessServerFeatures.SyncToolSpecification> statelessDimensionTools(
			@Value("${mcpbench.extra-tools}") String extraTools, @Value("${mcpbench.dimension-tools}") String dimensionTools,
			@Value("${mcpbench.server-type}") String serverType, StringRedisTemplate redis) {
		return definitions(extraTools, dimensionTools, serverType, redis).stream()
			// The stateless transport answers with one JSON body: a notification has nowhere to go (no Progress).
			.map(t -> new McpStatelessServerFeatures.SyncToolSpecification(t.tool(), (context, call) -> call(t, call, null)))
			.toList();
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	List<McpServerFeatures.SyncToolSpecification> sessionDimensionTools(
			@Value("${mcpbench.extra-tools}") String extraTools, @Value("${mcpbench.dimension-tools}") String dimensionTools,
			@Value("${mcpbench.server-type}") String serverType, StringRedisTemplate redis) {
		return definitions(extraTools, dimensionTools, serverType, redis).stream()
			.map(t -> new McpServerFeatures.SyncToolSpecification(t.tool(),
					(exchange, call) -> call(t, call, progress(exchange, call.progressToken()))))
			.toList();
	}

	/** The tools the two settings ask for (none when both are unset), each with its call. */
	static List<Definition> definitions(String extraTools, String dimensionTools, String serverType,
			StringRedisTemplate redis) {
		return DimensionContract.tools(extraTools, dimensionTools).stream().map(tool -> new Definition(tool, switch (tool.name()) {
			case ECHO_PAYLOAD -> (args, progress) -> JSON.writeValueAsString(DimensionContract.echoPayload(args, serverType));
			case STREAM_PROGRESS -> (args, progress) -> streamProgress(args, progress, serverType);
			case STEPPED_WORK -> (args, progress) -> steppedWork(redis, args, progress, serverType);
			default -> (args, progress) -> JSON.writeValueAsString(DimensionContract.extraResult(tool.name(), args, serverType));
		})).toList();
	}

	/** The call's text, or a tool error (isError) saying why it failed, as Spring AI does for @McpTool methods. */
	private static CallToolResult call(Definition tool, CallToolRequest call, Progress progress) {
		try {
			String text = tool.call().apply(call.arguments() != null ? call.arguments() : Map.of(), progress);
			return CallToolResult.builder().addTextContent(text).isError(false).build();
		}
		catch (RuntimeException ex) {
			return CallToolResult.builder().addTextContent(String.valueOf(ex.getMessage())).isError(true).build();
		}
	}

	/**
	 * The SDK's progress notification on the session's exchange, which the STREAMABLE transport writes to the call's
	 * own SSE reply; progressNotification blocks until it is sent.
	 */
	private static Progress progress(McpSyncServerExchange exchange, Object token) {
		return token == null ? null : (progress, total) -> exchange
			.progressNotification(McpSchema.ProgressNotification.builder(token, progress).total((double) total).build());
	}

	/** count notifications, one after the other, when the call can send them; then how many went out. */
	private static String streamProgress(Map<String, Object> args, Progress progress, String serverType) {
		int count = DimensionContract.progressCount(args);
		int sent = progress != null ? count : 0;
		for (int i = 1; i <= sent; i++) {
			progress.send(i, count);
		}
		return JSON.writeValueAsString(new DimensionContract.ProgressResult(count, sent, serverType));
	}

	/**
	 * DimensionContract's stepped_work loop, pushing through the StringRedisTemplate. A sync tool learns of a
	 * cancellation only by its thread's interrupt, which nothing here sends (README "Dimension tools"), so the loop
	 * runs to the end.
	 */
	private static String steppedWork(StringRedisTemplate redis, Map<String, Object> args, Progress progress,
			String serverType) {
		return JSON.writeValueAsString(DimensionContract.steppedWork(args,
				(list, time) -> redis.opsForList().rightPush(list, time), progress == null ? null : progress::send,
				serverType));
	}

}
