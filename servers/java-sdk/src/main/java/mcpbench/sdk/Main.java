package mcpbench.sdk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.stream.Stream;

import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.http.HttpServlet;
import mcpbench.contract.TransportContract;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.tomcat.util.modeler.Registry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The three tools on the MCP Java SDK alone: its stateless servlet transport in an embedded Tomcat
 * (HTTP; its streamable one with SSE_REPLIES=1 or SESSIONS=1), or its stdio transport (--stdio).
 * Configuration comes from the environment only (README).
 */
public final class Main {

	private static final Logger logger = LoggerFactory.getLogger(Main.class);

	private static final McpSchema.Implementation SERVER_INFO = new McpSchema.Implementation("mcpbench-java-sdk", "1.0.0");

	/** Tools only: no empty resource/prompt/completion features to advertise (DIMENSION_TOOLS=1 adds the surface's). */
	private static final McpSchema.ServerCapabilities CAPABILITIES = McpSchema.ServerCapabilities.builder().tools(false).build();

	/** Cores granted to this process: CPU_LIMIT rounded up, else what the JVM sees. */
	static final int CORES = cores();

	public static void main(String[] args) throws Exception {
		long started = System.nanoTime();
		// Tomcat logs through java.util.logging: warnings only, as Spring Boot sets it (no start-up chatter).
		java.util.logging.Logger.getLogger("").setLevel(Level.WARNING);
		var clients = new Clients(env("API_SERVICE_URL", "http://127.0.0.1:8100"), env("REDIS_URL", "redis://127.0.0.1:6379"),
				CORES);
		String serverType = env("SERVER_TYPE", "java-sdk");
		var tools = new ArrayList<>(new BenchTools(clients, serverType).definitions());
		tools.addAll(DimensionTools.definitions(clients, serverType)); // none unless EXTRA_TOOLS / DIMENSION_TOOLS say so
		var surface = Surface.of(clients); // null unless DIMENSION_TOOLS says so
		if (List.of(args).contains("--stdio")) {
			stdio(tools, surface, clients);
		}
		else {
			http(tools, surface, clients, started);
		}
	}

