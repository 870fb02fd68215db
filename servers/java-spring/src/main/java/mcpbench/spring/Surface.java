package mcpbench.spring;

import java.util.List;

import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import mcpbench.contract.SurfaceContract;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.web.client.RestClient;

import static mcpbench.spring.Clients.JSON;

/**
 * The surface (docs/workload.md §7), under DIMENSION_TOOLS=1 only: the resource template product://{id}, the
 * resource bench://popular, the prompt cart_summary and its user_id completion, as SDK specification beans that
 * Spring AI's auto-configuration registers beside the tools (stateless over HTTP; session-bound where the protocol is
 * STREAMABLE). Application turns on the capabilities they need. Declarations and results are the contract's
 * (servers/common-java/mcp: SurfaceContract); the reads go through the tools' clients.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "mcpbench.dimension-tools", havingValue = "1")
class Surface {

	private final StringRedisTemplate redis;

	private final RestClient api;

	Surface(StringRedisTemplate redis, RestClient api) {
		this.redis = redis;
		this.api = api;
	}

	/** GET /products/<id>, the product as the API wrote it; a 404 fails the read. */
	McpSchema.ReadResourceResult product(McpSchema.ReadResourceRequest request) {
		JsonNode product = this.api.get().uri(SurfaceContract.productPath(request.uri())).retrieve().body(JsonNode.class);
		return SurfaceContract.product(request.uri(), JSON.writeValueAsString(product));
	}

	McpSchema.ReadResourceResult popular(McpSchema.ReadResourceRequest request) {
		var members = this.redis.opsForZSet().reverseRange(SurfaceContract.POPULAR_KEY, 0, SurfaceContract.POPULAR_COUNT - 1);
		return SurfaceContract.popular(List.copyOf(members), JSON::writeValueAsString);
	}

	McpSchema.GetPromptResult cartSummary(McpSchema.GetPromptRequest request) {
		return SurfaceContract.cartSummary(request.arguments(),
				this.redis.<String, String>opsForHash().entries(SurfaceContract.cartKey(request.arguments())));
	}

	McpSchema.CompleteResult complete(McpSchema.CompleteRequest request) {
		String prefix = SurfaceContract.completionPrefix(request);
		if (prefix == null) {
			return SurfaceContract.completion(List.of());
		}
		var users = this.redis.opsForZSet().rangeByLex(SurfaceContract.USERS_KEY,
				Range.rightOpen(prefix, SurfaceContract.upTo(prefix)), Limit.limit().count(SurfaceContract.COMPLETIONS));
		return SurfaceContract.completion(List.copyOf(users));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	List<McpStatelessServerFeatures.SyncResourceTemplateSpecification> statelessSurfaceTemplates() {
		return List.of(new McpStatelessServerFeatures.SyncResourceTemplateSpecification(SurfaceContract.PRODUCT,
				(context, request) -> product(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	List<McpStatelessServerFeatures.SyncResourceSpecification> statelessSurfaceResources() {
		return List.of(new McpStatelessServerFeatures.SyncResourceSpecification(SurfaceContract.POPULAR,
				(context, request) -> popular(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	List<McpStatelessServerFeatures.SyncPromptSpecification> statelessSurfacePrompts() {
		return List.of(new McpStatelessServerFeatures.SyncPromptSpecification(SurfaceContract.PROMPT,
				(context, request) -> cartSummary(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	List<McpStatelessServerFeatures.SyncCompletionSpecification> statelessSurfaceCompletions() {
		return List.of(new McpStatelessServerFeatures.SyncCompletionSpecification(SurfaceContract.PROMPT_REF,
				(context, request) -> complete(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	List<McpServerFeatures.SyncResourceTemplateSpecification> sessionSurfaceTemplates() {
		return List.of(new McpServerFeatures.SyncResourceTemplateSpecification(SurfaceContract.PRODUCT,
				(exchange, request) -> product(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	List<McpServerFeatures.SyncResourceSpecification> sessionSurfaceResources() {
		return List.of(new McpServerFeatures.SyncResourceSpecification(SurfaceContract.POPULAR,
				(exchange, request) -> popular(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	List<McpServerFeatures.SyncPromptSpecification> sessionSurfacePrompts() {
		return List.of(new McpServerFeatures.SyncPromptSpecification(SurfaceContract.PROMPT,
				(exchange, request) -> cartSummary(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	List<McpServerFeatures.SyncCompletionSpecification> sessionSurfaceCompletions() {
		return List.of(new McpServerFeatures.SyncCompletionSpecification(SurfaceContract.PROMPT_REF,
				(exchange, request) -> complete(request)));
	}

}
