package mcpbench.quarkus;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.quarkiverse.mcp.server.CompletionResponse;
import io.quarkiverse.mcp.server.JsonRpcErrorCodes;
import io.quarkiverse.mcp.server.McpException;
import io.quarkiverse.mcp.server.PromptCompletionManager;
import io.quarkiverse.mcp.server.PromptManager;
import io.quarkiverse.mcp.server.PromptMessage;
import io.quarkiverse.mcp.server.PromptResponse;
import io.quarkiverse.mcp.server.ResourceManager;
import io.quarkiverse.mcp.server.ResourceResponse;
import io.quarkiverse.mcp.server.ResourceTemplateManager;
import io.quarkiverse.mcp.server.TextResourceContents;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.redis.client.RedisAPI;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The surface (docs/workload.md §7) under DIMENSION_TOOLS=1, through the extension's programmatic managers (the
 * runtime counterparts of @ResourceTemplate, @Resource, @Prompt and @CompletePrompt, which would be registered
 * unconditionally): the resource template product://{id}, the resource bench://popular, the prompt cart_summary and
 * the completion of its user_id. Unset, nothing is registered, so initialize advertises no resources, prompts or
 * completions (the extension lists a capability only when its manager holds something).
 */
@Singleton
class Surface {

    static final String JSON = "application/json";

    @Inject
    ResourceTemplateManager templates;

    @Inject
    ResourceManager resources;

    @Inject
    PromptManager prompts;

    @Inject
    PromptCompletionManager completions;

    @Inject
    RedisAPI redis;

    @Inject
    Backends.Api api;

    @ConfigProperty(name = "DIMENSION_TOOLS")
    Optional<String> dimensionTools;

    void register(@Observes StartupEvent event) {
        if (!dimensionTools.orElse("").equals("1")) {
            return;
        }
        templates.newResourceTemplate("product")
                .setUriTemplate("product://{id}")
                .setMimeType(JSON)
                .setDescription("A product of the catalog, read from the API service.")
                .setAsyncHandler(args -> product(args.args().get("id"), args.requestUri().value()))
                .register();
        resources.newResource("popular")
                .setUri("bench://popular")
                .setMimeType(JSON)
                .setDescription("The ten most popular products, read from Redis.")
                .setAsyncHandler(args -> redis.zrevrange(List.of("bench:popular", "0", "9"))
                        .map(top -> text(args.requestUri().value(), new JsonObject().put("popular", new JsonArray(strings(top))).encode())))
                .register();
        prompts.newPrompt("cart_summary")
                .setDescription("Summarises a user's cart, read from Redis.")
                .addArgument("user_id", "the user whose cart is summarised", true)
                .setAsyncHandler(args -> cartSummary(args.args().get("user_id")))
                .register();
        // ZRANGEBYLEX [prefix (prefix\x7f: the members of bench:users that start with the prefix, in byte order.
        completions.newCompletion("cart_summary")
                .setArgumentName("user_id")
                .setAsyncHandler(args -> redis.zrangebylex(List.of("bench:users", "[" + args.argumentValue(),
                                "(" + args.argumentValue() + "\u007f", "LIMIT", "0", "10"))
                        .map(users -> CompletionResponse.create(strings(users))))
                .register();
    }

    /** GET /products/{id}: the API's body as the content's text; its 404 is the extension's resource-not-found error. */
    private Uni<ResourceResponse> product(String id, String uri) {
        return api.client().get(api.port(), api.host(), "/products/" + id).send().map(response -> {
            if (response.statusCode() == 404) {
                throw new McpException("Resource not found: " + uri, JsonRpcErrorCodes.RESOURCE_NOT_FOUND);
            } else if (response.statusCode() != 200) {
                throw new McpException("api-service answered HTTP " + response.statusCode(), JsonRpcErrorCodes.INTERNAL_ERROR);
            }
            return text(uri, response.bodyAsString());
        });
    }

    /** HGETALL bench:cart:<user>; a user with no cart is an invalid-params error. */
    private Uni<PromptResponse> cartSummary(String user) {
        return redis.hgetall("bench:cart:" + user).map(cart -> {
            if (cart == null || cart.size() == 0) {
                throw new McpException("no cart for " + user, JsonRpcErrorCodes.INVALID_PARAMS);
            }
            return PromptResponse.withMessages(PromptMessage.withUserRole(
                    "Summarise the cart of " + user + ": " + cart.get("items") + " (total " + cart.get("total") + ")"));
        });
    }

    private static ResourceResponse text(String uri, String json) {
        return new ResourceResponse(new TextResourceContents(uri, json, JSON));
    }

    private static List<String> strings(Response members) {
        List<String> list = new ArrayList<>(members.size());
        for (Response member : members) {
            list.add(member.toString());
        }
        return list;
    }
}
