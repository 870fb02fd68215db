package mcpbench.spring;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The MCP transport reads the whole body into a String before parsing it, so an oversized
 * request would be buffered and then served as if it were normal. Reject it up front
 * (413 with a JSON-RPC error) from its Content-Length; Tomcat then discards the body.
 */
@Component
class BodyLimitFilter extends OncePerRequestFilter {

	private static final String TOO_LARGE = """
			{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body too large"}}""";

	private final long maxBytes;

	BodyLimitFilter(@Value("${mcpbench.max-body-size}") DataSize maxBody) {
		this.maxBytes = maxBody.toBytes();
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (request.getContentLengthLong() > this.maxBytes) {
			response.setStatus(HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE);
			response.setContentType("application/json");
			response.setCharacterEncoding("UTF-8");
			response.getWriter().write(TOO_LARGE);
			return;
		}
		chain.doFilter(request, response);
	}

}