	private static void http(List<BenchTools.Definition> tools, Surface surface, Clients clients, long started)
			throws Exception {
		var validator = Mcp.hostValidator(List.of(env("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")));
		HttpServlet servlet;
		AutoCloseable server;
		if (TransportContract.stateful(System.getenv("SSE_REPLIES"), System.getenv("SESSIONS"))) {
			// SSE_REPLIES=1 or SESSIONS=1 (docs/server-contract.md): the SDK's streamable transport in place of the
			// stateless one below, which has no way to send a notification and keeps no session: a session per
			// initialize (Mcp-Session-Id) kept until DELETE or the SDK's idle sweep (its defaults, README), each
			// request answered on an SSE stream that carries its progress notifications before the result.
			var streamable = HttpServletStreamableServerTransportProvider.builder()
				.jsonMapper(Mcp.JSON_MAPPER)
				.mcpEndpoint("/mcp")
				.httpHeaderValidator(validator)
				.maxRequestSize(1024 * 1024)
				.build();
			var spec = McpServer.sync(new Mcp.StreamableTransport(streamable))
				.jsonMapper(Mcp.JSON_MAPPER)
				.serverInfo(SERVER_INFO)
				.capabilities(CAPABILITIES)
				.tools(Mcp.sessionTools(tools))
				.immediateExecution(true); // as below: the servlet blocks its thread on the reply stream
			if (surface != null) {
				surface.register(spec);
			}
			McpSyncServer sessions = spec.build();
			servlet = streamable;
			server = sessions::close;
		}
		else {
			// The SDK's stateless transport: one POST, one JSON reply, no session (DELETE /mcp: 405).
			var stateless = HttpServletStatelessServerTransport.builder()
				.jsonMapper(Mcp.JSON_MAPPER)
				.messageEndpoint("/mcp")
				.httpHeaderValidator(validator)
				// Refused with 413 from Content-Length, or while reading a chunked body, before it is parsed.
				.maxRequestSize(1024 * 1024)
				.build();
			var transport = new Mcp.StatelessTransport(stateless);
			// immediateExecution: a tool runs on the request's thread, which the servlet blocks on the reply
			// anyway (Spring AI sets the same on servlet stacks); without it, each call hops to boundedElastic.
			var spec = McpServer.sync(transport)
				.jsonMapper(Mcp.JSON_MAPPER)
				.serverInfo(SERVER_INFO)
				.capabilities(CAPABILITIES)
				.tools(Mcp.statelessTools(tools))
				.immediateExecution(true);
			if (surface != null) {
				surface.register(spec);
			}
			McpStatelessSyncServer statelessServer = spec.build();
			warmUp(transport);
			servlet = stateless;
			server = statelessServer::close;
		}

		Path baseDir = Files.createTempDirectory("mcpbench-tomcat-");
		Tomcat tomcat = tomcat(servlet, baseDir);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			// SIGTERM: stop accepting; Tomcat lets in-flight calls finish (up to 2 s) before it unloads the servlet.
			try {
				tomcat.stop();
				tomcat.destroy();
				server.close();
				clients.close();
				try (Stream<Path> files = Files.walk(baseDir)) {
					files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
				}
			}
			catch (Exception ex) {
				logger.warn("Shutdown: {}", ex.toString());
			}
		}, "shutdown"));
		tomcat.start();
		logger.info("Started in {} ms: http://{}:{}/mcp", (System.nanoTime() - started) / 1_000_000,
				env("HOST", "127.0.0.1"), tomcat.getConnector().getLocalPort());
		if (Boolean.getBoolean("mcpbench.cds.training")) {
			// Class-data-sharing training run (build.sh, Dockerfile; docs/jvm-policy.md): everything a start
			// loads is loaded. Exit; the JVM writes the archive (-XX:ArchiveClassesAtExit) on the way out.
			System.exit(0);
		}
		tomcat.getServer().await();
	}

	/**
	 * Embedded Tomcat as java-spring's Spring Boot configures it: the same thread pool sizes (from
	 * CPU_LIMIT), keep-alive without a request limit, no JMX MBeans, no error details in error pages,
	 * and a start that fails when the port cannot be bound.
	 */
	private static Tomcat tomcat(HttpServlet servlet, Path baseDir) {
		// Spring Boot's default (server.tomcat.mbeanregistry.enabled=false): less memory, a faster start.
		Registry.disableRegistry();
		var tomcat = new Tomcat();
		tomcat.setBaseDir(baseDir.toString()); // its work directory; the server directory may be read-only
		var connector = new Connector(); // HTTP/1.1, NIO
		connector.setThrowOnFailure(true);
		connector.setPort(Integer.parseInt(env("PORT", "8080")));
		// loopback unless the runtime says otherwise (a container: 0.0.0.0)
		connector.setProperty("address", env("HOST", "127.0.0.1"));
		// A blocking call holds its thread while it waits (~1 ms on Redis or the API), so the pool is sized
		// for the load's concurrency (50 sessions), not for the CPU: java-spring's 32 x cores (min 8 x cores).
		connector.setProperty("maxThreads", String.valueOf(32 * CORES));
		connector.setProperty("minSpareThreads", String.valueOf(8 * CORES));
		// Never close a client's keep-alive connection (Tomcat's default closes each after 100 requests).
		connector.setProperty("maxKeepAliveRequests", "-1");
		connector.setProperty("keepAliveTimeout", "60000");
		tomcat.setConnector(connector);
		var errors = new ErrorReportValve();
		errors.setShowReport(false);
		errors.setShowServerInfo(false);
		tomcat.getHost().getPipeline().addValve(errors);

		Context context = tomcat.addContext("", null);
		Tomcat.addServlet(context, "mcp", servlet);
		context.addServletMappingDecoded("/mcp", "mcp");
		return tomcat;
	}

	/**
	 * Calls the two read-only tools once through the MCP handler (JSON-RPC dispatch, argument validation,
	 * the tool, Redis and the API service) before Tomcat accepts connections, as java-spring's Warmup does:
	 * the first call otherwise pays for connecting to both backends and for loading and compiling classes.
	 * checkout is left out: it writes to Redis. Best effort: a backend that is not up costs a warning.
	 */
	private static void warmUp(Mcp.StatelessTransport transport) {
		for (String tool : List.of("search_products", "get_user_cart")) {
			var call = new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, McpSchema.METHOD_TOOLS_CALL, "warm-up " + tool,
					Map.of("name", tool, "arguments", Map.of()));
			try {
				McpSchema.JSONRPCResponse response = transport.handle(call).block(Duration.ofSeconds(30));
				if (response == null || response.error() != null
						|| (response.result() instanceof McpSchema.CallToolResult result && Boolean.TRUE.equals(result.isError()))) {
					logger.warn("Warm-up call of {} failed: {}", tool, response != null ? response : "no reply");
					return;
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Warm-up call of {} failed: {}", tool, ex.toString());
				return;
			}
		}
	}

	/**
	 * MCP over stdin/stdout: the SDK's StdioServerTransportProvider (StdioTransport closes a gap in it)
	 * serving one session with the same tools. It handles requests concurrently (each sync tool on
	 * Reactor's boundedElastic, forking its backend calls as over HTTP) and writes replies in completion
	 * order. stdout carries nothing else: logs go to stderr. The SDK ends the session when stdin closes
	 * but does not end the process: main waits for the end of the session, then exits.
	 */
	private static void stdio(List<BenchTools.Definition> tools, Surface surface, Clients clients)
			throws InterruptedException {
		var transport = new StdioTransport(new StdioServerTransportProvider(Mcp.JSON_MAPPER));
		var spec = McpServer.sync(transport)
			.jsonMapper(Mcp.JSON_MAPPER)
			.serverInfo(SERVER_INFO)
			.capabilities(CAPABILITIES)
			.tools(Mcp.sessionTools(tools));
		if (surface != null) {
			surface.register(spec);
		}
		var server = spec.build();
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			server.close();
			try {
				clients.close();
			}
			catch (IOException ex) {
				logger.warn("Shutdown: {}", ex.toString());
			}
		}, "shutdown"));
		transport.closed.await();
		System.exit(0);
	}

	private static String env(String name, String fallback) {
		String value = System.getenv(name);
		return value != null && !value.isBlank() ? value.trim() : fallback;
	}

	private static int cores() {
		String limit = System.getenv("CPU_LIMIT");
		if (limit != null && !limit.isBlank()) {
			try {
				return Math.max(1, (int) Math.ceil(Double.parseDouble(limit.trim())));
			}
			catch (NumberFormatException ignored) {
				// fall through to the JVM's own (cgroup-aware) count
			}
		}
		return Runtime.getRuntime().availableProcessors();
	}

}
