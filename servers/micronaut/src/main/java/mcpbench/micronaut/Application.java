package mcpbench.micronaut;

import java.util.Arrays;
import java.util.Map;

import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;

public class Application {

    /**
     * Pooled HTTP connections per granted core: each of the 50 concurrent sessions holds one connection
     * to the API service while a tool runs.
     */
    static final int HTTP_CONNECTIONS_PER_CPU = 32;

    /**
     * micronaut-mcp runs @Tool methods on Reactor's boundedElastic scheduler, where they block until their
     * Redis and HTTP futures complete. Its default cap (10 threads per core) would queue calls behind
     * threads that are only waiting on I/O, so allow enough threads for every concurrent session.
     */
    static final int TOOL_THREADS_PER_CPU = 32;

    public static void main(String[] args) {
        int cpus = cpus();
        // Must be set before Reactor's Schedulers class initialises.
        System.setProperty("reactor.schedulers.defaultBoundedElasticSize", Integer.toString(TOOL_THREADS_PER_CPU * cpus));
        // --stdio: MCP over stdin/stdout (README "stdio"). stdout carries only JSON-RPC, so the log goes to
        // stderr (logback.xml reads this before the first logger exists), and no HTTP server is started.
        boolean stdio = Arrays.asList(args).contains("--stdio");
        if (stdio) {
            System.setProperty("mcpbench.log.target", "System.err");
        }
        Micronaut micronaut = Micronaut.build(args)
                .mainClass(Application.class)
                .banner(false)
                .properties(Map.of(
                        "micronaut.http.services.api.pool.max-concurrent-http1-connections", HTTP_CONNECTIONS_PER_CPU * cpus,
                        "redis.io-thread-pool-size", Math.max(2, cpus),
                        "redis.computation-thread-pool-size", Math.max(2, cpus)));
        // stdio: the context alone (application-stdio.properties); its start-up event starts the MCP server.
        ApplicationContext context = stdio ? micronaut.environments("stdio").build().start() : micronaut.start();
        if (Boolean.getBoolean("mcpbench.cds.training")) {
            // Class-data-sharing training run (build.sh, Dockerfile; docs/jvm-policy.md): the context and the
            // HTTP server are up, i.e. every class a start loads is loaded. Stop and exit; the JVM writes
            // the archive (-XX:ArchiveClassesAtExit) on the way out.
            context.close();
            System.exit(0);
        }
    }

    static int cpus() {
        String limit = System.getenv("CPU_LIMIT");
        if (limit != null && !limit.isBlank()) {
            try {
                return Math.max(1, (int) Math.ceil(Double.parseDouble(limit.trim())));
            } catch (NumberFormatException ignored) {
                // fall through to what the JVM sees
            }
        }
        return Runtime.getRuntime().availableProcessors();
    }
}
