package mcpbench.kotlin

import io.modelcontextprotocol.kotlin.sdk.server.Server
import io.modelcontextprotocol.kotlin.sdk.types.GetPromptResult
import io.modelcontextprotocol.kotlin.sdk.types.McpException
import io.modelcontextprotocol.kotlin.sdk.types.PromptArgument
import io.modelcontextprotocol.kotlin.sdk.types.PromptMessage
import io.modelcontextprotocol.kotlin.sdk.types.RPCError
import io.modelcontextprotocol.kotlin.sdk.types.ReadResourceResult
import io.modelcontextprotocol.kotlin.sdk.types.Role
import io.modelcontextprotocol.kotlin.sdk.types.ServerCapabilities
import io.modelcontextprotocol.kotlin.sdk.types.TextContent
import io.modelcontextprotocol.kotlin.sdk.types.TextResourceContents
import kotlinx.coroutines.future.await
import kotlinx.serialization.json.add
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.putJsonArray

// The surface (docs/workload.md §7) under DIMENSION_TOOLS=1: the resource template product://{id}, the resource
// bench://popular and the prompt cart_summary, with Server.addResourceTemplate / addResource / addPrompt. Unset,
// the server declares neither capability, so nothing changes on the wire. The completion of cart_summary's user_id
// is not served: 0.14.0's Server has no completion API (mcpbench.toml's unsupported.completion, README).

/** DIMENSION_TOOLS=1, the dimension tools' switch, also turns the surface on. */
internal val SURFACE = System.getenv("DIMENSION_TOOLS")?.trim() == "1"

/** The resources and prompts capabilities the surface needs (the SDK refuses to register either without its own). */
internal val surfaceResources = if (SURFACE) ServerCapabilities.Resources(listChanged = false, subscribe = false) else null
internal val surfacePrompts = if (SURFACE) ServerCapabilities.Prompts(listChanged = false) else null

private const val JSON_TYPE = "application/json"

fun registerSurface(server: Server, tools: Tools) {
    if (!SURFACE) return
    server.addResourceTemplate("product://{id}", "product", "A product of the catalog, read from the API service.", JSON_TYPE) { request, variables ->
        val uri = request.params.uri
        val product = tools.product(variables.getValue("id"))
            ?: throw McpException(RPCError.ErrorCode.RESOURCE_NOT_FOUND, "Resource not found: $uri")
        ReadResourceResult(listOf(TextResourceContents(text = product, uri = uri, mimeType = JSON_TYPE)))
    }
    server.addResource("bench://popular", "popular", "The ten most popular products, read from Redis.", JSON_TYPE) { request ->
        val top = tools.commands().zrevrange("bench:popular", 0, 9).await()
        val text = buildJsonObject { putJsonArray("popular") { top.forEach { add(it) } } }.toString()
        ReadResourceResult(listOf(TextResourceContents(text = text, uri = request.params.uri, mimeType = JSON_TYPE)))
    }
    server.addPrompt(
        name = "cart_summary",
        description = "Summarises a user's cart, read from Redis.",
        arguments = listOf(PromptArgument(name = "user_id", description = "the user whose cart is summarised", required = true)),
    ) { request ->
        val user = request.params.arguments?.get("user_id")
            ?: throw McpException(RPCError.ErrorCode.INVALID_PARAMS, "user_id is required")
        val cart = tools.commands().hgetall("bench:cart:$user").await()
        if (cart.isEmpty()) throw McpException(RPCError.ErrorCode.INVALID_PARAMS, "no cart for $user")
        GetPromptResult(messages = listOf(PromptMessage(Role.User,
            TextContent("Summarise the cart of $user: ${cart["items"]} (total ${cart["total"]})"))))
    }
}
