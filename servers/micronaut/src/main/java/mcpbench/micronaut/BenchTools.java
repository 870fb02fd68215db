package mcpbench.micronaut;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.type.Argument;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.http.uri.UriBuilder;
import io.micronaut.json.JsonMapper;
import io.micronaut.mcp.annotations.Tool;
import io.micronaut.serde.annotation.Serdeable;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import jakarta.inject.Singleton;
import reactor.core.publisher.Mono;

/**
 * The three benchmark tools. micronaut-mcp calls them on a Reactor boundedElastic thread and expects a
 * value back, so each tool starts all of its independent I/O at once (Lettuce futures and the non-blocking
 * HTTP client, both on Netty event loops) and waits only for the combined result.
 */
@Singleton
public class BenchTools {

    // Shapes of the API service's replies (unknown fields are ignored).
    @Serdeable
    record Product(int id, String sku, String name, double price, double rating) {
    }

    @Serdeable
    record SearchReply(String category, int total_found, List<Product> products) {
    }

    @Serdeable
    record CartReply(String order_id, double total, int items_count) {
    }

    @Serdeable
    record CalculateRequest(String user_id, List<Args.CartItem> items) {
    }

    // Tool results.
    @Serdeable
    record RankedProduct(int id, String sku, String name, double price, double rating, int popularity_rank) {
    }

    @Serdeable
    record SearchResult(String category, int total_found, List<RankedProduct> products,
                        List<Integer> top10_popular_ids, String server_type) {
    }

    @Serdeable
    record Cart(List<Map<String, Object>> items, int item_count, double estimated_total) {
    }

    @Serdeable
    record CartResult(String user_id, Cart cart, List<Map<String, Object>> recent_history, String server_type) {
    }

    @Serdeable
    record CheckoutResult(String order_id, String user_id, double total, int items_count, long rate_limit_count,
                          String status, String server_type) {
    }

    @Serdeable
    record HistoryEntry(String user_id, List<Args.CartItem> items, long ts) {
    }

    private static final Argument<Map<String, Object>> JSON_OBJECT = Argument.mapOf(String.class, Object.class);
    private static final Argument<List<Map<String, Object>>> JSON_OBJECTS = Argument.listOf(JSON_OBJECT);

    private final RedisAsyncCommands<String, String> redis;
    private final HttpClient api;
    private final JsonMapper json;
    private final String serverType;

    BenchTools(StatefulRedisConnection<String, String> redis, @Client(id = "api") HttpClient api, JsonMapper json,
               @Value("${SERVER_TYPE:micronaut}") String serverType) {
        // One multiplexed Lettuce connection: commands from all threads are pipelined over it.
        this.redis = redis.async();
        this.api = api;
        this.json = json;
        this.serverType = serverType;
    }

    @Tool(name = "search_products", description = "Search products by category and price range, ranked against the global popularity list.")
    public CallToolResult searchProducts(@Nullable Args.SearchProductsArgs args, CallToolRequest request) {
        if (args == null) {
            return invalidArguments(request);
        }
        return run(() -> {
            var uri = UriBuilder.of("/products/search")
                    .queryParam("category", args.category())
                    .queryParam("min_price", args.min_price())
                    .queryParam("max_price", args.max_price())
                    .queryParam("limit", args.limit())
                    .build();
            CompletableFuture<SearchReply> search = Mono.from(api.retrieve(HttpRequest.GET(uri), SearchReply.class)).toFuture();
            CompletableFuture<List<String>> popular = redis.zrevrange("bench:popular", 0, 9).toCompletableFuture();

            SearchReply found = search.join();
            List<Integer> top10 = new ArrayList<>(10);
            for (String member : popular.join()) {
                top10.add(Integer.parseInt(member.substring("product:".length())));
            }
            List<RankedProduct> products = new ArrayList<>(found.products().size());
            for (Product p : found.products()) {
                products.add(new RankedProduct(p.id(), p.sku(), p.name(), p.price(), p.rating(), top10.indexOf(p.id()) + 1));
            }
            return new SearchResult(found.category(), found.total_found(), products, top10, serverType);
        });
    }

