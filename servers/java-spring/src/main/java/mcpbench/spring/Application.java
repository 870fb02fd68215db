package mcpbench.spring;

import java.util.Map;

import mcpbench.contract.SurfaceContract;
import mcpbench.contract.TransportContract;
import mcpbench.contract.spring.McpErrorSerializer;
import mcpbench.contract.spring.StdioTransport;
import mcpbench.contract.spring.Warmup;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

@SpringBootApplication
// The Spring stacks' shared beans (servers/common-java/spring), outside this package's component scan.
@Import({ StdioTransport.class, Warmup.class, McpErrorSerializer.class })
public class Application {

	/** Cores granted to this process: CPU_LIMIT rounded up, else what the JVM sees. */
	static final int CORES = cores();

	public static void main(String[] args) {
		SpringApplication app = new SpringApplication(Application.class);
		// Defaults sized from CPU_LIMIT; lowest precedence, so an env var or --flag still wins.
		// A blocking call holds its thread while it waits (~1 ms on Redis or the API), so the pools
		// are sized for the load's concurrency (50 sessions), not for the CPU. The forked calls are
		// the only API calls, so the HTTP pool matches their pool: no thread waits for a connection.
		// With spring.threads.virtual.enabled=true Tomcat and the task executor ignore these.
		app.setDefaultProperties(Map.of(
				"server.tomcat.threads.max", 32 * CORES,
				"server.tomcat.threads.min-spare", 8 * CORES,
				"spring.task.execution.pool.core-size", 32 * CORES,
				"mcpbench.http-pool-size", 32 * CORES));
		// SSE_REPLIES=1 or SESSIONS=1 (docs/server-contract.md, TransportContract): Spring AI's stateful STREAMABLE
		// transport in place of STATELESS, which answers every POST with one JSON body, where a progress notification
		// has no place, and keeps no session. STREAMABLE issues Mcp-Session-Id at initialize, keeps each session until
		// DELETE, and answers tools/call over SSE, the call's notifications first. A system property, as it must
		// outrank application.properties.
		if (TransportContract.stateful(System.getenv("SSE_REPLIES"), System.getenv("SESSIONS"))) {
			System.setProperty("spring.ai.mcp.server.protocol", "STREAMABLE");
		}
		// DIMENSION_TOOLS=1 (docs/workload.md §7): the surface's beans (Surface) need the capabilities that
		// application.properties turns off; Spring AI registers resources, prompts and completions only with them on.
		if (SurfaceContract.enabled(System.getenv("DIMENSION_TOOLS"))) {
			for (String capability : new String[] { "resource", "prompt", "completion" }) {
				System.setProperty("spring.ai.mcp.server.capabilities." + capability, "true");
			}
		}
		app.run(args);
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
