package mcpbench.webflux;

import java.time.Duration;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.netty.channel.ChannelOption;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.web.reactive.function.client.WebClient;

/** Backend clients: the product API over a sized keep-alive connection pool, and Lettuce tuning. */
@Configuration(proxyBeanMethods = false)
class Clients {

	/**
	 * The workload's wire format is snake_case. A mapper of our own keeps that away from the
	 * Boot-wide mapper the MCP transport uses.
	 */
	static final JsonMapper JSON = JsonMapper.builder()
		.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
		.build();

	@Bean(destroyMethod = "disposeLater")
	ConnectionProvider apiConnections(@Value("${mcpbench.http-pool-size}") int poolSize) {
		return ConnectionProvider.builder("api-service")
			.maxConnections(poolSize)
			.pendingAcquireMaxCount(-1) // wait for a connection rather than fail under bursts
			.pendingAcquireTimeout(Duration.ofSeconds(5))
			.maxIdleTime(Duration.ofSeconds(30))
			.evictInBackground(Duration.ofSeconds(30))
			.lifo() // reuse the warmest connection; idle ones age out
			.build();
	}

	@Bean
	WebClient apiClient(ConnectionProvider apiConnections, @Value("${mcpbench.api-url}") String apiUrl) {
		HttpClient http = HttpClient.create(apiConnections)
			.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000)
			.responseTimeout(Duration.ofSeconds(10));
		return WebClient.builder()
			.baseUrl(apiUrl)
			.clientConnector(new ReactorClientHttpConnector(http))
			.codecs(codecs -> {
				codecs.defaultCodecs().jacksonJsonDecoder(new JacksonJsonDecoder(JSON));
				codecs.defaultCodecs().jacksonJsonEncoder(new JacksonJsonEncoder(JSON));
			})
			.build();
	}

	/**
	 * Lettuce multiplexes every command over one shared connection (Spring Data Redis'
	 * default), so its event loops need no more threads than cores. Per-command latency
	 * recording is on by default whenever HdrHistogram is on the class path (it is, via
	 * Micrometer) and costs a histogram update per command: off.
	 */
	@Bean
	ClientResourcesBuilderCustomizer lettuceResources() {
		int threads = Math.max(2, Application.CORES);
		return builder -> builder.ioThreadPoolSize(threads)
			.computationThreadPoolSize(threads)
			.commandLatencyRecorder(CommandLatencyRecorder.disabled());
	}

}
