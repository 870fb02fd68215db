package mcpbench.spring;

import java.util.List;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import org.springframework.web.client.RestClient;

/** Backend clients: the product API over pooled keep-alive HTTP/1.1, and Lettuce tuning. */
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

	@Bean(destroyMethod = "close")
	CloseableHttpClient apiHttpClient(@Value("${mcpbench.http-pool-size}") int poolSize) {
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
		return HttpClients.custom()
			.setConnectionManager(connections)
			.disableCookieManagement()
			.disableAuthCaching()
			.disableRedirectHandling()
			.evictIdleConnections(TimeValue.ofSeconds(30))
			.build();
	}

	@Bean
	RestClient apiClient(CloseableHttpClient apiHttpClient, @Value("${mcpbench.api-url}") String apiUrl) {
		return RestClient.builder()
			.baseUrl(apiUrl)
			.requestFactory(new HttpComponentsClientHttpRequestFactory(apiHttpClient))
			.messageConverters(List.of(new JacksonJsonHttpMessageConverter(JSON)))
			.build();
	}

	/**
	 * Lettuce multiplexes every thread's commands over one shared connection (Spring Data
	 * Redis' default), so its event loops need no more threads than cores. Per-command
	 * latency recording is on by default whenever HdrHistogram is on the class path (it is,
	 * via Micrometer) and costs a histogram update per command: off.
	 */
	@Bean
	ClientResourcesBuilderCustomizer lettuceResources() {
		int threads = Math.max(2, Application.CORES);
		return builder -> builder.ioThreadPoolSize(threads)
			.computationThreadPoolSize(threads)
			.commandLatencyRecorder(CommandLatencyRecorder.disabled());
	}

}
