package mcpbench.webflux;

import java.nio.charset.StandardCharsets;

import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * The MCP transport decodes the whole body into a String. Oversized requests are refused
 * with 413 and a JSON-RPC error: up front from Content-Length, or — for chunked bodies —
 * when the codec's buffer limit trips (which WebFlux would otherwise report as a 500).
 */
@Component
class BodyLimitFilter implements WebFilter {

	private static final byte[] TOO_LARGE = """
			{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body too large"}}"""
		.getBytes(StandardCharsets.UTF_8);

	private final long maxBytes;

	BodyLimitFilter(@Value("${spring.http.codecs.max-in-memory-size}") DataSize maxBody) {
		this.maxBytes = maxBody.toBytes();
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		if (exchange.getRequest().getHeaders().getContentLength() > this.maxBytes) {
			return tooLarge(exchange.getResponse());
		}
		return chain.filter(exchange)
			.onErrorResume(DataBufferLimitException.class, e -> tooLarge(exchange.getResponse()));
	}

	private static Mono<Void> tooLarge(ServerHttpResponse response) {
		response.setStatusCode(HttpStatus.CONTENT_TOO_LARGE);
		response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
		return response.writeWith(Mono.just(response.bufferFactory().wrap(TOO_LARGE)));
	}

}
