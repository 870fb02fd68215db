package mcpbench.contract;

/**
 * Which of its SDK's Streamable HTTP transports a JVM server on the MCP Java SDK serves, as the contract's settings
 * fix it (docs/server-contract.md): the stateless one unless a setting asks for the stateful one, which issues
 * Mcp-Session-Id at initialize and keeps each session until the client's DELETE or the SDK's own timeout.
 * SSE_REPLIES=1 asks for it because only a session's exchange can put a call's progress notifications on its SSE
 * reply; SESSIONS=1 asks for the sessions themselves (the abandoned dimension). Each server switches in its own
 * way (java-sdk: the servlet transport it builds; Spring AI: spring.ai.mcp.server.protocol=STREAMABLE).
 */
public final class TransportContract {

	private TransportContract() {
	}

	/** Whether SSE_REPLIES or SESSIONS, as read from the environment (null when unset), is "1". */
	public static boolean stateful(String sseReplies, String sessions) {
		return on(sseReplies) || on(sessions);
	}

	private static boolean on(String setting) {
		return setting != null && "1".equals(setting.trim());
	}

}
