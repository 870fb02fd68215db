package mcpbench.kotlin

import io.modelcontextprotocol.kotlin.sdk.server.Server
import io.modelcontextprotocol.kotlin.sdk.types.CallToolResult
import io.modelcontextprotocol.kotlin.sdk.types.McpJson
import io.modelcontextprotocol.kotlin.sdk.types.ProgressNotification
import io.modelcontextprotocol.kotlin.sdk.types.ProgressNotificationParams
import io.modelcontextprotocol.kotlin.sdk.types.TextContent
import io.modelcontextprotocol.kotlin.sdk.types.ToolSchema
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.future.await
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.doubleOrNull
import kotlinx.serialization.json.put

// Issue 37 (tools/list at scale, reply size, streamed progress, cancellation): EXTRA_TOOLS=N registers
// extra_00001…N and DIMENSION_TOOLS=1 registers echo_payload, stream_progress and stepped_work, with Server.addTool
// and the contract's JSON schemas; off unless set.

private const val ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
private const val MAX_SIZE = 16 * 1024 * 1024
private const val MAX_COUNT = 1000
private const val MAX_KEY = 100
private const val MAX_STEPS = 1000
private const val MAX_INTERVAL_MS = 10_000

private val EXTRA_SCHEMA = McpJson.decodeFromString<ToolSchema>("""
    {"type": "object",
     "properties": {
       "query":   {"type": "string", "description": "free-text search query"},
       "limit":   {"type": "integer", "minimum": 1, "maximum": 100, "description": "how many records to return"},
       "sort":    {"type": "string", "enum": ["relevance", "price", "rating", "newest"], "description": "sort order"},
       "filters": {"type": "object", "description": "optional filters",
                   "properties": {"category": {"type": "string"}, "min_price": {"type": "number"},
                                  "in_stock": {"type": "boolean"}}}},
     "required": ["query"]}""")

private val ECHO_SCHEMA = McpJson.decodeFromString<ToolSchema>("""
    {"type": "object",
     "properties": {
       "size": {"type": "integer", "minimum": 0, "maximum": 16777216},
       "data": {"type": "string", "default": ""}},
     "required": ["size"]}""")

private val PROGRESS_SCHEMA = McpJson.decodeFromString<ToolSchema>("""
    {"type": "object",
     "properties": {"count": {"type": "integer", "minimum": 0, "maximum": 1000}},
     "required": ["count"]}""")

private val STEPS_SCHEMA = McpJson.decodeFromString<ToolSchema>("""
    {"type": "object",
     "properties": {
       "key":         {"type": "string", "minLength": 1, "maxLength": 100,
                       "description": "names the Redis list bench:steps:<key> the steps are appended to"},
       "steps":       {"type": "integer", "minimum": 1, "maximum": 1000, "description": "how many steps to do"},
       "interval_ms": {"type": "integer", "minimum": 0, "maximum": 10000, "description": "milliseconds between steps"}},
     "required": ["key", "steps", "interval_ms"]}""")

