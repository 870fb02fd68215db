package mcpbench.quarkus;

import java.net.URI;

import io.quarkus.redis.client.RedisOptionsCustomizer;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.ext.web.client.WebClient;
import io.vertx.redis.client.RedisOptions;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Connection pools for Redis and the API service, sized from CPU_LIMIT. */
@Singleton
public class Backends implements RedisOptionsCustomizer {

    /**
     * Pooled connections per granted core. Every tool call holds up to three Redis connections and one
     * HTTP connection at once; 50 concurrent sessions overflow the defaults (6 Redis, 5 HTTP) and then
     * queue or fail with "max wait queue size" errors.
     */
    static final int CONNECTIONS_PER_CPU = 32;

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

    @Override
    public void customize(String clientName, RedisOptions options) {
        int size = CONNECTIONS_PER_CPU * cpus();
        options.getPoolOptions().setMaxSize(size).setMaxWaiting(64 * size);
    }

    /** Base address of the product API service. */
    public record Api(WebClient client, String host, int port) {
    }

    @Produces
    @Singleton
    Api api(Vertx vertx, @ConfigProperty(name = "API_SERVICE_URL", defaultValue = "http://127.0.0.1:8100") String url) {
        URI uri = URI.create(url);
        WebClientOptions options = new WebClientOptions()
                .setMaxPoolSize(CONNECTIONS_PER_CPU * cpus())
                .setKeepAlive(true)
                .setTcpNoDelay(true)
                .setDecompressionSupported(false)
                .setUserAgentEnabled(false);
        return new Api(WebClient.create(vertx, options), uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 80);
    }

    void close(@Disposes Api api) {
        api.client().close();
    }
}
