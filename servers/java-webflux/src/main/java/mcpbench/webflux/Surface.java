package mcpbench.webflux;

import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import mcpbench.contract.SurfaceContract;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.web.reactive.function.client.WebClient;

import static mcpbench.webflux.Clients.JSON;

/**
 * The surface (docs/workload.md §7), under DIMENSION_TOOLS=1 only: the resource template product://{id}, the
 * resource bench://popular, the prompt cart_summary and its user_id completion, as async SDK specification beans
 * that Spring AI's auto-configuration registers beside the tools (stateless over HTTP; session-bound where the
 * protocol is STREAMABLE). Application turns on the capabilities they need. Declarations and results are the
 * contract's (servers/common-java/mcp: SurfaceContract); the reads go through the tools' reactive clients.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "mcpbench.dimension-tools", havingValue = "1")
class Surface {

	private final ReactiveStringRedisTemplate redis;

	private final WebClient api;

	Surface(ReactiveStringRedisTemplate redis, WebClient api) {
		this.redis = redis;
		this.api = api;
	}

	/** GET /products/<id>, the product as the API wrote it; a 404 fails the read. */
	Mono<McpSchema.ReadResourceResult> product(McpSchema.ReadResourceRequest request) {
		return Mono.defer(() -> this.api.get().uri(SurfaceContract.productPath(request.uri())).retrieve().bodyToMono(JsonNode.class))
			.map(product -> SurfaceContract.product(request.uri(), JSON.writeValueAsString(product)));
	}

	Mono<McpSchema.ReadResourceResult> popular(McpSchema.ReadResourceRequest request) {
		return this.redis.opsForZSet()
			.reverseRange(SurfaceContract.POPULAR_KEY, Range.closed(0L, SurfaceContract.POPULAR_COUNT - 1L))
			.collectList()
			.map(members -> SurfaceContract.popular(members, JSON::writeValueAsString));
	}

	Mono<McpSchema.GetPromptResult> cartSummary(McpSchema.GetPromptRequest request) {
		return Mono.defer(() -> this.redis.<String, String>opsForHash().entries(SurfaceContract.cartKey(request.arguments()))
			.collectMap(Map.Entry::getKey, Map.Entry::getValue))
			.map(cart -> SurfaceContract.cartSummary(request.arguments(), cart));
	}

	Mono<McpSchema.CompleteResult> complete(McpSchema.CompleteRequest request) {
		String prefix = SurfaceContract.completionPrefix(request);
		if (prefix == null) {
			return Mono.just(SurfaceContract.completion(List.of()));
		}
		return this.redis.opsForZSet()
			.rangeByLex(SurfaceContract.USERS_KEY, Range.rightOpen(prefix, SurfaceContract.upTo(prefix)),
					Limit.limit().count(SurfaceContract.COMPLETIONS))
			.collectList()
			.map(SurfaceContract::completion);
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	List<McpStatelessServerFeatures.AsyncResourceTemplateSpecification> statelessSurfaceTemplates() {
		return List.of(new McpStatelessServerFeatures.AsyncResourceTemplateSpecification(SurfaceContract.PRODUCT,
				(context, request) -> product(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	List<McpStatelessServerFeatures.AsyncResourceSpecification> statelessSurfaceResources() {
		return List.of(new McpStatelessServerFeatures.AsyncResourceSpecification(SurfaceContract.POPULAR,
				(context, request) -> popular(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	List<McpStatelessServerFeatures.AsyncPromptSpecification> statelessSurfacePrompts() {
		return List.of(new McpStatelessServerFeatures.AsyncPromptSpecification(SurfaceContract.PROMPT,
				(context, request) -> cartSummary(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
	List<McpStatelessServerFeatures.AsyncCompletionSpecification> statelessSurfaceCompletions() {
		return List.of(new McpStatelessServerFeatures.AsyncCompletionSpecification(SurfaceContract.PROMPT_REF,
				(context, request) -> complete(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	List<McpServerFeatures.AsyncResourceTemplateSpecification> sessionSurfaceTemplates() {
		return List.of(new McpServerFeatures.AsyncResourceTemplateSpecification(SurfaceContract.PRODUCT,
				(exchange, request) -> product(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	List<McpServerFeatures.AsyncResourceSpecification> sessionSurfaceResources() {
		return List.of(new McpServerFeatures.AsyncResourceSpecification(SurfaceContract.POPULAR,
				(exchange, request) -> popular(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	List<McpServerFeatures.AsyncPromptSpecification> sessionSurfacePrompts() {
		return List.of(new McpServerFeatures.AsyncPromptSpecification(SurfaceContract.PROMPT,
				(exchange, request) -> cartSummary(request)));
	}

	@Bean
	@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STREAMABLE")
	List<McpServerFeatures.AsyncCompletionSpecification> sessionSurfaceCompletions() {
		return List.of(new McpServerFeatures.AsyncCompletionSpecification(SurfaceContract.PROMPT_REF,
				(exchange, request) -> complete(request)));
	}

}
