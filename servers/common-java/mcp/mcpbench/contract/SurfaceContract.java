package mcpbench.contract;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The surface as the contract fixes it for the JVM servers on the MCP Java SDK (docs/workload.md §7): the resource
 * template product://{id}, the fixed resource bench://popular, the prompt cart_summary and the completion of its
 * user_id, registered under DIMENSION_TOOLS=1 only. Their declarations, the Redis keys and ranges they read and
 * their results are here; each server registers them with its SDK (or framework) and does the I/O with its own
 * clients.
 */
public final class SurfaceContract {

	public static final String PRODUCT_TEMPLATE = "product://{id}";

	public static final String POPULAR_URI = "bench://popular";

	public static final String CART_SUMMARY = "cart_summary";

	public static final String USER_ID = "user_id";

	/** ZREVRANGE bench:popular 0 (POPULAR_COUNT - 1): the ten most popular products. */
	public static final String POPULAR_KEY = "bench:popular";

	public static final int POPULAR_COUNT = 10;

	/** ZRANGEBYLEX bench:users [prefix (prefix\x7f LIMIT 0 COMPLETIONS: the users with a cart, for completion. */
	public static final String USERS_KEY = "bench:users";

	public static final int COMPLETIONS = 10;

	private static final String PRODUCT_PREFIX = "product://";

	private static final String JSON_TYPE = "application/json";

	public static final McpSchema.ResourceTemplate PRODUCT = McpSchema.ResourceTemplate.builder()
		.uriTemplate(PRODUCT_TEMPLATE)
		.name("product")
		.description("A product of the catalog, read from the API service.")
		.mimeType(JSON_TYPE)
		.build();

	public static final McpSchema.Resource POPULAR = McpSchema.Resource.builder()
		.uri(POPULAR_URI)
		.name("popular")
		.description("The ten most popular products, read from Redis.")
		.mimeType(JSON_TYPE)
		.build();

	public static final McpSchema.Prompt PROMPT = new McpSchema.Prompt(CART_SUMMARY,
			"Summarises a user's cart, read from Redis.",
			List.of(new McpSchema.PromptArgument(USER_ID, "the user whose cart is summarised", true)));

	public static final McpSchema.PromptReference PROMPT_REF = new McpSchema.PromptReference(CART_SUMMARY);

	private SurfaceContract() {
	}

	/** Whether DIMENSION_TOOLS asks for the surface (and the dimension tools). */
	public static boolean enabled(String dimensionTools) {
		return dimensionTools != null && "1".equals(dimensionTools.trim());
	}

	/** The API path of a product:// URI: /products/<id>. */
	public static String productPath(String uri) {
		String id = uri.startsWith(PRODUCT_PREFIX) ? uri.substring(PRODUCT_PREFIX.length()) : "";
		if (id.isEmpty() || id.contains("/")) {
			throw McpError.RESOURCE_NOT_FOUND.apply(uri);
		}
		return "/products/" + id;
	}

	/** A product:// read: the API's product JSON as the one content. */
	public static McpSchema.ReadResourceResult product(String uri, String json) {
		return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(uri, JSON_TYPE, json)));
	}

	/** bench://popular's one content: {"popular": [the members, in Redis' order]}, written by the server's mapper. */
	public static McpSchema.ReadResourceResult popular(List<String> members, Function<Object, String> toJson) {
		return new McpSchema.ReadResourceResult(List.of(
				new McpSchema.TextResourceContents(POPULAR_URI, JSON_TYPE, toJson.apply(Map.of("popular", members)))));
	}

	/** The Redis hash cart_summary reads: bench:cart:<user_id> (an error when the argument is missing). */
	public static String cartKey(Map<String, Object> arguments) {
		if (arguments == null || !(arguments.get(USER_ID) instanceof String user) || user.isEmpty()) {
			throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message("user_id is required").build();
		}
		return "bench:cart:" + user;
	}

	/** The prompt's one user message from the cart hash's items and total; a user without a cart is an error. */
	public static McpSchema.GetPromptResult cartSummary(Map<String, Object> arguments, Map<String, String> cart) {
		Object user = arguments.get(USER_ID);
		if (cart == null || cart.isEmpty()) {
			throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message("no cart for " + user).build();
		}
		String text = "Summarise the cart of " + user + ": " + cart.get("items") + " (total " + cart.get("total") + ")";
		return new McpSchema.GetPromptResult(PROMPT.description(),
				List.of(new McpSchema.PromptMessage(McpSchema.Role.USER, new McpSchema.TextContent(text))));
	}

	/**
	 * The completion's prefix: the argument's value when it is user_id, else null (nothing to complete). Its range
	 * is [prefix, prefix + {@link #upTo}) in ZRANGEBYLEX terms, LIMIT 0 {@link #COMPLETIONS}.
	 */
	public static String completionPrefix(McpSchema.CompleteRequest request) {
		var argument = request.argument();
		if (argument == null || !USER_ID.equals(argument.name())) {
			return null;
		}
		return argument.value() != null ? argument.value() : "";
	}

	/** The exclusive upper end of the prefix's range: the prefix then DEL (0x7F), above every character of an id. */
	public static String upTo(String prefix) {
		return prefix + '\u007f';
	}

	public static McpSchema.CompleteResult completion(List<String> values) {
		return new McpSchema.CompleteResult(new McpSchema.CompleteResult.CompleteCompletion(values));
	}

}
