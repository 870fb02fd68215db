package mcpbench.micronaut;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import io.lettuce.core.api.StatefulRedisConnection;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.json.JsonMapper;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import jakarta.inject.Singleton;

/**
 * Issue 37 (tools/list at scale, reply size, streamed progress, cancellation): EXTRA_TOOLS=N registers
 * extra_00001…N and DIMENSION_TOOLS=1 registers echo_payload, stream_progress and stepped_work, off unless set.
 * Each is an MCP Java SDK tool whose schema is the contract's JSON text, added to the SDK's server specification
 * that micronaut-mcp builds (beside the @Tool methods) when that bean is created: stateless over HTTP, a session
 * over stdio.
 */
@Singleton
final class DimensionTools {

    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    static final int MAX_SIZE = 16 * 1024 * 1024;

    static final int MAX_COUNT = 1000;
    static final int MAX_KEY = 100;
    static final int MAX_STEPS = 1000;
    static final int MAX_INTERVAL_MS = 10_000;

    static final String EXTRA_SCHEMA = """
            {"type": "object",
             "properties": {
               "query":   {"type": "string", "description": "free-text search query"},
               "limit":   {"type": "integer", "minimum": 1, "maximum": 100, "description": "how many records to return"},
               "sort":    {"type": "string", "enum": ["relevance", "price", "rating", "newest"], "description": "sort order"},
               "filters": {"type": "object", "description": "optional filters",
                           "properties": {"category": {"type": "string"}, "min_price": {"type": "number"},
                                          "in_stock": {"type": "boolean"}}}},
             "required": ["query"]}""";

    static final String ECHO_SCHEMA = """
            {"type": "object",
             "properties": {
               "size": {"type": "integer", "minimum": 0, "maximum": 16777216},
               "data": {"type": "string", "default": ""}},
             "required": ["size"]}""";

    static final String PROGRESS_SCHEMA = """
            {"type": "object",
             "properties": {"count": {"type": "integer", "minimum": 0, "maximum": 1000}},
             "required": ["count"]}""";

    static final String STEPS_SCHEMA = """
            {"type": "object",
             "properties": {
               "key": {"type": "string", "minLength": 1, "maxLength": 100, "description": "names the Redis list bench:steps:<key> the steps are appended to"},
               "steps": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "how many steps to do"},
               "interval_ms": {"type": "integer", "minimum": 0, "maximum": 10000, "description": "milliseconds between steps"}},
             "required": ["key", "steps", "interval_ms"]}""";

    /** A tool and what answers it (its arguments; the call's Progress, null without a progress token). */
    record Entry(Tool tool, BiFunction<Map<String, Object>, Progress, CallToolResult> call) {
    }

    /** Sends progress notification `progress` of `total` for the call being answered, under its token. */
    interface Progress {
        void send(int progress, int total);
    }

    /**
     * Over HTTP a notification has nowhere to go: micronaut-mcp's McpController answers each POST with the one
     * JSONRPCResponse of the SDK's McpStatelessServerHandler, whose tools get a McpTransportContext, no exchange
     * (mcpbench.toml: unsupported.progress).
     */
    private static final Progress NOWHERE = (progress, total) -> { };

    private final JsonMapper json;
    private final BeanProvider<StatefulRedisConnection<String, String>> redis; // connected on first use, as BenchTools'
    private final String serverType;
    final List<Entry> entries = new ArrayList<>();

    DimensionTools(McpJsonMapper mcpJson, JsonMapper json, BeanProvider<StatefulRedisConnection<String, String>> redis,
                   @Value("${SERVER_TYPE:micronaut}") String serverType,
                   @Value("${EXTRA_TOOLS:}") String extraTools, @Value("${DIMENSION_TOOLS:}") String dimensionTools) {
        this.json = json;
        this.redis = redis;
        this.serverType = serverType;
        int extra = extraTools.isBlank() ? 0 : Integer.parseInt(extraTools.trim());
        for (int i = 1; i <= extra; i++) {
            String name = String.format("extra_%05d", i);
            entries.add(new Entry(Tool.builder().name(name)
                    .description("Extra tool " + i + ": a catalog lookup registered for the tools/list scale test.")
                    .inputSchema(mcpJson, EXTRA_SCHEMA).build(), (args, progress) -> extra(name, args)));
        }
        if (dimensionTools.trim().equals("1")) {
            entries.add(new Entry(Tool.builder().name("echo_payload")
                    .description("Returns size bytes of deterministic text and counts the characters of data.")
                    .inputSchema(mcpJson, ECHO_SCHEMA).build(), (args, progress) -> echo(args)));
            entries.add(new Entry(Tool.builder().name("stream_progress")
                    .description("Sends count progress notifications, then answers.")
                    .inputSchema(mcpJson, PROGRESS_SCHEMA).build(), this::streamProgress));
            entries.add(new Entry(Tool.builder().name("stepped_work")
                    .description("Appends steps timestamps to a Redis list, interval_ms apart, with progress; stops when cancelled.")
                    .inputSchema(mcpJson, STEPS_SCHEMA).build(), this::steppedWork));
        }
    }

