package mcpbench.webflux;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;
import reactor.core.publisher.Mono;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;

import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpTool.McpAnnotations;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;

import static mcpbench.webflux.Clients.JSON;

/**
 * The workload's three tools, non-blocking end to end: each returns a Mono assembled from
 * Lettuce's reactive commands and the WebClient, and the independent calls of a step are
 * subscribed together with Mono.zip. Nothing blocks, so everything runs on the Netty
 * event loops (Reactor Netty's for HTTP, Lettuce's for Redis).
 */
@Component
public class BenchTools {

	private static final String POPULAR = "bench:popular";

	private static final Range<Long> TOP_10 = Range.closed(0L, 9L);

	private static final List<LineItem> DEFAULT_ITEMS = List.of(new LineItem(42, 2), new LineItem(1337, 1));

	private static final TypeReference<List<CartItem>> CART_ITEMS = new TypeReference<>() {
	};

	private final ReactiveStringRedisTemplate redis;

	private final WebClient api;

	private final String serverType;

	BenchTools(ReactiveStringRedisTemplate redis, WebClient api, @Value("${mcpbench.server-type}") String serverType) {
		this.redis = redis;
		this.api = api;
		this.serverType = serverType;
	}

	@McpTool(name = "search_products", annotations = @McpAnnotations(readOnlyHint = true, destructiveHint = false),
			description = "Search the catalog by category and price range, ranked against the popularity list.")
	public Mono<String> searchProducts(
			@McpToolParam(required = false, description = "product category (default Electronics)") String category,
			@McpToolParam(required = false, description = "lowest price (default 50.0)") Double min_price,
			@McpToolParam(required = false, description = "highest price, 0 = no upper bound (default 500.0)") Double max_price,
			@McpToolParam(required = false, description = "how many products to return (default 10)") Integer limit) {
		String cat = category != null ? category : "Electronics";
		double min = min_price != null ? min_price : 50.0;
		double max = max_price != null ? max_price : 500.0;
		int lim = limit != null ? limit : 10;

		Mono<SearchResponse> search = this.api.get()
			.uri("/products/search?category={c}&min_price={min}&max_price={max}&limit={l}", cat, min, max, lim)
			.retrieve()
			.bodyToMono(SearchResponse.class);
		Mono<List<String>> popular = this.redis.opsForZSet().reverseRange(POPULAR, TOP_10).collectList();

		return Mono.zip(search, popular).map(both -> {
			SearchResponse found = both.getT1();
			List<Integer> top = new ArrayList<>(10);
			for (String member : both.getT2()) {
				top.add(Integer.parseInt(member.substring(member.indexOf(':') + 1)));
			}
			List<RankedProduct> products = new ArrayList<>(found.products().size());
			for (ApiProduct p : found.products()) {
				products.add(new RankedProduct(p.id(), p.sku(), p.name(), p.price(), p.rating(), top.indexOf(p.id()) + 1));
			}
			return toJson(new SearchResult(found.category(), found.totalFound(), products, top, this.serverType));
		});
	}

	@McpTool(name = "get_user_cart", annotations = @McpAnnotations(readOnlyHint = true, destructiveHint = false),
			description = "A user's cart (its first product looked up in the catalog) and recent order history.")
	public Mono<String> getUserCart(
			@McpToolParam(required = false, description = "user id such as user-00042 (the default)") String user_id) {
		String userId = user_id != null ? user_id : "user-00042";
		return this.redis.<String, String>opsForHash()
			.entries("bench:cart:" + userId)
			.collectMap(Map.Entry::getKey, Map.Entry::getValue)
			.flatMap(hash -> {
				String rawItems = hash.get("items");
				List<CartItem> items = rawItems != null ? JSON.readValue(rawItems, CART_ITEMS) : List.of();
				int productId = items.isEmpty() ? 1 : items.get(0).productId();
				String total = hash.get("total");
				var cart = new Cart(items, items.size(), total != null ? Double.parseDouble(total) : 0.0);

				// The workload fetches the product but its result has no field for it.
				Mono<JsonNode> product = this.api.get().uri("/products/{id}", productId).retrieve().bodyToMono(JsonNode.class);
				Mono<List<String>> history = this.redis.opsForList().range("bench:history:" + userId, 0, 4).collectList();

				return Mono.zip(product, history).map(both -> {
					List<JsonNode> recent = new ArrayList<>(both.getT2().size());
					for (String entry : both.getT2()) {
						recent.add(JSON.readTree(entry));
					}
					return toJson(new CartResult(userId, cart, recent, this.serverType));
				});
			});
	}

	@McpTool(name = "checkout", description = "Price an order, count it against the rate limit and record it.")
	public Mono<String> checkout(
			@McpToolParam(required = false, description = "user id such as user-00042 (the default)") String user_id,
			@McpToolParam(required = false, description = "items to buy (default 42 x2, 1337 x1)") List<LineItem> items) {
		String userId = user_id != null ? user_id : "user-00042";
		List<LineItem> lines = items != null ? items : DEFAULT_ITEMS;
		if (lines.isEmpty()) {
			return Mono.error(new IllegalArgumentException("items must not be empty"));
		}
		String rateKey = "bench:ratelimit:user-%05d".formatted(userNumber(userId) % 100);
		String entry = toJson(new HistoryEntry(userId, lines, Instant.now().getEpochSecond()));

		Mono<Priced> priced = this.api.post()
			.uri("/cart/calculate")
			.bodyValue(new CalculateRequest(userId, lines))
			.retrieve()
			.bodyToMono(Priced.class);
		Mono<Long> count = this.redis.opsForValue().increment(rateKey);
		Mono<Long> pushed = this.redis.opsForList().rightPush("bench:history:" + userId, entry);
		Mono<Double> ranked = this.redis.opsForZSet().incrementScore(POPULAR, "product:" + lines.get(0).productId(), 1);

		return Mono.zip(priced, count, pushed, ranked).map(all -> {
			Priced p = all.getT1();
			return toJson(new CheckoutResult(p.orderId(), userId, p.total(), p.itemsCount(), all.getT2(), "confirmed",
					this.serverType));
		});
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

	/** A tool argument: Spring AI binds it with its own mapper, hence the explicit names. */
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
