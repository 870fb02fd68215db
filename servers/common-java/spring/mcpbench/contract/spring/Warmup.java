package mcpbench.contract.spring;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.spec.McpSchema;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.stereotype.Component;

/**
 * Calls the two read-only tools once through the MCP handler (JSON-RPC dispatch, argument
 * validation, the tool, Redis and the API service) after the context is built and before the
 * web server accepts connections. The first call otherwise pays for connecting to both
 * backends and for loading and compiling a few thousand classes: ~2.5 s of CPU, which on a
 * contended core outlasted a client's 10 s timeout. checkout is left out: it writes to Redis.
 * Best effort: a backend that is not up only costs a warning. HTTP only (it goes through the
 * HTTP transport's handler), and stateless only: the stateful transport of SSE_REPLIES=1 or SESSIONS=1 (the
 * server's Application) has no handler to call outside a session.
 */
@Component
@ConditionalOnWebApplication
@ConditionalOnProperty(name = "spring.ai.mcp.server.protocol", havingValue = "STATELESS")
public class Warmup implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(Warmup.class);

	private final PatchedTransport transport;

	public Warmup(PatchedTransport transport) {
		this.transport = transport;
	}

	@Override
	public void afterSingletonsInstantiated() {
		long start = System.nanoTime();
		for (String tool : List.of("search_products", "get_user_cart")) {
			var call = new McpSchema.JSONRPCRequest(McpSchema.METHOD_TOOLS_CALL, "warm-up " + tool,
					Map.of("name", tool, "arguments", Map.of()));
			try {
				McpSchema.JSONRPCResponse response = this.transport.handle(call).block(Duration.ofSeconds(30));
				if (response == null || response.error() != null
						|| (response.result() instanceof McpSchema.CallToolResult result
								&& Boolean.TRUE.equals(result.isError()))) {
					logger.warn("Warm-up call of " + tool + " failed: " + (response != null ? response : "no reply"));
					return;
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Warm-up call of " + tool + " failed: " + ex);
				return;
			}
		}
		logger.info("Warmed up in " + (System.nanoTime() - start) / 1_000_000 + " ms");
	}

}
