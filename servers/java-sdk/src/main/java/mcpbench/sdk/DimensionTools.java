package mcpbench.sdk;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.spec.McpSchema;

import static mcpbench.sdk.Clients.JSON;

/** Issue 37: tools/list at scale (EXTRA_TOOLS=N more tools), payload size and streamed progress (DIMENSION_TOOLS=1:
 * echo_payload, stream_progress);
 * off unless those contract settings turn them on (docs/workload.md §6).
 * Declared like BenchTools' tools and registered with them. */
final class DimensionTools {

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

	private DimensionTools() {
	}

	/** The tools EXTRA_TOOLS and DIMENSION_TOOLS ask for (none when both are unset). */
	static List<BenchTools.Definition> definitions(String serverType) {
		String extraSetting = System.getenv("EXTRA_TOOLS");
		int extra = extraSetting == null || extraSetting.isBlank() ? 0 : Integer.parseInt(extraSetting.trim());
		boolean dimension = "1".equals(String.valueOf(System.getenv("DIMENSION_TOOLS")).trim());
		var tools = new ArrayList<BenchTools.Definition>(extra + 2);
		@SuppressWarnings("unchecked")
		Map<String, Object> extraSchema = JSON.readValue(EXTRA_SCHEMA, Map.class); // one schema, shared by all
		for (int i = 1; i <= extra; i++) {
			String name = "extra_%05d".formatted(i);
			var tool = McpSchema.Tool.builder(name, extraSchema)
				.description("Extra tool " + i + ": a catalog lookup registered for the tools/list scale test.")
				.build();
			tools.add(new BenchTools.Definition(tool,
					args -> JSON.writeValueAsString(new ExtraResult(name, args.get("query"), serverType))));
		}
		if (dimension) {
			@SuppressWarnings("unchecked")
			Map<String, Object> echoSchema = JSON.readValue(ECHO_SCHEMA, Map.class);
			var tool = McpSchema.Tool.builder("echo_payload", echoSchema)
				.description("Returns size bytes of deterministic text and counts the characters of data.")
				.build();
			tools.add(new BenchTools.Definition(tool, args -> echoPayload(args, serverType)));
			@SuppressWarnings("unchecked")
			Map<String, Object> progressSchema = JSON.readValue(PROGRESS_SCHEMA, Map.class);
			tools.add(new BenchTools.Definition(McpSchema.Tool.builder("stream_progress", progressSchema)
				.description("Sends count progress notifications, then answers.")
				.build(), (args, progress) -> streamProgress(args, progress, serverType)));
		}
		return tools;
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
	 * count progress notifications (1 … count of count) when the call carries a progress token, each handed
	 * to the SDK and written on the call's reply before the next (Mcp.progress); none without one.
	 */
	private static String streamProgress(Map<String, Object> args, BenchTools.Progress progress, String serverType) {
		if (!(args.get("count") instanceof Integer count) || count < 0 || count > MAX_COUNT) {
			throw new IllegalArgumentException("count must be an integer from 0 to " + MAX_COUNT);
		}
		for (int i = 1; progress != null && i <= count; i++) {
			progress.send(i, count);
		}
		return JSON.writeValueAsString(new ProgressResult(count, progress != null ? count : 0, serverType));
	}

	// Wire types; JSON names are the snake_case of the component names (Clients.JSON).

	record ExtraResult(String tool, Object query, String serverType) {
	}

	record EchoResult(int size, int received, String payload, String serverType) {
	}

	record ProgressResult(int count, int sent, String serverType) {
	}

}
