package mcpbench.quarkus;

import java.util.ArrayList;
import java.util.List;

import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolCallException;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.ext.web.client.HttpResponse;
import io.vertx.mutiny.redis.client.RedisAPI;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The three benchmark tools. Each returns a Uni, so the extension runs it on the Vert.x event loop
 * and no thread waits for Redis or the API service; independent I/O is started together with
 * Uni.combine().all(), which subscribes to every branch at once.
 */
@Singleton
public class BenchTools {

    /**
     * Snake-case components: the JSON-schema generator names properties after them. Registered for
     * reflection because Jackson builds it reflectively, which a native image must know about.
     */
    @RegisterForReflection
    public record CartItem(int product_id, int quantity) {
    }

    private static final List<CartItem> DEFAULT_ITEMS = List.of(new CartItem(42, 2), new CartItem(1337, 1));

    @Inject
    RedisAPI redis;

    @Inject
    Backends.Api api;

    @ConfigProperty(name = "SERVER_TYPE", defaultValue = "quarkus")
    String serverType;

    @Tool(name = "search_products", description = "Search products by category and price range, ranked against the global popularity list.")
    Uni<String> searchProducts(
            @ToolArg(description = "Product category", required = false, defaultValue = "Electronics") String category,
            @ToolArg(name = "min_price", description = "Lowest price", required = false, defaultValue = "50.0") double minPrice,
            @ToolArg(name = "max_price", description = "Highest price", required = false, defaultValue = "500.0") double maxPrice,
            @ToolArg(description = "Maximum number of products", required = false, defaultValue = "10") int limit) {
        Uni<JsonObject> search = api.client().get(api.port(), api.host(), "/products/search")
                .addQueryParam("category", category)
                .addQueryParam("min_price", Double.toString(minPrice))
                .addQueryParam("max_price", Double.toString(maxPrice))
                .addQueryParam("limit", Integer.toString(limit))
                .send()
                .map(BenchTools::jsonBody);
        Uni<Response> popular = redis.zrevrange(List.of("bench:popular", "0", "9"));

        return Uni.combine().all().unis(search, popular).asTuple().map(t -> {
            JsonObject found = t.getItem1();
            List<Integer> top10 = new ArrayList<>(10);
            for (Response member : t.getItem2()) {
                top10.add(Integer.parseInt(member.toString().substring("product:".length())));
            }
            JsonArray products = new JsonArray();
            for (Object o : found.getJsonArray("products", new JsonArray())) {
                JsonObject p = (JsonObject) o;
                int id = p.getInteger("id");
                products.add(new JsonObject()
                        .put("id", id)
                        .put("sku", p.getString("sku"))
                        .put("name", p.getString("name"))
                        .put("price", p.getDouble("price"))
                        .put("rating", p.getDouble("rating"))
                        .put("popularity_rank", top10.indexOf(id) + 1));
            }
            return new JsonObject()
                    .put("category", found.getString("category"))
                    .put("total_found", found.getInteger("total_found"))
                    .put("products", products)
                    .put("top10_popular_ids", new JsonArray(top10))
                    .put("server_type", serverType)
                    .encode();
        }).onFailure().transform(BenchTools::toolError);
    }

    @Tool(name = "get_user_cart", description = "A user's cart and their five most recent orders.")
    Uni<String> getUserCart(
            @ToolArg(name = "user_id", description = "User id, e.g. user-00042", required = false, defaultValue = "user-00042") String userId) {
        return redis.hgetall("bench:cart:" + userId).flatMap(cart -> {
            JsonArray items = new JsonArray();
            double total = 0;
            for (String field : cart.getKeys()) {
                if (field.equals("items")) {
                    items = new JsonArray(cart.get(field).toString());
                } else if (field.equals("total")) {
                    total = cart.get(field).toDouble();
                }
            }
            int firstProduct = items.isEmpty() ? 1 : items.getJsonObject(0).getInteger("product_id");
            Uni<JsonObject> product = api.client().get(api.port(), api.host(), "/products/" + firstProduct)
                    .send()
                    .map(BenchTools::jsonBody);
            Uni<Response> history = redis.lrange("bench:history:" + userId, "0", "4");

            JsonObject cartJson = new JsonObject()
                    .put("items", items)
                    .put("item_count", items.size())
                    .put("estimated_total", total);
            return Uni.combine().all().unis(product, history).asTuple().map(t -> {
                JsonArray recent = new JsonArray();
                for (Response entry : t.getItem2()) {
                    recent.add(new JsonObject(entry.toString()));
                }
                return new JsonObject()
                        .put("user_id", userId)
                        .put("cart", cartJson)
                        .put("recent_history", recent)
                        .put("server_type", serverType)
                        .encode();
            });
        }).onFailure().transform(BenchTools::toolError);
    }

    @Tool(name = "checkout", description = "Price a cart through the API service, count the call against the user's rate limit and record the order.")
    Uni<String> checkout(
            @ToolArg(name = "user_id", description = "User id, e.g. user-00042", required = false, defaultValue = "user-00042") String userId,
            @ToolArg(description = "Items to buy: [{product_id, quantity}]", required = false) List<CartItem> items) {
        List<CartItem> order = items == null ? DEFAULT_ITEMS : items;
        if (order.isEmpty()) { // docs/workload.md §5: a tool error, before any I/O
            return Uni.createFrom().failure(new ToolCallException("items must not be empty"));
        }
        JsonArray itemsJson = new JsonArray();
        for (CartItem item : order) {
            itemsJson.add(new JsonObject().put("product_id", item.product_id()).put("quantity", item.quantity()));
        }

        Uni<JsonObject> priced = api.client().post(api.port(), api.host(), "/cart/calculate")
                .sendJsonObject(new JsonObject().put("user_id", userId).put("items", itemsJson))
                .map(BenchTools::jsonBody);
        Uni<Response> rateLimit = redis.incr("bench:ratelimit:" + rateLimitBucket(userId));
        String entry = new JsonObject()
                .put("user_id", userId)
                .put("items", itemsJson)
                .put("ts", System.currentTimeMillis() / 1000)
                .encode();
        Uni<Response> recorded = redis.rpush(List.of("bench:history:" + userId, entry));
        Uni<Response> popularity = redis.zincrby("bench:popular", "1", "product:" + order.get(0).product_id());

        return Uni.combine().all().unis(priced, rateLimit, recorded, popularity).asTuple().map(t -> {
            JsonObject calc = t.getItem1();
            return new JsonObject()
                    .put("order_id", calc.getString("order_id"))
                    .put("user_id", userId)
                    .put("total", calc.getDouble("total"))
                    .put("items_count", calc.getInteger("items_count"))
                    .put("rate_limit_count", t.getItem2().toLong())
                    .put("status", "confirmed")
                    .put("server_type", serverType)
                    .encode();
        }).onFailure().transform(BenchTools::toolError);
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

    /** A failed backend call becomes a tool error the client can see, not an opaque internal error. */
    private static Throwable toolError(Throwable e) {
        return e instanceof ToolCallException ? e : new ToolCallException(e.getClass().getSimpleName() + ": " + e.getMessage());
    }

    private static JsonObject jsonBody(HttpResponse<Buffer> response) {
        if (response.statusCode() != 200) {
            throw new ToolCallException("api-service answered HTTP " + response.statusCode());
        }
        return response.bodyAsJsonObject();
    }
}