    @Tool(name = "get_user_cart", description = "A user's cart and their five most recent orders.")
    public CallToolResult getUserCart(@Nullable Args.GetUserCartArgs args, CallToolRequest request) {
        if (args == null) {
            return invalidArguments(request);
        }
        String userId = args.user_id();
        return run(() -> {
            Map<String, String> cart = redis.hgetall("bench:cart:" + userId).toCompletableFuture().join();
            String itemsJson = cart.get("items");
            List<Map<String, Object>> items = itemsJson == null ? List.of() : json.readValue(itemsJson, JSON_OBJECTS);
            int firstProduct = items.isEmpty() ? 1 : ((Number) items.get(0).get("product_id")).intValue();

            CompletableFuture<byte[]> product = Mono.from(api.retrieve(HttpRequest.GET("/products/" + firstProduct), byte[].class)).toFuture();
            CompletableFuture<List<String>> history = redis.lrange("bench:history:" + userId, 0, 4).toCompletableFuture();

            product.join();
            List<Map<String, Object>> recent = new ArrayList<>(5);
            for (String entry : history.join()) {
                recent.add(json.readValue(entry, JSON_OBJECT));
            }
            String total = cart.get("total");
            return new CartResult(userId, new Cart(items, items.size(), total == null ? 0 : Double.parseDouble(total)),
                    recent, serverType);
        });
    }

    @Tool(name = "checkout", description = "Price a cart through the API service, count the call against the user's rate limit and record the order.")
    public CallToolResult checkout(@Nullable Args.CheckoutArgs args, CallToolRequest request) {
        if (args == null) {
            return invalidArguments(request);
        }
        if (args.items().isEmpty()) { // docs/workload.md §5: a tool error, before any I/O
            return CallToolResult.builder().addTextContent("items must not be empty").isError(true).build();
        }
        return run(() -> {
            String userId = args.user_id();
            CompletableFuture<CartReply> priced = Mono.from(api.retrieve(
                    HttpRequest.POST("/cart/calculate", new CalculateRequest(userId, args.items())), CartReply.class)).toFuture();
            CompletableFuture<Long> rateLimit = redis.incr("bench:ratelimit:" + rateLimitBucket(userId)).toCompletableFuture();
            String entry = json.writeValueAsString(new HistoryEntry(userId, args.items(), System.currentTimeMillis() / 1000));
            CompletableFuture<Long> recorded = redis.rpush("bench:history:" + userId, entry).toCompletableFuture();
            CompletableFuture<Double> popularity =
                    redis.zincrby("bench:popular", 1, "product:" + args.items().get(0).product_id()).toCompletableFuture();

            CompletableFuture.allOf(priced, rateLimit, recorded, popularity).join();
            CartReply calc = priced.join();
            return new CheckoutResult(calc.order_id(), userId, calc.total(), calc.items_count(), rateLimit.join(),
                    "confirmed", serverType);
        });
    }

    /** One of 100 rate-limit counters: the integer after the user id's last '-' (0 if none), mod 100. */
    static String rateLimitBucket(String userId) {
        int n;
        try {
            n = Math.max(0, Integer.parseInt(userId.substring(userId.lastIndexOf('-') + 1)));
        } catch (NumberFormatException e) {
            n = 0;
        }
        return String.format("user-%05d", n % 100);
    }

    @FunctionalInterface
    private interface Body {
        Object call() throws IOException;
    }

    /** Serialises the tool's result; a failed backend call becomes a tool error the client can see. */
    private CallToolResult run(Body body) {
        try {
            return CallToolResult.builder().addTextContent(json.writeValueAsString(body.call())).isError(false).build();
        } catch (CompletionException e) {
            return failure(e.getCause() == null ? e : e.getCause());
        } catch (IOException | RuntimeException e) {
            return failure(e);
        }
    }

    /**
     * micronaut-mcp binds a nullable argument it cannot convert (e.g. "limit": "ten") to null; a
     * non-nullable one would fail with a bare "argument not specified". Answer with a tool error instead.
     */
    private static CallToolResult invalidArguments(CallToolRequest request) {
        return CallToolResult.builder()
                .addTextContent("Invalid arguments for " + request.name() + ": they do not match the tool's input schema")
                .isError(true)
                .build();
    }

    private static CallToolResult failure(Throwable e) {
        String message = e instanceof HttpClientResponseException h
                ? "api-service answered HTTP " + h.getStatus().getCode()
                : e.getClass().getSimpleName() + ": " + e.getMessage();
        return CallToolResult.builder().addTextContent(message).isError(true).build();
    }
}
