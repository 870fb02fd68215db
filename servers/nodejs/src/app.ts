// One server process: Express 5 + the MCP SDK (v2) on Streamable HTTP, stateless with JSON replies, serving
// both protocol eras: 2025-era requests (initialize, no per-request envelope) and 2026-07-28 requests
// (no handshake; protocol version and client info in every request's `_meta`). SESSIONS=1 switches the
// 2025 era to the SDK's stateful transport (sessions kept until DELETE).
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler, type Request, type Response } from 'express';
import { classifyInboundRequest, createMcpHandler, isInitializeRequest } from '@modelcontextprotocol/server';
import {
  NodeStreamableHTTPServerTransport,
  hostHeaderValidation,
  originValidation,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import { closeBackends, connectBackends, newMcpServer } from './tools.js';

export interface Config {
  host: string;
  port: number;
  allowedHosts?: string[]; // undefined: DNS-rebinding protection off (ALLOWED_HOSTS=*)
  redisUrl: string;
  apiUrl: string;
  serverType: string;
  sessions: boolean; // SESSIONS=1: the SDK's stateful transport for the 2025 era (src/server.ts)
}

function jsonRpcError(res: Response, status: number, code: number, message: string) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export function serve(config: Config, onListening: () => void) {
  const backends = connectBackends(config.redisUrl, config.apiUrl, config.serverType);

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // The SDK's DNS-rebinding guards (port-agnostic host names), ahead of the body parser so that a refused
  // request is never read; each answers 403 itself when it refuses.
  if (config.allowedHosts) {
    const validHost = hostHeaderValidation(config.allowedHosts);
    const validOrigin = originValidation(config.allowedHosts);
    const guard: RequestHandler = (req, res, next) => void (validHost(req, res) && validOrigin(req, res) && next());
    app.use('/mcp', guard);
  }
  app.use(express.json({ limit: '1mb' }));

  // SSE_REPLIES=1 (the progress dimension, docs/server-contract.md): SSE replies instead of JSON on both paths,
  // so that a call's progress notifications can ride on its reply; unset, JSON replies as always.
  const sseReplies = process.env.SSE_REPLIES?.trim() === '1';

  // 2026-07-28 requests (and the modern path's own rejections: a bad envelope, header/body mismatches):
  // the SDK's per-request entry, JSON replies. `legacy: 'reject'` because 2025-era requests never get
  // here: its built-in legacy fallback would answer them with SSE (it builds its transport without
  // enableJsonResponse), so they are served below instead.
  const modern = toNodeHandler(
    createMcpHandler(() => newMcpServer(backends), {
      legacy: 'reject',
      responseMode: sseReplies ? 'sse' : 'json',
      keepAliveMs: 0,
      onerror: (err) => console.error(`mcp: ${err.message}`),
    }),
  );

  app.post('/mcp', async (req: Request, res: Response) => {
    // The SDK's own era classifier (what createMcpHandler and isLegacyRequest run), on the headers and the
    // body Express has parsed: no web Request is built for a 2025-era request.
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: req.get('mcp-protocol-version'),
      mcpMethodHeader: req.get('mcp-method'),
      mcpNameHeader: req.get('mcp-name'),
      body: req.body,
    });
    if (route.kind !== 'legacy') return modern(req, res, req.body);
    if (config.sessions) return kept(req, res);
    // 2025 era, stateless (no session id is issued): a fresh McpServer and transport per request.
    const server = newMcpServer(backends);
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !sseReplies,
    });
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  // SESSIONS=1 (the abandoned dimension, docs/server-contract.md): the SDK's stateful mode, as its stateful
  // examples do it: an initialize without a session id gets a new McpServer and a transport with a
  // sessionIdGenerator, which issues Mcp-Session-Id; the transport is kept by that id until it closes (the
  // client's DELETE: the SDK answers it and closes the transport). No timeout of our own, and the SDK has none:
  // a session nobody DELETEs is kept for the life of the process. Replies as without it (JSON unless
  // SSE_REPLIES=1); 2026-07-28 requests (no sessions in that revision) are served per request as above.
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
  const kept = async (req: Request, res: Response) => {
    const sessionId = req.get('mcp-session-id');
    const known = sessionId === undefined ? undefined : transports.get(sessionId);
    if (known) return known.handleRequest(req, res, req.body);
    // An id this process does not hold (never issued, or DELETEd): the 404 the SDK's transport answers for an id
    // that is not its own (validateSession), so that the client starts a new session.
    if (sessionId !== undefined) return jsonRpcError(res, 404, -32001, 'Session not found');
    if (!isInitializeRequest(req.body)) {
      return jsonRpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    }
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: !sseReplies,
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
    };
    await newMcpServer(backends).connect(transport);
    await transport.handleRequest(req, res, req.body);
  };
  if (config.sessions) {
    // A session's standalone SSE stream (GET) and its end (DELETE) go to the transport that holds it.
    const session = async (req: Request, res: Response) => {
      const sessionId = req.get('mcp-session-id');
      if (sessionId === undefined) {
        return jsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      }
      const transport = transports.get(sessionId);
      if (!transport) return jsonRpcError(res, 404, -32001, 'Session not found');
      await transport.handleRequest(req, res);
    };
    app.get('/mcp', session);
    app.delete('/mcp', session);
  }
  // Stateless (SESSIONS unset): there is no session to stream on (GET) or to end (DELETE).
  app.all('/mcp', (_req, res) => jsonRpcError(res, 405, -32000, 'Method not allowed.'));
  app.get('/health', (_req, res) => void res.json({ status: 'ok', server_type: config.serverType }));

  // Replaces Express's default handler, which answers HTML and logs a stack trace for every bad body.
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const status: number = err.status ?? err.statusCode ?? 500;
    if (status >= 500) console.error(err);
    if (res.headersSent) return void res.end();
    if (err.type === 'entity.parse.failed') return jsonRpcError(res, 400, -32700, 'Parse error');
    jsonRpcError(res, status, status < 500 ? -32600 : -32603, status < 500 ? err.message : 'Internal error');
  };
  app.use(onError);

  const http: Server = app.listen(config.port, config.host, (err?: Error) => {
    if (err) throw err;
    onListening();
  });

  // Idempotent: a SIGTERM sent to the whole process group reaches a worker twice (directly and from
  // the primary), and a second default SIGTERM would cut the shutdown short.
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    http.close();
    http.closeAllConnections();
    await closeBackends(backends);
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
