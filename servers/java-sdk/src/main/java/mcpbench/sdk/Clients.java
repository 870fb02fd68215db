package mcpbench.sdk;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * The backends, with the same clients and settings as java-spring (Clients.java and
 * application.properties there), minus Spring's wrappers: Apache HttpClient 5 classic instead of
 * RestClient on it, Lettuce's sync API instead of StringRedisTemplate on it.
 */
final class Clients implements AutoCloseable {

	/** The workload's wire format is snake_case; the MCP SDK keeps its own mapper. */
	static final JsonMapper JSON = JsonMapper.builder()
		.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
		.build();

	private final String apiUrl;

	private final CloseableHttpClient http;

	private final ClientResources redisResources;

	private final RedisClient redisClient;

	private volatile StatefulRedisConnection<String, String> redis;

	/** The pool the tools fork their parallel backend calls onto. */
	final ExecutorService forks;

	Clients(String apiUrl, String redisUrl, int cores) {
		this.apiUrl = apiUrl;
		// The forked calls are the only API calls, so the HTTP pool matches their pool: no thread waits
		// for a connection (java-spring: mcpbench.http-pool-size = its task pool = 32 x cores).
		int poolSize = 32 * cores;
		var connections = PoolingHttpClientConnectionManagerBuilder.create()
			// One route (the API service): every pooled connection may serve it.
			.setMaxConnTotal(poolSize)
			.setMaxConnPerRoute(poolSize)
			// LAX skips the strict per-route accounting lock: less contention under load.
			.setPoolConcurrencyPolicy(PoolConcurrencyPolicy.LAX)
			.setDefaultSocketConfig(SocketConfig.custom().setTcpNoDelay(true).build())
			.setDefaultConnectionConfig(ConnectionConfig.custom()
				.setConnectTimeout(Timeout.ofSeconds(2))
				.setSocketTimeout(Timeout.ofSeconds(10))
				.setValidateAfterInactivity(TimeValue.ofSeconds(5))
				.build())
			.build();
		this.http = HttpClients.custom()
			.setConnectionManager(connections)
			.disableCookieManagement()
			.disableAuthCaching()
			.disableRedirectHandling()
			.evictIdleConnections(TimeValue.ofSeconds(30))
			.build();

		// Lettuce multiplexes every thread's commands over one shared connection, so its event loops
		// need no more threads than cores. Latency recording off, as in java-spring.
		int loops = Math.max(2, cores);
		this.redisResources = DefaultClientResources.builder()
			.ioThreadPoolSize(loops)
			.computationThreadPoolSize(loops)
			.commandLatencyRecorder(CommandLatencyRecorder.disabled())
			.build();
		RedisURI uri = RedisURI.create(redisUrl);
		uri.setTimeout(Duration.ofSeconds(5)); // java-spring: spring.data.redis.timeout=5s
		this.redisClient = RedisClient.create(this.redisResources, uri);
		this.redisClient.setOptions(ClientOptions.builder()
			.socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(2)).build())
			.build());

		// Boot's task executor as java-spring configures it: 32 x cores threads, started on demand,
		// idle ones retired after 60 s, an unbounded queue.
		var pool = new ThreadPoolExecutor(poolSize, poolSize, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				Thread.ofPlatform().name("fork-", 1).daemon().factory());
		pool.allowCoreThreadTimeOut(true);
		this.forks = pool;
	}

	/**
	 * The one shared connection, opened on first use (like Spring Data Redis' shared connection): a
	 * start needs no Redis, and a connection that could not be opened is tried again on the next call.
	 * Once open, Lettuce reconnects it by itself.
	 */
	RedisCommands<String, String> redis() {
		StatefulRedisConnection<String, String> connection = this.redis;
		if (connection == null) {
			synchronized (this) {
				connection = this.redis;
				if (connection == null) {
					connection = this.redisClient.connect();
					this.redis = connection;
				}
			}
		}
		return connection.sync();
	}

	<T> T get(String pathAndQuery, Class<T> type) {
		return send(new HttpGet(this.apiUrl + pathAndQuery), type);
	}

	<T> T post(String path, Object body, Class<T> type) {
		var post = new HttpPost(this.apiUrl + path);
		post.setEntity(new StringEntity(JSON.writeValueAsString(body), ContentType.APPLICATION_JSON));
		return send(post, type);
	}

	/** The reply parsed as JSON; a non-2xx status fails the call (as RestClient's retrieve() does). */
	private <T> T send(HttpUriRequestBase request, Class<T> type) {
		try {
			return this.http.execute(request, response -> {
				if (response.getCode() / 100 != 2) {
					throw new IOException(request.getMethod() + " " + request.getRequestUri() + ": HTTP " + response.getCode());
				}
				return JSON.readValue(response.getEntity().getContent(), type);
			});
		}
		catch (IOException ex) {
			throw new IllegalStateException("API service: " + ex.getMessage(), ex);
		}
	}

	static String query(Object value) {
		return URLEncoder.encode(String.valueOf(value), StandardCharsets.UTF_8);
	}

	@Override
	public void close() throws IOException {
		this.forks.shutdown();
		this.http.close();
		this.redisClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		this.redisResources.shutdown(0, 2, TimeUnit.SECONDS);
	}

}
