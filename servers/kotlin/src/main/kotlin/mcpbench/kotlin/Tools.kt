package mcpbench.kotlin

import io.ktor.client.HttpClient
import io.ktor.client.call.body
import io.ktor.client.engine.cio.CIO
import io.ktor.client.engine.cio.endpoint
import io.ktor.client.plugins.ClientRequestException
import io.ktor.client.plugins.contentnegotiation.ContentNegotiation
import io.ktor.client.plugins.defaultRequest
import io.ktor.client.request.get
import io.ktor.client.request.parameter
import io.ktor.client.request.post
import io.ktor.client.request.setBody
import io.ktor.client.statement.bodyAsText
import io.ktor.http.ContentType
import io.ktor.http.HttpStatusCode
import io.ktor.http.contentType
import io.ktor.serialization.kotlinx.json.json
import io.lettuce.core.RedisClient
import io.lettuce.core.RedisURI
import io.lettuce.core.TimeoutOptions
import io.lettuce.core.ClientOptions
import io.lettuce.core.RedisConnectionException
import io.lettuce.core.api.async.RedisAsyncCommands
import io.lettuce.core.codec.StringCodec
import io.lettuce.core.metrics.CommandLatencyRecorder
import io.lettuce.core.resource.DefaultClientResources
import io.modelcontextprotocol.kotlin.sdk.server.Server
import io.modelcontextprotocol.kotlin.sdk.types.CallToolRequest
import io.modelcontextprotocol.kotlin.sdk.types.CallToolResult
import io.modelcontextprotocol.kotlin.sdk.types.TextContent
import io.modelcontextprotocol.kotlin.sdk.types.ToolSchema
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.future.asDeferred
import kotlinx.coroutines.future.await
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonObjectBuilder
import kotlinx.serialization.json.add
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.decodeFromJsonElement
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import kotlinx.serialization.json.putJsonObject
import java.time.Duration

/** Strict for tool arguments (a number where a string belongs is an error), tolerant of extra fields. */
private val JSON = Json { ignoreUnknownKeys = true }

// Tool arguments; the defaults are the workload's (docs/workload.md §3).
@Serializable
private data class SearchArgs(
    val category: String = "Electronics",
    @SerialName("min_price") val minPrice: Double = 50.0,
    @SerialName("max_price") val maxPrice: Double = 500.0,
    val limit: Int = 10,
)

@Serializable
private data class CartArgs(@SerialName("user_id") val userId: String = "user-00042")

@Serializable
data class LineItem(@SerialName("product_id") val productId: Int, val quantity: Int)

@Serializable
private data class CheckoutArgs(
    @SerialName("user_id") val userId: String = "user-00042",
    val items: List<LineItem> = listOf(LineItem(42, 2), LineItem(1337, 1)),
)

// The API service's replies (only the fields used) and the tools' results.
@Serializable
private data class Product(val id: Int, val sku: String, val name: String, val price: Double, val rating: Double)

@Serializable
private data class SearchReply(val category: String, @SerialName("total_found") val totalFound: Int, val products: List<Product>)

@Serializable
private data class PricedCart(@SerialName("order_id") val orderId: String, val total: Double, @SerialName("items_count") val itemsCount: Int)

@Serializable
private data class CalculateRequest(@SerialName("user_id") val userId: String, val items: List<LineItem>)

@Serializable
private data class RankedProduct(
    val id: Int, val sku: String, val name: String, val price: Double, val rating: Double,
    @SerialName("popularity_rank") val popularityRank: Int,
)

@Serializable
private data class SearchResult(
    val category: String,
    @SerialName("total_found") val totalFound: Int,
    val products: List<RankedProduct>,
    @SerialName("top10_popular_ids") val top10PopularIds: List<Int>,
    @SerialName("server_type") val serverType: String,
)

@Serializable
private data class Cart(val items: JsonArray, @SerialName("item_count") val itemCount: Int, @SerialName("estimated_total") val estimatedTotal: Double)

@Serializable
private data class CartResult(
    @SerialName("user_id") val userId: String,
    val cart: Cart,
    @SerialName("recent_history") val recentHistory: List<JsonElement>,
    @SerialName("server_type") val serverType: String,
)

@Serializable
private data class HistoryEntry(@SerialName("user_id") val userId: String, val items: List<LineItem>, val ts: Long)