fun registerDimensionTools(server: Server, tools: Tools, serverType: String) {
    val extra = System.getenv("EXTRA_TOOLS")?.trim()?.takeIf { it.isNotEmpty() }?.toInt() ?: 0
    for (i in 1..extra) {
        val name = "extra_%05d".format(i)
        server.addTool(name, "Extra tool $i: a catalog lookup registered for the tools/list scale test.", EXTRA_SCHEMA) { request ->
            text(buildJsonObject {
                put("tool", name)
                put("query", request.arguments?.get("query") ?: JsonNull)
                put("server_type", serverType)
            }.toString())
        }
    }
    if (System.getenv("DIMENSION_TOOLS")?.trim() == "1") {
        server.addTool("echo_payload", "Returns size bytes of deterministic text and counts the characters of data.", ECHO_SCHEMA) { request ->
            val size = (request.arguments?.get("size") as? JsonPrimitive)?.takeUnless { it.isString }?.doubleOrNull
            if (size == null || size != Math.rint(size) || size < 0 || size > MAX_SIZE) {
                return@addTool CallToolResult(content = listOf(TextContent("size must be an integer from 0 to $MAX_SIZE")), isError = true)
            }
            val length = size.toInt()
            val data = (request.arguments?.get("data") as? JsonPrimitive)?.takeIf { it.isString }?.content ?: ""
            text(buildJsonObject {
                put("size", length)
                put("received", data.codePointCount(0, data.length))
                put("payload", ALPHABET.repeat(length / ALPHABET.length + 1).substring(0, length))
                put("server_type", serverType)
            }.toString())
        }
        server.addTool("stream_progress", "Sends count progress notifications, then answers.", PROGRESS_SCHEMA) { request ->
            val count = (request.arguments?.get("count") as? JsonPrimitive)?.takeUnless { it.isString }?.doubleOrNull
            if (count == null || count != Math.rint(count) || count < 0 || count > MAX_COUNT) {
                return@addTool CallToolResult(content = listOf(TextContent("count must be an integer from 0 to $MAX_COUNT")), isError = true)
            }
            val token = request.meta?.progressToken
            val total = count.toInt()
            if (token != null) {
                // Each one handed to the SDK before the next (notification suspends until the transport took it).
                // Over HTTP it goes nowhere: 0.14.0's transport answers a POST with JSON only and passes a call's
                // notifications to the standalone GET stream, which this stateless server has not (README,
                // mcpbench.toml's unsupported.progress). Over stdio they are written to stdout before the result.
                for (i in 1..total) {
                    notification(ProgressNotification(ProgressNotificationParams(token, i.toDouble(), count)))
                }
            }
            text(buildJsonObject {
                put("count", total)
                put("sent", if (token != null) total else 0)
                put("server_type", serverType)
            }.toString())
        }
        // Cancellation is the SDK's: coroutine cancellation of the call's handler, checked before each step (ensureActive)
        // and ending the wait (delay). 0.14.0 cancels a handler only with the coroutine that delivered its request (over
        // stateless HTTP the Ktor call's); it does not act on notifications/cancelled (README "Dimension tools").
        server.addTool("stepped_work", "Appends steps timestamps to a Redis list, interval_ms apart, with progress; stops when cancelled.", STEPS_SCHEMA) { request ->
            val key = (request.arguments?.get("key") as? JsonPrimitive)?.takeIf { it.isString }?.content
            val steps = request.arguments.integer("steps", 1..MAX_STEPS)
            val interval = request.arguments.integer("interval_ms", 0..MAX_INTERVAL_MS)
            if (key == null || key.codePointCount(0, key.length) !in 1..MAX_KEY || steps == null || interval == null) {
                return@addTool CallToolResult(content = listOf(TextContent(
                    "key must have 1 to $MAX_KEY characters, steps be an integer from 1 to $MAX_STEPS and interval_ms one from 0 to $MAX_INTERVAL_MS")), isError = true)
            }
            val token = request.meta?.progressToken
            val redis = tools.commands()
            for (i in 1..steps) {
                currentCoroutineContext().ensureActive()
                redis.rpush("bench:steps:$key", System.currentTimeMillis().toString()).await()
                if (token != null) notification(ProgressNotification(ProgressNotificationParams(token, i.toDouble(), steps.toDouble())))
                if (i < steps) delay(interval.toLong())
            }
            text(buildJsonObject {
                put("key", key)
                put("steps", steps)
                put("server_type", serverType)
            }.toString())
        }
    }
}

/** An integer argument within range (a whole JSON number, not a string), else null. */
private fun JsonObject?.integer(name: String, range: IntRange): Int? =
    (this?.get(name) as? JsonPrimitive)?.takeUnless { it.isString }?.doubleOrNull
        ?.takeIf { it == Math.rint(it) && it >= range.first && it <= range.last }?.toInt()

private fun text(json: String) = CallToolResult(content = listOf(TextContent(json)))
