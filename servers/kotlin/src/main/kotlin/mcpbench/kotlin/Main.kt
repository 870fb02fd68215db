package mcpbench.kotlin

import io.ktor.http.ContentType
import io.ktor.http.HttpHeaders
import io.ktor.http.HttpMethod
import io.ktor.http.HttpStatusCode
import io.ktor.serialization.kotlinx.json.json
import io.ktor.server.application.Application
import io.ktor.server.application.ApplicationCall
import io.ktor.server.application.ApplicationCallPipeline
import io.ktor.server.application.ApplicationStopped
import io.ktor.server.application.call
import io.ktor.server.application.install
import io.ktor.server.engine.connector
import io.ktor.server.engine.embeddedServer
import io.ktor.server.netty.Netty
import io.ktor.server.plugins.contentnegotiation.ContentNegotiation
import io.ktor.server.request.header
import io.ktor.server.request.httpMethod
import io.ktor.server.response.header
import io.ktor.server.response.respond
import io.ktor.server.response.respondText
import io.ktor.server.routing.Route
import io.ktor.server.routing.RoutingContext
import io.ktor.server.routing.delete
import io.ktor.server.routing.get
import io.ktor.server.routing.post
import io.ktor.server.routing.route
import io.ktor.server.routing.routing
import io.ktor.server.sse.SSE
import io.ktor.server.sse.sse
import io.modelcontextprotocol.kotlin.sdk.server.DnsRebindingProtection
import io.modelcontextprotocol.kotlin.sdk.server.Server
import io.modelcontextprotocol.kotlin.sdk.server.ServerOptions
import io.modelcontextprotocol.kotlin.sdk.server.StdioServerTransport
import io.modelcontextprotocol.kotlin.sdk.server.StreamableHttpServerTransport
import io.modelcontextprotocol.kotlin.sdk.shared.Transport
import io.modelcontextprotocol.kotlin.sdk.types.Implementation
import io.modelcontextprotocol.kotlin.sdk.types.JSONRPCError
import io.modelcontextprotocol.kotlin.sdk.types.JSONRPCMessage
import io.modelcontextprotocol.kotlin.sdk.types.JSONRPCRequest
import io.modelcontextprotocol.kotlin.sdk.types.McpJson
import io.modelcontextprotocol.kotlin.sdk.types.RPCError
import io.modelcontextprotocol.kotlin.sdk.types.ServerCapabilities
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.io.asSink
import kotlinx.io.asSource
import kotlinx.io.buffered
import kotlinx.serialization.encodeToString
import java.util.concurrent.ConcurrentHashMap
import kotlin.math.ceil
import kotlin.system.exitProcess

/** Every configuration value comes from the environment (docs/server-contract.md). */
private fun env(name: String, default: String) = System.getenv(name)?.takeIf { it.isNotBlank() } ?: default

/** Cores granted: CPU_LIMIT rounded up, else what the JVM sees (it reads the cgroup quota itself). */
private val CPUS = System.getenv("CPU_LIMIT")?.trim()?.toDoubleOrNull()?.let { maxOf(1, ceil(it).toInt()) }
    ?: Runtime.getRuntime().availableProcessors()

/**
 * An MCP server with the tools: one for every request, whose session is created and closed around it (stateless), or
 * one per session (SESSIONS=1).
 */
private fun mcpServer(tools: Tools) = Server(
    Implementation(name = "mcpbench-kotlin", version = "1.0.0"),
    ServerOptions(capabilities = ServerCapabilities(
        tools = ServerCapabilities.Tools(listChanged = false),
        resources = surfaceResources, // null unless DIMENSION_TOOLS=1 (Surface.kt)
        prompts = surfacePrompts,
    )),
) {
    tools.register(this)
    registerDimensionTools(this, tools, env("SERVER_TYPE", "kotlin")) // issue 37's tools, off unless EXTRA_TOOLS / DIMENSION_TOOLS
    registerSurface(this, tools) // docs/workload.md §7, off unless DIMENSION_TOOLS
}

fun main(args: Array<String>) {
    // kotlin-logging (the SDK's logging facade) prints a start-up line to stdout, which under --stdio
    // carries only JSON-RPC: switch it off before the first SDK class initialises its logger.
    System.setProperty("kotlin-logging.logStartupMessage", "false")
    val tools = Tools(
        redisUrl = env("REDIS_URL", "redis://127.0.0.1:6379"),
        apiUrl = env("API_SERVICE_URL", "http://127.0.0.1:8100"),
        serverType = env("SERVER_TYPE", "kotlin"),
        cpus = CPUS,
    )
    if ("--stdio" in args) serveStdio(tools) else serveHttp(tools)
}

