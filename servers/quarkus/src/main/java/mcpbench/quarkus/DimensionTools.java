package mcpbench.quarkus;

import java.util.Optional;

import io.quarkiverse.mcp.server.ToolManager;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Issue 37 (tools/list at scale, reply size): EXTRA_TOOLS=N registers extra_00001…N and DIMENSION_TOOLS=1
 * registers echo_payload, through the extension's ToolManager with the contract's JSON schemas; off unless set.
 */
@Singleton
class DimensionTools {

    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    static final int MAX_SIZE = 16 * 1024 * 1024;

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
}
