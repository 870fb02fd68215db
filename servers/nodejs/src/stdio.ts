// One server process on MCP's stdio transport: newline-delimited JSON-RPC on stdin/stdout, the same tools as
// the HTTP mode. `serveStdio` is the SDK's stdio entry over its `StdioServerTransport`; like the HTTP mode it
// serves both protocol eras: the opening message (a 2025-era `initialize`, or a 2026-07-28 request with its
// `_meta` envelope) pins one McpServer from the factory for the whole connection.
//
// Requests run concurrently: the transport hands each complete line to `onmessage` as soon as it is read
// (@modelcontextprotocol/server 2.4.0 dist/stdio.mjs:80-88); once the era is pinned, serveStdio's queue only
// forwards each message to the instance (stdio.mjs:428-438, 533-549), and the Protocol starts every request's
// handler on a promise without awaiting it (dist/src-DdvbAHrR.mjs:6405-6408, 6545). Many tools/call are
// therefore in flight at once on the one event loop, their Redis and HTTP waits overlapping as in HTTP mode.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { closeBackends, connectBackends, newMcpServer } from './tools.js';

export function serveOverStdio(redisUrl: string, apiUrl: string, serverType: string) {
  // stdout is the wire: whatever anything logs goes to stderr.
  console.log = console.info = console.debug = console.error;
  const backends = connectBackends(redisUrl, apiUrl, serverType);
  const connection = serveStdio(() => newMcpServer(backends), {
    onerror: (err) => console.error(`mcp: ${err.message}`),
  });

  // The transport closes itself when stdin ends (calls still in flight then go unanswered: the client has
  // left); the Redis connection and the HTTP pool are then all that keep the process alive.
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await connection.close();
    await closeBackends(backends);
  };
  process.stdin.once('end', stop).once('close', stop);
  process.once('SIGTERM', stop).once('SIGINT', stop);
}
