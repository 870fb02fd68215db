package mcpbench.quarkus;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.quarkiverse.mcp.server.Cancellation;
import io.quarkiverse.mcp.server.Progress;
import io.quarkiverse.mcp.server.ToolManager;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.redis.client.RedisAPI;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Issue 37 (tools/list at scale, reply size, streamed progress, cancellation): EXTRA_TOOLS=N registers
 * extra_00001…N and DIMENSION_TOOLS=1 registers echo_payload, stream_progress and stepped_work, through the
 * extension's ToolManager with the contract's JSON schemas; off unless set. SSE_REPLIES=1 changes nothing here: the extension answers a tools/call with JSON unless the tool
 * sends a notification, which turns that POST's reply into an SSE stream (lazy SSE init, its default).
 */
@Singleton
class DimensionTools {

    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    static final int MAX_SIZE = 16 * 1024 * 1024;
    static final int MAX_COUNT = 1000;
    static final int MAX_KEY = 100;
    static final int MAX_STEPS = 1000;
    static final int MAX_INTERVAL_MS = 10_000;

    static final JsonObject EXTRA_SCHEMA = new JsonObject("""
            {"type": "object",
             "properties": {
               "query":   {"type": "string", "description": "free-text search query"},
               "limit":   {"type": "integer", "minimum": 1, "maximum": 100, "description": "how many records to return"},
               "sort":    {"type": "string", "enum": ["relevance", "price", "rating", "newest"], "description": "sort order"},
               "filters": {"type": "object", "description": "optional filters",
                           "properties": {"category": {"type": "string"}, "min_price": {"type": "number"},
                                          "in_stock": {"type": "boolean"}}}},
             "required": ["query"]}""");

    static final JsonObject ECHO_SCHEMA = new JsonObject("""
            {"type": "object",
             "properties": {
               "size": {"type": "integer", "minimum": 0, "maximum": 16777216},
               "data": {"type": "string", "default": ""}},
             "required": ["size"]}""");

    static final JsonObject PROGRESS_SCHEMA = new JsonObject("""
            {"type": "object",
             "properties": {
               "count": {"type": "integer", "minimum": 0, "maximum": 1000, "description": "how many progress notifications to send"}},
             "required": ["count"]}""");

    static final JsonObject STEPS_SCHEMA = new JsonObject("""
            {"type": "object",
             "properties": {
               "key": {"type": "string", "minLength": 1, "maxLength": 100, "description": "names the Redis list bench:steps:<key> the steps are appended to"},
               "steps": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "how many steps to do"},
               "interval_ms": {"type": "integer", "minimum": 0, "maximum": 10000, "description": "milliseconds between steps"}},
             "required": ["key", "steps", "interval_ms"]}""");

    @Inject
    ToolManager tools;

    @Inject
    RedisAPI redis;

    @ConfigProperty(name = "EXTRA_TOOLS", defaultValue = "0")
    int extraTools;

    @ConfigProperty(name = "DIMENSION_TOOLS")
    Optional<String> dimensionTools;

    @ConfigProperty(name = "SERVER_TYPE", defaultValue = "quarkus")
    String serverType;

    void register(@Observes StartupEvent event) {
        for (int i = 1; i <= extraTools; i++) {
            String name = String.format("extra_%05d", i);
            tools.newTool(name)
                    .setDescription("Extra tool " + i + ": a catalog lookup registered for the tools/list scale test.")
                    .setInputSchema(EXTRA_SCHEMA)
                    .setAsyncHandler(args -> Uni.createFrom().item(ToolResponse.success(new JsonObject()
                            .put("tool", name).put("query", args.args().get("query")).put("server_type", serverType)
                            .encode())))
                    .register();
        }
        if (dimensionTools.orElse("").equals("1")) {
            tools.newTool("echo_payload")
                    .setDescription("Returns size bytes of deterministic text and counts the characters of data.")
                    .setInputSchema(ECHO_SCHEMA)
                    .setAsyncHandler(args -> Uni.createFrom().item(echo(args.args().get("size"), args.args().get("data"), serverType)))
                    .register();
            tools.newTool("stream_progress")
                    .setDescription("Sends count progress notifications, then answers.")
                    .setInputSchema(PROGRESS_SCHEMA)
                    .setAsyncHandler(args -> streamProgress(args.args().get("count"), args.progress(), serverType))
                    .register();
            tools.newTool("stepped_work")
                    .setDescription("Appends steps timestamps to a Redis list, interval_ms apart, with progress; stops when cancelled.")
                    .setInputSchema(STEPS_SCHEMA)
                    .setAsyncHandler(args -> steppedWork(redis, args.args(), args.progress(), args.cancellation(), serverType))
                    .register();
        }
    }

