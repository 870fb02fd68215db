package mcpbench.sdk;

import java.util.List;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import mcpbench.contract.SurfaceContract;
import tools.jackson.databind.JsonNode;

import static mcpbench.sdk.Clients.JSON;

/**
 * The surface (docs/workload.md §7), under DIMENSION_TOOLS=1 only: the resource template product://{id}, the
 * resource bench://popular, the prompt cart_summary and its user_id completion, as the SDK's resource, prompt and
 * completion specifications on the same servers as the tools. Declarations and results are the contract's
 * (servers/common-java/mcp: SurfaceContract); the reads go through the tools' clients.
 */
final class Surface {

	/** With the tools, the three capabilities the surface's specifications need (the SDK serves none without). */
	static final McpSchema.ServerCapabilities CAPABILITIES = McpSchema.ServerCapabilities.builder()
		.tools(false)
		.resources(false, false)
		.prompts(false)
		.completions()
		.build();

	private final Clients clients;

	private Surface(Clients clients) {
		this.clients = clients;
	}

	/** The surface when DIMENSION_TOOLS asks for it, else null. */
	static Surface of(Clients clients) {
		return SurfaceContract.enabled(System.getenv("DIMENSION_TOOLS")) ? new Surface(clients) : null;
	}

	/** GET /products/<id>, the product as the API wrote it; a 404 fails the read. */
	McpSchema.ReadResourceResult product(McpSchema.ReadResourceRequest request) {
		JsonNode product = this.clients.get(SurfaceContract.productPath(request.uri()), JsonNode.class);
		return SurfaceContract.product(request.uri(), JSON.writeValueAsString(product));
	}

	McpSchema.ReadResourceResult popular(McpSchema.ReadResourceRequest request) {
		return SurfaceContract.popular(
				this.clients.redis().zrevrange(SurfaceContract.POPULAR_KEY, 0, SurfaceContract.POPULAR_COUNT - 1),
				JSON::writeValueAsString);
	}

	McpSchema.GetPromptResult cartSummary(McpSchema.GetPromptRequest request) {
		return SurfaceContract.cartSummary(request.arguments(),
				this.clients.redis().hgetall(SurfaceContract.cartKey(request.arguments())));
	}

	McpSchema.CompleteResult complete(McpSchema.CompleteRequest request) {
		String prefix = SurfaceContract.completionPrefix(request);
		if (prefix == null) {
			return SurfaceContract.completion(List.of());
		}
		return SurfaceContract.completion(this.clients.redis()
			.zrangebylex(SurfaceContract.USERS_KEY,
					Range.from(Range.Boundary.including(prefix), Range.Boundary.excluding(SurfaceContract.upTo(prefix))),
					Limit.create(0, SurfaceContract.COMPLETIONS)));
	}

	/** Registers the surface on the stateless server (HTTP). */
	void register(McpServer.StatelessSyncSpecification spec) {
		spec.capabilities(CAPABILITIES)
			.resourceTemplates(new McpStatelessServerFeatures.SyncResourceTemplateSpecification(SurfaceContract.PRODUCT,
					(context, request) -> product(request)))
			.resources(new McpStatelessServerFeatures.SyncResourceSpecification(SurfaceContract.POPULAR,
					(context, request) -> popular(request)))
			.prompts(new McpStatelessServerFeatures.SyncPromptSpecification(SurfaceContract.PROMPT,
					(context, request) -> cartSummary(request)))
			.completions(new McpStatelessServerFeatures.SyncCompletionSpecification(SurfaceContract.PROMPT_REF,
					(context, request) -> complete(request)));
	}

	/** Registers the surface on a session server (stdio; HTTP with SSE_REPLIES=1 or SESSIONS=1). */
	void register(McpServer.SyncSpecification<?> spec) {
		spec.capabilities(CAPABILITIES)
			.resourceTemplates(new McpServerFeatures.SyncResourceTemplateSpecification(SurfaceContract.PRODUCT,
					(exchange, request) -> product(request)))
			.resources(new McpServerFeatures.SyncResourceSpecification(SurfaceContract.POPULAR,
					(exchange, request) -> popular(request)))
			.prompts(new McpServerFeatures.SyncPromptSpecification(SurfaceContract.PROMPT,
					(exchange, request) -> cartSummary(request)))
			.completions(new McpServerFeatures.SyncCompletionSpecification(SurfaceContract.PROMPT_REF,
					(exchange, request) -> complete(request)));
	}

}
