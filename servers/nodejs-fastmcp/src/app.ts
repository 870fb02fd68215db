// One server process: a FastMCP server with the three tools, on FastMCP's Streamable HTTP transport
// (stateless, JSON replies, unless SESSIONS=1: stateful; FastMCP runs it through mcp-proxy's node:http server) or on
// its stdio transport.
import type { IncomingMessage } from 'node:http';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { FastMCP, type Logger } from 'fastmcp';
import { addTools, closeBackends, connectBackends } from './tools.js';

export interface Config {
  stdio: boolean;
  host: string;
  port: number;
  allowedHosts: string[]; // ['*']: DNS-rebinding protection off (only the suite's measurement of its cost)
  redisUrl: string;
  apiUrl: string;
  serverType: string;
  sessions: boolean; // SESSIONS=1: FastMCP's stateful mode on HTTP (src/server.ts)
}

// The workload's limit (docs/server-contract.md): FastMCP does not pass mcp-proxy's maxBodySize on, so
// mcp-proxy's own 10 MiB cap applies to reading the body; the admission check below refuses more than 1 MiB.
const MAX_BODY_BYTES = 1024 * 1024;

// FastMCP logs each stateless request at debug level and its start-up at info level, to stdout by default
// (the stdio transport's wire); keep warnings and errors, on stderr.
const logger: Logger = {
  debug: () => {},
  info: () => {},
  log: () => {},
  warn: (...args) => console.error(...args),
  error: (...args) => console.error(...args),
};

const refuse = (status: number, message: string) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

// FastMCP's per-request hook on HTTP (`authenticate`: mcp-proxy calls it on every POST /mcp, and before it
// builds a server for any other MCP request) is the only place ahead of its MCP handler, so the DNS-rebinding
// protection runs there: the SDK's port-agnostic Host and Origin validators (@modelcontextprotocol/server,
// the SDK mcp-proxy serves with), given ALLOWED_HOSTS. A thrown Response is sent as it is. No session
// identity comes out of it: every admitted request gets the same empty auth object.
function admission(allowedHosts: string[] | undefined) {
  const admitted = {};
  return async (req: IncomingMessage) => {
    if (Number(req.headers['content-length']) > MAX_BODY_BYTES) {
      throw refuse(413, `Payload Too Large: request body exceeds ${MAX_BODY_BYTES} bytes`);
    }
    if (allowedHosts) {
      const host = validateHostHeader(req.headers.host, allowedHosts);
      if (!host.ok) throw refuse(403, host.message);
      const origin = validateOriginHeader(req.headers.origin, allowedHosts);
      if (!origin.ok) throw refuse(403, origin.message);
    }
    return admitted;
  };
}

export async function serve(config: Config): Promise<void> {
  if (config.stdio) console.log = console.info = console.debug = console.error; // stdout is the wire
  const backends = connectBackends(config.redisUrl, config.apiUrl, config.serverType);
  const unguarded = config.allowedHosts.length === 1 && config.allowedHosts[0] === '*';
  const server = new FastMCP({
    name: `mcpbench-${config.serverType}`,
    version: '1.0.0',
    logger,
    // stdio has no request to check (FastMCP would call it once, without one).
    authenticate: config.stdio ? undefined : admission(unguarded ? undefined : config.allowedHosts),
  });
  addTools(server, backends);

  // Closes once: a SIGTERM sent to the whole process group reaches a worker twice (directly and from the
  // primary). A signal exits once closed; the end of stdin lets the process end by itself, after the replies
  // already under way are written.
  let closing: Promise<void> | undefined;
  const stop = (exit: boolean) => {
    closing ??= (async () => {
      await server.stop(); // the HTTP server (connections still open after a 1 s grace are cut)
      await closeBackends(backends);
    })();
    if (exit) void closing.then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop(true)).once('SIGINT', () => stop(true));

  if (config.stdio) {
    // FastMCP closes its transport when stdin ends; the Redis connection and the HTTP pool are then all that
    // keep the process alive. Listened for before start(), which resolves only once the client's
    // capabilities are known (it polls for them up to 1 s): a client may be done by then.
    process.stdin.once('end', () => stop(false)).once('close', () => stop(false));
    await server.start({ transportType: 'stdio' });
  } else {
    // Stateless: a new session (SDK Server + transport) per request, no Mcp-Session-Id, GET/DELETE /mcp
    // answered 405; JSON replies instead of an SSE stream per POST, unless SSE_REPLIES=1 (the progress
    // dimension, docs/server-contract.md): a call's progress notifications can only ride on an SSE reply.
    // SESSIONS=1 (the abandoned dimension): FastMCP's own stateful mode (`stateless: false`, its default):
    // mcp-proxy issues Mcp-Session-Id at initialize and keeps the session until the client's DELETE or its own
    // idle reaper (mcp-proxy's default, which FastMCP does not change; README, "What FastMCP supports on HTTP"),
    // GET/DELETE served.
    const enableJsonResponse = process.env.SSE_REPLIES?.trim() !== '1';
    await server.start({
      transportType: 'httpStream',
      httpStream: {
        host: config.host,
        port: config.port,
        endpoint: '/mcp',
        stateless: !config.sessions,
        enableJsonResponse,
      },
    });
  }
}
