package mcpbench.quarkus;

import java.util.Optional;

import io.quarkiverse.mcp.server.Progress;
import io.quarkiverse.mcp.server.ToolManager;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Issue 37 (tools/list at scale, reply size): EXTRA_TOOLS=N registers extra_00001…N and DIMENSION_TOOLS=1
 * registers echo_payload and stream_progress, through the extension's ToolManager with the contract's JSON schemas;
 * off unless set. SSE_REPLIES=1 changes nothing here: the extension answers a tools/call with JSON unless the tool
 * sends a notification, which turns that POST's reply into an SSE stream (lazy SSE init, its default).
 */
@Singleton
class DimensionTools {

    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    static final int MAX_SIZE = 16 * 1024 * 1024;
    static final int MAX_COUNT = 1000;

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

    @Inject
    ToolManager tools;

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
}
