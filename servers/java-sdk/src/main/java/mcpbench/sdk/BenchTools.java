package mcpbench.sdk;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;

import static mcpbench.sdk.Clients.JSON;

/**
 * The workload's three tools, line for line java-spring's BenchTools without the annotations: each
 * tool is a method taking its arguments as a record, declared below with its JSON schema (what
 * Spring AI generates from @McpTool/@McpToolParam). A tool runs on the thread that calls it (the
 * request's Tomcat thread over HTTP); the independent backend calls of a step are forked onto the
 * sized pool of Clients and the last one runs on the calling thread.
 */
final class BenchTools {

	private static final String POPULAR = "bench:popular";

	private static final List<LineItem> DEFAULT_ITEMS = List.of(new LineItem(42, 2), new LineItem(1337, 1));

	private static final TypeReference<List<CartItem>> CART_ITEMS = new TypeReference<>() {
	};

	private final Clients clients;

	private final String serverType;

	BenchTools(Clients clients, String serverType) {
		this.clients = clients;
		this.serverType = serverType;
	}

	/**
	 * A tool: its MCP declaration and its call (the arguments bound to its record, the result's text). The
	 * call also gets the call's {@link Progress}, or null when the call carries no progress token.
	 */
	record Definition(McpSchema.Tool tool, BiFunction<Map<String, Object>, Progress, String> call) {

		/** A tool that sends no progress: the three tools and most dimension tools. */
		Definition(McpSchema.Tool tool, Function<Map<String, Object>, String> call) {
			this(tool, (args, progress) -> call.apply(args));
		}

	}

	/** Sends one progress notification for the call being answered, under its progress token (Mcp.progress). */
	@FunctionalInterface
	interface Progress {

		void send(int progress, int total);

	}

	List<Definition> definitions() {
		var readOnly = McpSchema.ToolAnnotations.builder().readOnlyHint(true).destructiveHint(false).build();
		return List.of(
				tool("search_products", "Search the catalog by category and price range, ranked against the popularity list.",
						readOnly, """
								{"type": "object", "properties": {
								  "category": {"type": "string", "description": "product category (default Electronics)"},
								  "min_price": {"type": "number", "description": "lowest price (default 50.0)"},
								  "max_price": {"type": "number", "description": "highest price, 0 = no upper bound (default 500.0)"},
								  "limit": {"type": "integer", "description": "how many products to return (default 10)"}}}""",
						SearchArgs.class, this::searchProducts),
				tool("get_user_cart", "A user's cart (its first product looked up in the catalog) and recent order history.",
						readOnly, """
								{"type": "object", "properties": {
								  "user_id": {"type": "string", "description": "user id such as user-00042 (the default)"}}}""",
						CartArgs.class, this::getUserCart),
				tool("checkout", "Price an order, count it against the rate limit and record it.", null, """
						{"type": "object", "properties": {
						  "user_id": {"type": "string", "description": "user id such as user-00042 (the default)"},
						  "items": {"type": "array", "description": "items to buy (default 42 x2, 1337 x1)",
						    "items": {"type": "object", "required": ["product_id", "quantity"], "properties": {
						      "product_id": {"type": "integer"}, "quantity": {"type": "integer"}}}}}}""",
						CheckoutArgs.class, this::checkout));
	}

	private static <A> Definition tool(String name, String description, McpSchema.ToolAnnotations annotations,
			String inputSchema, Class<A> arguments, Function<A, String> method) {
		@SuppressWarnings("unchecked")
		Map<String, Object> schema = JSON.readValue(inputSchema, Map.class);
		var tool = McpSchema.Tool.builder(name, schema).description(description).annotations(annotations).build();
		return new Definition(tool, args -> method.apply(JSON.convertValue(args, arguments)));
	}

	String searchProducts(SearchArgs args) {
		String cat = args.category() != null ? args.category() : "Electronics";
		double min = args.minPrice() != null ? args.minPrice() : 50.0;
		double max = args.maxPrice() != null ? args.maxPrice() : 500.0;
		int lim = args.limit() != null ? args.limit() : 10;

		var search = fork(() -> this.clients.get("/products/search?category=" + Clients.query(cat) + "&min_price=" + min
				+ "&max_price=" + max + "&limit=" + lim, SearchResponse.class));
		List<String> popular = this.clients.redis().zrevrange(POPULAR, 0, 9);
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

	String getUserCart(CartArgs args) {
		String userId = args.userId() != null ? args.userId() : "user-00042";
		Map<String, String> hash = this.clients.redis().hgetall("bench:cart:" + userId);
		String rawItems = hash.get("items");
		List<CartItem> items = rawItems != null ? JSON.readValue(rawItems, CART_ITEMS) : List.of();
		int productId = items.isEmpty() ? 1 : items.get(0).productId();

		// The workload fetches the product but its result has no field for it.
		var product = fork(() -> this.clients.get("/products/" + productId, JsonNode.class));
		List<String> history = this.clients.redis().lrange("bench:history:" + userId, 0, 4);
		product.join();

		List<JsonNode> recent = new ArrayList<>(history.size());
		for (String entry : history) {
			recent.add(JSON.readTree(entry));
		}
		String total = hash.get("total");
		var cart = new Cart(items, items.size(), total != null ? Double.parseDouble(total) : 0.0);
		return toJson(new CartResult(userId, cart, recent, this.serverType));
	}

	String checkout(CheckoutArgs args) {
		String userId = args.userId() != null ? args.userId() : "user-00042";
		List<LineItem> lines = args.items() != null ? args.items() : DEFAULT_ITEMS;
		if (lines.isEmpty()) {
			throw new IllegalArgumentException("items must not be empty");
		}
		String rateKey = "bench:ratelimit:user-%05d".formatted(userNumber(userId) % 100);
		String entry = toJson(new HistoryEntry(userId, lines, Instant.now().getEpochSecond()));
		String member = "product:" + lines.get(0).productId();

		var priced = fork(() -> this.clients.post("/cart/calculate", new CalculateRequest(userId, lines), Priced.class));
		var pushed = fork(() -> this.clients.redis().rpush("bench:history:" + userId, entry));
		var ranked = fork(() -> this.clients.redis().zincrby(POPULAR, 1, member));
		Long count = this.clients.redis().incr(rateKey);
		CompletableFuture.allOf(priced, pushed, ranked).join();

		Priced p = priced.join();
		return toJson(new CheckoutResult(p.orderId(), userId, p.total(), p.itemsCount(), count, "confirmed",
				this.serverType));
	}

	private <T> CompletableFuture<T> fork(Supplier<T> call) {
		return CompletableFuture.supplyAsync(call, this.clients.forks);
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

	record SearchArgs(String category, Double minPrice, Double maxPrice, Integer limit) {
	}

	record CartArgs(String userId) {
	}

	record CheckoutArgs(String userId, List<LineItem> items) {
	}

	record LineItem(int productId, int quantity) {
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