    /** HTTP: micronaut-mcp's stateless server. */
    @Singleton
    record Stateless(DimensionTools dims) implements BeanCreatedEventListener<McpServer.StatelessSyncSpecification> {
        @Override
        public McpServer.StatelessSyncSpecification onCreated(BeanCreatedEvent<McpServer.StatelessSyncSpecification> event) {
            return event.getBean().tools(dims.entries.stream().map(e -> new McpStatelessServerFeatures.SyncToolSpecification(
                    e.tool(), (transport, request) -> e.call().apply(request.arguments(),
                            request.progressToken() == null ? null : NOWHERE))).toList());
        }
    }

    /** stdio: micronaut-mcp's session server. */
    @Singleton
    @SuppressWarnings({"rawtypes", "unchecked"})
    record Session(DimensionTools dims) implements BeanCreatedEventListener<McpServer.SyncSpecification> {
        @Override
        public McpServer.SyncSpecification onCreated(BeanCreatedEvent<McpServer.SyncSpecification> event) {
            return event.getBean().tools(dims.entries.stream().map(e -> McpServerFeatures.SyncToolSpecification.builder()
                    .tool(e.tool()).callHandler((exchange, request) -> e.call().apply(request.arguments(),
                            progress(exchange, request.progressToken()))).build()).toList());
        }
    }

    private CallToolResult extra(String name, Map<String, Object> args) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("tool", name);
        result.put("query", args == null ? null : args.get("query"));
        result.put("server_type", serverType);
        return text(result);
    }

    private CallToolResult echo(Map<String, Object> args) {
        Object size = args == null ? null : args.get("size");
        if (!(size instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())
                || n.doubleValue() < 0 || n.doubleValue() > MAX_SIZE) {
            return CallToolResult.builder().addTextContent("size must be an integer from 0 to " + MAX_SIZE).isError(true).build();
        }
        int length = n.intValue();
        String data = args.get("data") instanceof String s ? s : "";
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("size", length);
        result.put("received", data.codePointCount(0, data.length()));
        result.put("payload", ALPHABET.repeat(length / ALPHABET.length() + 1).substring(0, length));
        result.put("server_type", serverType);
        return text(result);
    }

    /** The SDK's progress API on a session: each notification written (stdout) before the next. */
    private static Progress progress(McpSyncServerExchange exchange, Object token) {
        return token == null ? null : (progress, total) ->
                exchange.progressNotification(new ProgressNotification(token, progress, (double) total, null));
    }

    private CallToolResult streamProgress(Map<String, Object> args, Progress progress) {
        Object count = args == null ? null : args.get("count");
        if (!(count instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())
                || n.doubleValue() < 0 || n.doubleValue() > MAX_COUNT) {
            return CallToolResult.builder().addTextContent("count must be an integer from 0 to " + MAX_COUNT).isError(true).build();
        }
        int total = n.intValue();
        for (int i = 1; progress != null && i <= total; i++) {
            progress.send(i, total);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("count", total);
        result.put("sent", progress != null ? total : 0);
        result.put("server_type", serverType);
        return text(result);
    }

    /**
     * steps RPUSHes of the time in ms to bench:steps:<key>, interval_ms apart, each followed by its progress notification
     * (stdio, with a token). A sync tool learns of a cancellation only by an interrupt of its boundedElastic thread,
     * which Reactor sends when the call's Mono is cancelled; nothing here cancels it (README "Dimension tools").
     */
    private CallToolResult steppedWork(Map<String, Object> args, Progress progress) {
        Object key = args == null ? null : args.get("key");
        if (!(key instanceof String list) || list.isEmpty() || list.codePointCount(0, list.length()) > MAX_KEY) {
            return CallToolResult.builder().addTextContent("key must be a string of 1 to " + MAX_KEY + " characters").isError(true).build();
        }
        Object steps = args.get("steps"), interval = args.get("interval_ms");
        if (!isInteger(steps, 1, MAX_STEPS)) {
            return CallToolResult.builder().addTextContent("steps must be an integer from 1 to " + MAX_STEPS).isError(true).build();
        }
        if (!isInteger(interval, 0, MAX_INTERVAL_MS)) {
            return CallToolResult.builder().addTextContent("interval_ms must be an integer from 0 to " + MAX_INTERVAL_MS).isError(true).build();
        }
        int total = ((Number) steps).intValue();
        int done = 0;
        try {
            while (done < total && !Thread.currentThread().isInterrupted()) {
                redis.get().sync().rpush("bench:steps:" + list, Long.toString(System.currentTimeMillis()));
                done++;
                if (progress != null) {
                    progress.send(done, total);
                }
                if (done < total) {
                    Thread.sleep(((Number) interval).longValue());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("key", list);
        result.put("steps", done);
        result.put("server_type", serverType);
        return text(result);
    }

    private static boolean isInteger(Object value, int min, int max) {
        return value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                && n.doubleValue() >= min && n.doubleValue() <= max;
    }

    private CallToolResult text(Object value) {
        try {
            return CallToolResult.builder().addTextContent(json.writeValueAsString(value)).isError(false).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