private fun serveHttp(tools: Tools) {
    // ALLOWED_HOSTS (contract): host names without ports; unset → the loopback names; "*" → no check.
    val allowedHosts = env("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(',').map { it.trim() }.filter { it.isNotEmpty() }
    // SESSIONS=1 (contract; the abandoned dimension): the SDK's stateful streamable HTTP instead of the stateless one.
    val sessions = System.getenv("SESSIONS")?.trim() == "1"
    val engine = embeddedServer(
        Netty,
        configure = {
            connector {
                host = env("HOST", "127.0.0.1")
                port = env("PORT", "8080").toInt()
            }
            // Netty event loops sized from CPU_LIMIT (Ktor's defaults follow the JVM's processor count):
            // one acceptor, then a worker loop and a call loop per core. Calls never block (every tool
            // suspends), so more threads would only add context switches on 1-2 cores.
            connectionGroupSize = 1
            workerGroupSize = CPUS
            callGroupSize = CPUS
            shutdownGracePeriod = 1_000
            shutdownTimeout = 5_000
        },
    ) {
        val hosts = allowedHosts.takeUnless { "*" in it }
        if (sessions) mcpSessionRoutes(tools, hosts) else mcpRoutes(mcpServer(tools), hosts)
    }

    if (System.getProperty("mcpbench.cds.training").toBoolean()) {
        // Class-data-sharing training run (build.sh, Dockerfile; docs/jvm-policy.md): the application and
        // its HTTP server are up, i.e. every class a start loads is loaded. Stop and exit; the JVM writes
        // the archive (-XX:ArchiveClassesAtExit) on the way out.
        engine.start(wait = false)
        engine.stop(0, 0)
        tools.close()
        exitProcess(0)
    }
    // SIGTERM: Ktor's shutdown hook stops the engine (graceful, at most shutdownTimeout); once it has
    // stopped, the clients close.
    engine.monitor.subscribe(ApplicationStopped) { tools.close() }
    engine.start(wait = true)
}

/**
 * Stateless streamable HTTP on /mcp with JSON replies, from the SDK's parts: what the SDK's own
 * `Application.mcpStatelessStreamableHttp` does (its DNS-rebinding plugin on the route, a
 * `StreamableHttpServerTransport` with `enableJsonResponse` and no session id per POST, 405 for GET and
 * DELETE), plus two things 0.14.0's helper lacks (README "Pitfalls"): the per-request session is closed
 * after the request (upstream fix #872, after 0.14.0; without it every request leaves a session and its
 * notification job registered in the shared server), and the body limit is 1 MiB instead of its fixed 4 MiB.
 */
private fun Application.mcpRoutes(server: Server, allowedHosts: List<String>?) {
    install(ContentNegotiation) { json(McpJson) } // the SDK's JSON settings for JSON-RPC replies
    routing {
        route("/mcp") {
            dnsRebindingProtection(allowedHosts)
            post {
                val transport = StreamableHttpServerTransport(HTTP_TRANSPORT).apply { setSessionIdGenerator(null) }
                val session = server.createSession(transport)
                try {
                    transport.handleRequest(null, call)
                } finally {
                    withContext(NonCancellable) { session.close() }
                }
            }
            get { methodNotAllowed() }
            delete { methodNotAllowed() }
        }
    }
}

/**
 * SESSIONS=1: stateful streamable HTTP on /mcp, the SDK's own `Application.mcpStreamableHttp` (KtorServer.kt in
 * 0.14.0) rebuilt from its public parts as [mcpRoutes] is, for the 1 MiB body limit its helper cannot be given: a
 * POST without Mcp-Session-Id gets a transport and a `Server` of its own (the helper's factory block), initialize
 * issues the id and files the transport under it, later requests with the id reach it (400 without one, 404 for an
 * unknown one), GET opens its standalone SSE stream, DELETE closes it. JSON replies, as the helper sets. The SDK has
 * no idle timeout: a session nobody DELETEs stays in the map until the process ends (README).
 */
private fun Application.mcpSessionRoutes(tools: Tools, allowedHosts: List<String>?) {
    install(ContentNegotiation) { json(McpJson) }
    install(SSE)
    val sessions = ConcurrentHashMap<String, StreamableHttpServerTransport>()
    routing {
        route("/mcp") {
            dnsRebindingProtection(allowedHosts)
            // GET: the session's standalone SSE stream; a missing or unknown id is answered before sse {} sends a 200.
            intercept(ApplicationCallPipeline.Plugins) {
                if (call.request.httpMethod == HttpMethod.Get && sessions.of(call) == null) finish()
            }
            sse { call.request.header(SESSION_ID)?.let { sessions[it] }?.handleRequest(this, call) }
            post {
                val transport = if (call.request.header(SESSION_ID) != null) {
                    sessions.of(call) ?: return@post
                } else {
                    StreamableHttpServerTransport(HTTP_TRANSPORT).apply {
                        setOnSessionInitialized { sessions[it] = this }
                        setOnSessionClosed { sessions.remove(it) }
                        mcpServer(tools).createSession(this)
                    }
                }
                transport.handleRequest(null, call)
            }
            delete { sessions.of(call)?.handleRequest(null, call) }
        }
    }
}

private const val SESSION_ID = "Mcp-Session-Id"

/**
 * The transport of the request's session, or null once the SDK helper's refusal is sent: 400 without an id, 404 for an
 * unknown one.
 */
private suspend fun Map<String, StreamableHttpServerTransport>.of(call: ApplicationCall): StreamableHttpServerTransport? {
    val id = call.request.header(SESSION_ID)
    val transport = id?.let { this[it] }
    if (transport == null) {
        val (status, message) = if (id == null) HttpStatusCode.BadRequest to "Bad Request: No valid session ID provided"
            else HttpStatusCode.NotFound to "Session not found"
        // As JSON whatever the request accepts (a GET accepts only text/event-stream), as the SDK's Host check answers.
        val error = JSONRPCError(id = null, error = RPCError(RPCError.ErrorCode.CONNECTION_CLOSED, message))
        call.respondText(McpJson.encodeToString(error), ContentType.Application.Json, status)
    }
    return transport
}

/**
 * The SDK's own check: Host, and Origin when sent, must name a listed host (port ignored, case-insensitive);
 * anything else gets 403 before a handler runs. Null: no check (ALLOWED_HOSTS=*).
 */
private fun Route.dnsRebindingProtection(allowedHosts: List<String>?) {
    if (allowedHosts == null) return
    install(DnsRebindingProtection) {
        this.allowedHosts = allowedHosts
        allowedOrigins = allowedHosts.map { "http://$it" } // compared by host name only
    }
}

private val HTTP_TRANSPORT = StreamableHttpServerTransport.Configuration(
    enableJsonResponse = true,
    maxRequestBodySize = 1L shl 20, // a JSON-RPC message here is a few hundred bytes: 413 past 1 MiB
)

private suspend fun RoutingContext.methodNotAllowed() {
    call.response.header(HttpHeaders.Allow, "POST")
    call.respond(HttpStatusCode.MethodNotAllowed,
        JSONRPCError(id = null, error = RPCError(RPCError.ErrorCode.CONNECTION_CLOSED, "Method not allowed.")))
}

/**
 * MCP over stdin/stdout with the SDK's StdioServerTransport: one session; the process ends when stdin does.
 * Logs go to stderr (logback.xml), so stdout carries nothing but JSON-RPC.
 */
private fun serveStdio(tools: Tools): Unit = runBlocking {
    val server = mcpServer(tools)
    val transport = StdioServerTransport(System.`in`.asSource().buffered(), System.out.asSink().buffered())
    val closed = CompletableDeferred<Unit>()
    transport.onClose { closed.complete(Unit) }
    server.createSession(ConcurrentRequests(transport, CoroutineScope(SupervisorJob() + Dispatchers.Default)))
    closed.await()
    tools.close()
    exitProcess(0)
}

/**
 * The SDK's stdio transport hands messages to the session one at a time and waits for each to be handled,
 * so a slow call would hold up every call behind it. Here each request is handled in a coroutine of its
 * own (notifications stay in order); replies go through the transport's writer as they complete. Replies
 * to requests still in flight when stdin closes are not written (the transport closes its output then).
 */
private class ConcurrentRequests(private val transport: Transport, private val scope: CoroutineScope) : Transport by transport {
    override fun onMessage(block: suspend (JSONRPCMessage) -> Unit) = transport.onMessage { message ->
        if (message is JSONRPCRequest) scope.launch { block(message) } else block(message)
    }
}
