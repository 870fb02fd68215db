package mcpbench.micronaut;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.json.JsonMapper;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The surface (docs/workload.md §7), under DIMENSION_TOOLS=1 only: the resource template product://{id}, the
 * resource bench://popular, the prompt cart_summary and its user_id completion, as MCP Java SDK specification beans,
 * which micronaut-mcp registers beside the @Tool methods and advertises (stateless over HTTP, a session over stdio).
 * The texts are the contract's (servers/common-java/mcp: SurfaceContract, which this server, on SDK 0.17 and
 * Jackson 2, does not compile: its copies are here, as its dimension tools' are).
 */
@Factory
@Requires(property = "dimension.tools", value = "1")
final class Surface {

    static final String POPULAR_URI = "bench://popular";
    static final String CART_SUMMARY = "cart_summary";
    static final String USER_ID = "user_id";
    static final String JSON_TYPE = "application/json";

    static final McpSchema.ResourceTemplate PRODUCT = McpSchema.ResourceTemplate.builder().uriTemplate("product://{id}")
            .name("product").description("A product of the catalog, read from the API service.").mimeType(JSON_TYPE).build();
    static final McpSchema.Resource POPULAR = McpSchema.Resource.builder().uri(POPULAR_URI)
            .name("popular").description("The ten most popular products, read from Redis.").mimeType(JSON_TYPE).build();
    static final McpSchema.Prompt PROMPT = new McpSchema.Prompt(CART_SUMMARY, "Summarises a user's cart, read from Redis.",
            List.of(new McpSchema.PromptArgument(USER_ID, "the user whose cart is summarised", true)));
    static final McpSchema.PromptReference PROMPT_REF = new McpSchema.PromptReference(CART_SUMMARY);

    private final BeanProvider<StatefulRedisConnection<String, String>> redis; // connected on first use, as BenchTools'
    private final HttpClient api;
    private final JsonMapper json;

    Surface(BeanProvider<StatefulRedisConnection<String, String>> redis, @Client(id = "api") HttpClient api, JsonMapper json) {
        this.redis = redis;
        this.api = api;
        this.json = json;
    }

    /** GET /products/<id>: the API's body as it is; a 404 fails the read. */
    McpSchema.ReadResourceResult product(McpSchema.ReadResourceRequest request) {
        String id = request.uri().substring("product://".length());
        if (id.isEmpty() || id.contains("/")) {
            throw McpError.RESOURCE_NOT_FOUND.apply(request.uri());
        }
        String product = api.toBlocking().retrieve(HttpRequest.GET("/products/" + id), String.class);
        return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(request.uri(), JSON_TYPE, product)));
    }

    /** ZREVRANGE bench:popular 0 9 as {"popular": [...]}. */
    McpSchema.ReadResourceResult popular(McpSchema.ReadResourceRequest request) {
        List<String> members = redis.get().sync().zrevrange("bench:popular", 0, 9);
        try {
            return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(POPULAR_URI, JSON_TYPE,
                    json.writeValueAsString(Map.of("popular", members)))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** HGETALL bench:cart:<user_id> as one user message; a user without a cart is an error. */
    McpSchema.GetPromptResult cartSummary(McpSchema.GetPromptRequest request) {
        if (request.arguments() == null || !(request.arguments().get(USER_ID) instanceof String user) || user.isEmpty()) {
            throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message("user_id is required").build();
        }
        Map<String, String> cart = redis.get().sync().hgetall("bench:cart:" + user);
        if (cart.isEmpty()) {
            throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message("no cart for " + user).build();
        }
        String text = "Summarise the cart of " + user + ": " + cart.get("items") + " (total " + cart.get("total") + ")";
        return new McpSchema.GetPromptResult(PROMPT.description(),
                List.of(new McpSchema.PromptMessage(McpSchema.Role.USER, new McpSchema.TextContent(text))));
    }

    /** ZRANGEBYLEX bench:users [prefix (prefix\x7f LIMIT 0 10: the users with a cart that start with the prefix. */
    McpSchema.CompleteResult complete(McpSchema.CompleteRequest request) {
        var argument = request.argument();
        List<String> values = List.of();
        if (argument != null && USER_ID.equals(argument.name())) {
            String prefix = argument.value() != null ? argument.value() : "";
            values = redis.get().sync().zrangebylex("bench:users",
                    Range.from(Range.Boundary.including(prefix), Range.Boundary.excluding(prefix + '\u007f')), Limit.create(0, 10));
        }
        return new McpSchema.CompleteResult(new McpSchema.CompleteResult.CompleteCompletion(values, null, null));
    }

    // HTTP: micronaut-mcp's stateless server.

    @Bean
    McpStatelessServerFeatures.SyncResourceTemplateSpecification statelessProduct() {
        return new McpStatelessServerFeatures.SyncResourceTemplateSpecification(PRODUCT, (context, request) -> product(request));
    }

    @Bean
    McpStatelessServerFeatures.SyncResourceSpecification statelessPopular() {
        return new McpStatelessServerFeatures.SyncResourceSpecification(POPULAR, (context, request) -> popular(request));
    }

    @Bean
    McpStatelessServerFeatures.SyncPromptSpecification statelessCartSummary() {
        return new McpStatelessServerFeatures.SyncPromptSpecification(PROMPT, (context, request) -> cartSummary(request));
    }

    @Bean
    McpStatelessServerFeatures.SyncCompletionSpecification statelessCompletion() {
        return new McpStatelessServerFeatures.SyncCompletionSpecification(PROMPT_REF, (context, request) -> complete(request));
    }

    // stdio: micronaut-mcp's session server.

    @Bean
    McpServerFeatures.SyncResourceTemplateSpecification sessionProduct() {
        return new McpServerFeatures.SyncResourceTemplateSpecification(PRODUCT, (exchange, request) -> product(request));
    }

    @Bean
    McpServerFeatures.SyncResourceSpecification sessionPopular() {
        return new McpServerFeatures.SyncResourceSpecification(POPULAR, (exchange, request) -> popular(request));
    }

    @Bean
    McpServerFeatures.SyncPromptSpecification sessionCartSummary() {
        return new McpServerFeatures.SyncPromptSpecification(PROMPT, (exchange, request) -> cartSummary(request));
    }

    @Bean
    McpServerFeatures.SyncCompletionSpecification sessionCompletion() {
        return new McpServerFeatures.SyncCompletionSpecification(PROMPT_REF, (exchange, request) -> complete(request));
    }
}
