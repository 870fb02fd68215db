package mcpbench.spring;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import com.fasterxml.jackson.annotation.JsonProperty;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;

import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpTool.McpAnnotations;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

import static mcpbench.spring.Clients.JSON;

/**
 * The workload's three tools. Each runs on the request thread (Spring AI executes sync tools
 * in place on servlet stacks); the independent backend calls of a step are forked onto
 * Boot's application task executor — a sized platform pool, or one virtual thread per task
 * when spring.threads.virtual.enabled=true — and the last one runs on the calling thread.
 */
@Component
public class BenchTools {

	private static final String POPULAR = "bench:popular";

	private static final List<LineItem> DEFAULT_ITEMS = List.of(new LineItem(42, 2), new LineItem(1337, 1));

	private static final TypeReference<List<CartItem>> CART_ITEMS = new TypeReference<>() {
	};

	private final StringRedisTemplate redis;

	private final RestClient api;

	private final Executor executor;

	private final String serverType;

	BenchTools(StringRedisTemplate redis, RestClient api,
			@Qualifier("applicationTaskExecutor") Executor executor,
			@Value("${mcpbench.server-type}") String serverType) {
		this.redis = redis;
		this.api = api;
		this.executor = executor;
		this.serverType = serverType;
	}

	@McpTool(name = "search_products", annotations = @McpAnnotations(readOnlyHint = true, destructiveHint = false),
			description = "Search the catalog by category and price range, ranked against the popularity list.")
	public String searchProducts(
			@McpToolParam(required = false, description = "product category (default Electronics)") String category,
			@McpToolParam(required = false, description = "lowest price (default 50.0)") Double min_price,
			@McpToolParam(required = false, description = "highest price, 0 = no upper bound (default 500.0)") Double max_price,
			@McpToolParam(required = false, description = "how many products to return (default 10)") Integer limit) {
		String cat = category != null ? category : "Electronics";
		double min = min_price != null ? min_price : 50.0;
		double max = max_price != null ? max_price : 500.0;
		int lim = limit != null ? limit : 10;

		var search = fork(() -> this.api.get()
			.uri("/products/search?category={c}&min_price={min}&max_price={max}&limit={l}", cat, min, max, lim)
			.retrieve()
			.body(SearchResponse.class));
		var popular = this.redis.opsForZSet().reverseRange(POPULAR, 0, 9);
		SearchResponse found = search.join();

		List<Integer> top = new ArrayList<>(10);
		for (String member : popular) {
			top.add(Integer.parseInt(member.substring(member.indexOf(':') + 1)));
		}
		List<RankedProduct> products = new ArrayList<>(found.products().size());
		for (ApiProduct p : found.products()) {
			products.add(new RankedProduct(p.id(), p.sku(), p.name(), p.price(), p.rating(), top.indexOf(p.id()) + 1));
		}
		return toJson(new SearchResult(found.category(), found.totalFound(), products, top, this.serverType));
	}

	@McpTool(name = "get_user_cart", annotations = @McpAnnotations(readOnlyHint = true, destructiveHint = false),
			description = "A user's cart (its first product looked up in the catalog) and recent order history.")
	public String getUserCart(
			@McpToolParam(required = false, description = "user id such as user-00042 (the default)") String user_id) {
		String userId = user_id != null ? user_id : "user-00042";
		Map<String, String> hash = this.redis.<String, String>opsForHash().entries("bench:cart:" + userId);
		String rawItems = hash.get("items");
		List<CartItem> items = rawItems != null ? JSON.readValue(rawItems, CART_ITEMS) : List.of();
		int productId = items.isEmpty() ? 1 : items.get(0).productId();

		// The workload fetches the product but its result has no field for it.
		var product = fork(() -> this.api.get().uri("/products/{id}", productId).retrieve().body(JsonNode.class));
		List<String> history = this.redis.opsForList().range("bench:history:" + userId, 0, 4);
		product.join();

		List<JsonNode> recent = new ArrayList<>(history.size());
		for (String entry : history) {
			recent.add(JSON.readTree(entry));
		}
		String total = hash.get("total");
		var cart = new Cart(items, items.size(), total != null ? Double.parseDouble(total) : 0.0);
		return toJson(new CartResult(userId, cart, recent, this.serverType));
	}

	@McpTool(name = "checkout", description = "Price an order, count it against the rate limit and record it.")
	public String checkout(
			@McpToolParam(required = false, description = "user id such as user-00042 (the default)") String user_id,
			@McpToolParam(required = false, description = "items to buy (default 42 x2, 1337 x1)") List<LineItem> items) {
		String userId = user_id != null ? user_id : "user-00042";
		List<LineItem> lines = items != null ? items : DEFAULT_ITEMS;
		if (lines.isEmpty()) {
			throw new IllegalArgumentException("items must not be empty");
		}
		String rateKey = "bench:ratelimit:user-%05d".formatted(userNumber(userId) % 100);
		String entry = toJson(new HistoryEntry(userId, lines, Instant.now().getEpochSecond()));
		String member = "product:" + lines.get(0).productId();

		var priced = fork(() -> this.api.post()
			.uri("/cart/calculate")
			.body(new CalculateRequest(userId, lines))
			.retrieve()
			.body(Priced.class));
		var pushed = fork(() -> this.redis.opsForList().rightPush("bench:history:" + userId, entry));
		var ranked = fork(() -> this.redis.opsForZSet().incrementScore(POPULAR, member, 1));
		Long count = this.redis.opsForValue().increment(rateKey);
		CompletableFuture.allOf(priced, pushed, ranked).join();

		Priced p = priced.join();
		return toJson(new CheckoutResult(p.orderId(), userId, p.total(), p.itemsCount(), count, "confirmed",
				this.serverType));
	}

	private <T> CompletableFuture<T> fork(Supplier<T> call) {
		return CompletableFuture.supplyAsync(call, this.executor);
	}

	private static String toJson(Object value) {
		return JSON.writeValueAsString(value);
	}

	/** The numeric part of "user-00042" (42), or 0. */
	private static int userNumber(String userId) {
		try {
			return Math.max(0, Integer.parseInt(userId.substring(userId.lastIndexOf('-') + 1)));
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	// Wire types; JSON names are the snake_case of the component names (Clients.JSON).

	/** A tool argument: Spring AI binds it with its own mapper, hence the explicit name. */
	public record LineItem(@JsonProperty(value = "product_id", required = true) int productId,
			@JsonProperty(required = true) int quantity) {
	}

	record ApiProduct(int id, String sku, String name, double price, double rating) {
	}

	record SearchResponse(String category, int totalFound, List<ApiProduct> products) {
	}

	record RankedProduct(int id, String sku, String name, double price, double rating, int popularityRank) {
	}

	record SearchResult(String category, int totalFound, List<RankedProduct> products,
			@JsonProperty("top10_popular_ids") List<Integer> top10PopularIds, String serverType) {
	}

	record CartItem(int productId, int qty) {
	}

	record Cart(List<CartItem> items, int itemCount, double estimatedTotal) {
	}

	record CartResult(String userId, Cart cart, List<JsonNode> recentHistory, String serverType) {
	}

	record CalculateRequest(String userId, List<LineItem> items) {
	}

	record Priced(String orderId, double total, int itemsCount) {
	}

	record HistoryEntry(String userId, List<LineItem> items, long ts) {
	}

	record CheckoutResult(String orderId, String userId, double total, int itemsCount, long rateLimitCount,
			String status, String serverType) {
	}

}