    static ToolResponse echo(Object size, Object data, String serverType) {
        if (!(size instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())
                || n.doubleValue() < 0 || n.doubleValue() > MAX_SIZE) {
            return ToolResponse.error("size must be an integer from 0 to " + MAX_SIZE);
        }
        int length = n.intValue();
        String text = data instanceof String s ? s : "";
        String payload = ALPHABET.repeat(length / ALPHABET.length() + 1).substring(0, length);
        return ToolResponse.success(new JsonObject()
                .put("size", length)
                .put("received", text.codePointCount(0, text.length()))
                .put("payload", payload)
                .put("server_type", serverType)
                .encode());
    }

    /**
     * count notifications/progress through the extension's Progress API when the call carries a progress token, each
     * one's send() completed before the next is built; the first one turns the call's reply into an SSE stream.
     */
    static Uni<ToolResponse> streamProgress(Object count, Progress progress, String serverType) {
        if (!(count instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())
                || n.doubleValue() < 0 || n.doubleValue() > MAX_COUNT) {
            return Uni.createFrom().item(ToolResponse.error("count must be an integer from 0 to " + MAX_COUNT));
        }
        int total = n.intValue();
        int sent = progress.token().isPresent() ? total : 0;
        return Multi.createFrom().range(1, sent + 1)
                .onItem().transformToUniAndConcatenate(i -> progress.notificationBuilder()
                        .setProgress(i).setTotal(total).build().send())
                .onItem().ignoreAsUni()
                .replaceWith(() -> ToolResponse.success(new JsonObject()
                        .put("count", total).put("sent", sent).put("server_type", serverType).encode()));
    }

    /**
     * steps RPUSHes of the time in ms, one after the other, each followed by its progress notification (with a token)
     * and, but for the last, a wait of interval_ms. Before each step the extension's Cancellation is checked:
     * skipProcessingIfCancelled() fails the call with OperationCancellationException once notifications/cancelled
     * came for it, and the extension then sends no reply.
     */
    static Uni<ToolResponse> steppedWork(RedisAPI redis, Map<String, Object> args, Progress progress,
                                         Cancellation cancellation, String serverType) {
        Object key = args.get("key"), steps = args.get("steps"), interval = args.get("interval_ms");
        if (!(key instanceof String list) || list.isEmpty() || list.codePointCount(0, list.length()) > MAX_KEY) {
            return Uni.createFrom().item(ToolResponse.error("key must be a string of 1 to " + MAX_KEY + " characters"));
        }
        if (!isInteger(steps, 1, MAX_STEPS)) {
            return Uni.createFrom().item(ToolResponse.error("steps must be an integer from 1 to " + MAX_STEPS));
        }
        if (!isInteger(interval, 0, MAX_INTERVAL_MS)) {
            return Uni.createFrom().item(ToolResponse.error("interval_ms must be an integer from 0 to " + MAX_INTERVAL_MS));
        }
        int total = ((Number) steps).intValue();
        Duration wait = Duration.ofMillis(((Number) interval).longValue());
        return Multi.createFrom().range(1, total + 1)
                .onItem().transformToUniAndConcatenate(i -> Uni.createFrom().voidItem()
                        .invoke(cancellation::skipProcessingIfCancelled)
                        .chain(() -> redis.rpush(List.of("bench:steps:" + list, Long.toString(System.currentTimeMillis()))))
                        .chain(() -> progress.token().isPresent()
                                ? progress.notificationBuilder().setProgress(i).setTotal(total).build().send()
                                : Uni.createFrom().voidItem())
                        .chain(() -> i < total && !wait.isZero()
                                ? Uni.createFrom().voidItem().onItem().delayIt().by(wait)
                                : Uni.createFrom().voidItem()))
                .onItem().ignoreAsUni()
                .replaceWith(() -> ToolResponse.success(new JsonObject()
                        .put("key", list).put("steps", total).put("server_type", serverType).encode()));
    }

    private static boolean isInteger(Object value, int min, int max) {
        return value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                && n.doubleValue() >= min && n.doubleValue() <= max;
    }
}