@Serializable
private data class CheckoutResult(
    @SerialName("order_id") val orderId: String,
    @SerialName("user_id") val userId: String,
    val total: Double,
    @SerialName("items_count") val itemsCount: Int,
    @SerialName("rate_limit_count") val rateLimitCount: Long,
    val status: String,
    @SerialName("server_type") val serverType: String,
)

/**
 * The three workload tools over one Lettuce connection and one Ktor HTTP client. Every tool is a suspend
 * function: its independent steps are started together with `async` and awaited, so they overlap without a
 * thread per call (Lettuce's futures and the CIO client complete on their own event loops).
 */
class Tools(redisUrl: String, apiUrl: String, private val serverType: String, cpus: Int) : AutoCloseable {

    // Lettuce's I/O and computation threads sized from CPU_LIMIT (its default is the host's core count);
    // its per-command latency statistics off (nothing reads them).
    private val resources = DefaultClientResources.builder()
        .ioThreadPoolSize(maxOf(2, cpus))
        .computationThreadPoolSize(maxOf(2, cpus))
        .commandLatencyRecorder(CommandLatencyRecorder.disabled())
        .build()
    private val redisClient = RedisClient.create(resources).apply {
        options = ClientOptions.builder().timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(10))).build()
    }

    // One multiplexed connection for every coroutine: Lettuce pipelines concurrent commands over it (its
    // intended use for non-blocking, non-transactional commands; a pool only helps blocking ones or MULTI).
    // Opened asynchronously so a start never blocks on Redis; the first command waits for it, and a failed
    // opening is retried by the next command (once open, Lettuce reconnects by itself).
    private val redisUri = RedisURI.create(redisUrl)
    @Volatile
    private var redis = connect()

    private fun connect() = redisClient.connectAsync(StringCodec.UTF8, redisUri).asDeferred()

    internal suspend fun commands(): RedisAsyncCommands<String, String> {
        val opening = redis
        try {
            return opening.await().async()
        } catch (e: RedisConnectionException) {
            if (redis === opening) redis = connect()
            throw e
        }
    }

    // HTTP/1.1 carries one request per connection: allow one per concurrent call (50 sessions), kept alive.
    private val http = HttpClient(CIO) {
        engine {
            maxConnectionsCount = 32 * cpus
            requestTimeout = 10_000
            endpoint {
                maxConnectionsPerRoute = 32 * cpus
                keepAliveTime = 30_000
                connectTimeout = 5_000
            }
        }
        expectSuccess = true // a non-2xx reply throws, and becomes the tool's isError result
        install(ContentNegotiation) { json(JSON) }
        defaultRequest { url(apiUrl.trimEnd('/') + "/") }
    }

    fun register(server: Server) {
        server.addTool(
            name = "search_products",
            description = "Search products by category and price range, ranked against the global popularity list.",
            inputSchema = schema {
                putJsonObject("category") { put("type", "string"); put("description", "Product category"); put("default", "Electronics") }
                putJsonObject("min_price") { put("type", "number"); put("description", "Lowest price"); put("default", 50.0) }
                putJsonObject("max_price") { put("type", "number"); put("description", "Highest price"); put("default", 500.0) }
                putJsonObject("limit") { put("type", "integer"); put("description", "Maximum number of products"); put("default", 10) }
            },
        ) { request -> searchProducts(args(request)) }
        server.addTool(
            name = "get_user_cart",
            description = "A user's cart and their five most recent orders.",
            inputSchema = schema { userId() },
        ) { request -> getUserCart(args(request)) }
        server.addTool(
            name = "checkout",
            description = "Price a cart through the API service, count the call against the user's rate limit and record the order.",
            inputSchema = schema {
                userId()
                putJsonObject("items") {
                    put("type", "array")
                    put("description", "Items to buy")
                    putJsonObject("items") {
                        put("type", "object")
                        putJsonObject("properties") {
                            putJsonObject("product_id") { put("type", "integer") }
                            putJsonObject("quantity") { put("type", "integer") }
                        }
                        putJsonArray("required") { add("product_id"); add("quantity") }
                    }
                    putJsonArray("default") {
                        add(buildJsonObject { put("product_id", 42); put("quantity", 2) })
                        add(buildJsonObject { put("product_id", 1337); put("quantity", 1) })
                    }
                }
            },
        ) { request -> checkout(args(request)) }
    }

    private suspend fun searchProducts(args: SearchArgs): CallToolResult = coroutineScope {
        val search = async {
            http.get("products/search") {
                parameter("category", args.category)
                parameter("min_price", args.minPrice)
                parameter("max_price", args.maxPrice)
                parameter("limit", args.limit)
            }.body<SearchReply>()
        }
        val popular = async { commands().zrevrange("bench:popular", 0, 9).await() }

        val top10 = popular.await().map { it.removePrefix("product:").toInt() }
        val found = search.await()
        result(SearchResult(
            category = found.category,
            totalFound = found.totalFound,
            products = found.products.map { RankedProduct(it.id, it.sku, it.name, it.price, it.rating, top10.indexOf(it.id) + 1) },
            top10PopularIds = top10,
            serverType = serverType,
        ))
    }

    private suspend fun getUserCart(args: CartArgs): CallToolResult = coroutineScope {
        val redis = commands()
        val cart = redis.hgetall("bench:cart:${args.userId}").await()
        val items = cart["items"]?.let { JSON.parseToJsonElement(it) as JsonArray } ?: JsonArray(emptyList())
        val firstProduct = items.firstOrNull()?.jsonObject?.get("product_id")?.jsonPrimitive?.int ?: 1

        val product = async { http.get("products/$firstProduct").body<JsonObject>() }
        val history = async { redis.lrange("bench:history:${args.userId}", 0, 4).await() }

        product.await()
        result(CartResult(
            userId = args.userId,
            cart = Cart(items, items.size, cart["total"]?.toDouble() ?: 0.0),
            recentHistory = history.await().map(JSON::parseToJsonElement),
            serverType = serverType,
        ))
    }

    private suspend fun checkout(args: CheckoutArgs): CallToolResult {
        // docs/workload.md §5: an empty order is a tool error, answered before any I/O.
        if (args.items.isEmpty()) return error("items must not be empty")
        return coroutineScope {
            val redis = commands()
            val priced = async {
                http.post("cart/calculate") {
                    contentType(ContentType.Application.Json)
                    setBody(CalculateRequest(args.userId, args.items))
                }.body<PricedCart>()
            }
            val entry = JSON.encodeToString(HistoryEntry(args.userId, args.items, System.currentTimeMillis() / 1000))
            val rateLimit = redis.incr("bench:ratelimit:${rateLimitBucket(args.userId)}").asDeferred()
            val recorded = redis.rpush("bench:history:${args.userId}", entry).asDeferred()
            val popularity = redis.zincrby("bench:popular", 1.0, "product:${args.items[0].productId}").asDeferred()

            recorded.await()
            popularity.await()
            val order = priced.await()
            result(CheckoutResult(order.orderId, args.userId, order.total, order.itemsCount, rateLimit.await(), "confirmed", serverType))
        }
    }

    /** GET /products/{id}: the API's body as it is, or null when the API answers 404. */
    internal suspend fun product(id: String): String? = try {
        http.get("products/$id").bodyAsText()
    } catch (e: ClientRequestException) {
        if (e.response.status == HttpStatusCode.NotFound) null else throw e
    }

    override fun close() {
        http.close()
        redisClient.shutdown(Duration.ZERO, Duration.ofSeconds(2))
        resources.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS)
    }
}

/** One of 100 rate-limit counters: the integer after the user id's last '-' (0 if it is not one), mod 100. */
internal fun rateLimitBucket(userId: String): String {
    val n = userId.substringAfterLast('-').toIntOrNull()?.takeIf { it >= 0 } ?: 0
    return "user-%05d".format(n % 100)
}

/**
 * Arguments bound from the call's `arguments` (absent → all defaults). A wrong type throws; the SDK turns an
 * exception from a tool into a result with `isError: true`.
 */
private inline fun <reified T> args(request: CallToolRequest): T =
    JSON.decodeFromJsonElement(request.arguments ?: JsonObject(emptyMap()))

private inline fun <reified T> result(value: T) = CallToolResult(content = listOf(TextContent(JSON.encodeToString(value))))

private fun error(message: String) = CallToolResult(content = listOf(TextContent(message)), isError = true)

private fun schema(properties: JsonObjectBuilder.() -> Unit) =
    ToolSchema(properties = buildJsonObject(properties))

private fun JsonObjectBuilder.userId() = putJsonObject("user_id") {
    put("type", "string"); put("description", "User id, e.g. user-00042"); put("default", "user-00042")
}
