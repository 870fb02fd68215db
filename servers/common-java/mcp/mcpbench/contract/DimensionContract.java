package mcpbench.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 37's dimension tools as the contract fixes them for the JVM servers on the MCP Java SDK: tools/list at
 * scale (EXTRA_TOOLS=N more tools), payload size, streamed progress and cancellation (DIMENSION_TOOLS=1:
 * echo_payload, stream_progress, stepped_work), off unless those settings turn them on (docs/workload.md §6).
 * Their declarations, argument checks and replies are here; each server registers them, sends progress and
 * learns of a cancellation in its SDK's way, and writes the replies with its own mapper (JSON names: the
 * snake_case of the record components).
 */
public final class DimensionContract {

	public static final String ECHO_PAYLOAD = "echo_payload";

	public static final String STREAM_PROGRESS = "stream_progress";

	public static final String STEPPED_WORK = "stepped_work";

	static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

	static final int MAX_SIZE = 16 * 1024 * 1024;

	static final int MAX_COUNT = 1000;

	static final int MAX_KEY = 100;

	static final int MAX_STEPS = 1000;

	static final int MAX_INTERVAL_MS = 10_000;

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

	private static final String STEPPED_SCHEMA = """
			{"type": "object", "properties": {
			  "key": {"type": "string", "minLength": 1, "maxLength": 100, "description": "names the Redis list bench:steps:<key> the steps are appended to"},
			  "steps": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "how many steps to do"},
			  "interval_ms": {"type": "integer", "minimum": 0, "maximum": 10000, "description": "milliseconds between steps"}},
			 "required": ["key", "steps", "interval_ms"]}""";

	private static final JsonMapper SCHEMAS = JsonMapper.builder().build();

	private DimensionContract() {
	}

	/**
	 * The tools EXTRA_TOOLS and DIMENSION_TOOLS ask for, in tools/list order: extra_00001 … extra_N, then
	 * echo_payload, stream_progress and stepped_work (none when both settings are unset or blank).
	 */
	public static List<McpSchema.Tool> tools(String extraTools, String dimensionTools) {
		int extra = extraTools == null || extraTools.isBlank() ? 0 : Integer.parseInt(extraTools.trim());
		var tools = new ArrayList<McpSchema.Tool>(extra + 3);
		Map<String, Object> extraSchema = schema(EXTRA_SCHEMA); // one schema, shared by all
		for (int i = 1; i <= extra; i++) {
			tools.add(McpSchema.Tool.builder("extra_%05d".formatted(i), extraSchema)
				.description("Extra tool " + i + ": a catalog lookup registered for the tools/list scale test.")
				.build());
		}
		if (dimensionTools != null && "1".equals(dimensionTools.trim())) {
			tools.add(McpSchema.Tool.builder(ECHO_PAYLOAD, schema(ECHO_SCHEMA))
				.description("Returns size bytes of deterministic text and counts the characters of data.")
				.build());
			tools.add(McpSchema.Tool.builder(STREAM_PROGRESS, schema(PROGRESS_SCHEMA))
				.description("Sends count progress notifications, then answers.")
				.build());
			tools.add(McpSchema.Tool.builder(STEPPED_WORK, schema(STEPPED_SCHEMA))
				.description("Appends steps timestamps to a Redis list, interval_ms apart, with progress; stops when cancelled.")
				.build());
		}
		return tools;
	}

	/** An extra tool's reply: its name and the query it was given. */
	public static ExtraResult extraResult(String tool, Map<String, Object> args, String serverType) {
		return new ExtraResult(tool, args.get("query"), serverType);
	}

	/** size characters of the alphabet repeated, and the number of characters (code points) of data. */
	public static EchoResult echoPayload(Map<String, Object> args, String serverType) {
		if (!(args.get("size") instanceof Integer size) || size < 0 || size > MAX_SIZE) {
			throw new IllegalArgumentException("size must be an integer from 0 to " + MAX_SIZE);
		}
		String data = args.get("data") instanceof String text ? text : "";
		String payload = ALPHABET.repeat(size / ALPHABET.length()) + ALPHABET.substring(0, size % ALPHABET.length());
		return new EchoResult(size, data.codePointCount(0, data.length()), payload, serverType);
	}

	/** stream_progress's count argument: how many notifications to send (IllegalArgumentException if out of range). */
	public static int progressCount(Map<String, Object> args) {
		if (!(args.get("count") instanceof Integer count) || count < 0 || count > MAX_COUNT) {
			throw new IllegalArgumentException("count must be an integer from 0 to " + MAX_COUNT);
		}
		return count;
	}

	/** stepped_work's arguments, checked (IllegalArgumentException if one is out of range). */
	public static Steps steps(Map<String, Object> args) {
		if (!(args.get("key") instanceof String key) || key.isEmpty() || key.codePointCount(0, key.length()) > MAX_KEY) {
			throw new IllegalArgumentException("key must be a string of 1 to " + MAX_KEY + " characters");
		}
		if (!(args.get("steps") instanceof Integer steps) || steps < 1 || steps > MAX_STEPS) {
			throw new IllegalArgumentException("steps must be an integer from 1 to " + MAX_STEPS);
		}
		if (!(args.get("interval_ms") instanceof Integer interval) || interval < 0 || interval > MAX_INTERVAL_MS) {
			throw new IllegalArgumentException("interval_ms must be an integer from 0 to " + MAX_INTERVAL_MS);
		}
		return new Steps(key, steps, interval);
	}

	/**
	 * stepped_work for a blocking tool: steps pushes (RPUSH list, the time in ms) interval_ms apart, each followed by
	 * its progress notification when the call can send one (progress null otherwise). A sync tool learns of a
	 * cancellation only by its thread's interrupt: the loop stops at the next step once interrupted.
	 */
	public static SteppedResult steppedWork(Map<String, Object> args, BiConsumer<String, String> rpush, Progress progress,
			String serverType) {
		var work = steps(args);
		int done = 0;
		try {
			while (done < work.steps() && !Thread.currentThread().isInterrupted()) {
				rpush.accept(work.list(), Long.toString(System.currentTimeMillis()));
				done++;
				if (progress != null) {
					progress.send(done, work.steps());
				}
				if (done < work.steps()) {
					Thread.sleep(work.intervalMs());
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return new SteppedResult(work.key(), done, serverType);
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> schema(String text) {
		return SCHEMAS.readValue(text, Map.class);
	}

	/** Sends notifications/progress (progress of total) for the call being answered, in the server's SDK's way. */
	public interface Progress {

		void send(int progress, int total);

	}

	// Wire types.

	public record ExtraResult(String tool, Object query, String serverType) {
	}

	public record EchoResult(int size, int received, String payload, String serverType) {
	}

	public record ProgressResult(int count, int sent, String serverType) {
	}

	/** stepped_work's checked arguments; each step is an RPUSH of the time in ms to {@link #list()}. */
	public record Steps(String key, int steps, int intervalMs) {

		public String list() {
			return "bench:steps:" + this.key;
		}

	}

	public record SteppedResult(String key, int steps, String serverType) {
	}

}
