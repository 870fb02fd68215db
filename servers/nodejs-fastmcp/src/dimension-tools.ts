// Issue 37's dimension tools (tools/list at scale, payload size, streamed progress, cancellation): EXTRA_TOOLS=N
// catalog tools and, with DIMENSION_TOOLS=1, echo_payload, stream_progress and stepped_work; off unless the contract
// settings turn them on (docs/workload.md §6). DIMENSION_TOOLS=1 also adds the surface (src/surface.ts, §7).
import { setTimeout as sleep } from 'node:timers/promises';
import { jsonSchemaAdapter, type FastMCP } from 'fastmcp';
import { addSurface } from './surface.js';
import type { Backends } from './tools.js';

const extraTools = /^\d+$/.test(process.env.EXTRA_TOOLS?.trim() ?? '') ? Number(process.env.EXTRA_TOOLS) : 0;
const dimensionTools = process.env.DIMENSION_TOOLS?.trim() === '1';

// FastMCP's adapter for a plain JSON Schema (validated by the `ajv` its optional peer dependency names, compiled
// on first use); one adapter for all the extra tools, so it is compiled once.
const extraSchema = jsonSchemaAdapter({
  type: 'object',
  properties: {
    query: { type: 'string', description: 'free-text search query' },
    limit: { type: 'integer', minimum: 1, maximum: 100, description: 'how many records to return' },
    sort: { type: 'string', enum: ['relevance', 'price', 'rating', 'newest'], description: 'sort order' },
    filters: {
      type: 'object',
      description: 'optional filters',
      properties: { category: { type: 'string' }, min_price: { type: 'number' }, in_stock: { type: 'boolean' } },
    },
  },
  required: ['query'],
});
const echoSchema = jsonSchemaAdapter({
  type: 'object',
  properties: {
    size: { type: 'integer', minimum: 0, maximum: 16777216, description: 'how many characters of payload to return' },
    data: { type: 'string', default: '', description: 'characters to count (the request size)' },
  },
  required: ['size'],
});
const progressSchema = jsonSchemaAdapter({
  type: 'object',
  properties: {
    count: { type: 'integer', minimum: 0, maximum: 1000, description: 'how many progress notifications to send' },
  },
  required: ['count'],
});
const steppedSchema = jsonSchemaAdapter({
  type: 'object',
  properties: {
    key: { type: 'string', minLength: 1, maxLength: 100, description: 'names the Redis list bench:steps:<key> the steps are appended to' },
    steps: { type: 'integer', minimum: 1, maximum: 1000, description: 'how many steps to do' },
    interval_ms: { type: 'integer', minimum: 0, maximum: 10000, description: 'milliseconds between steps' },
  },
  required: ['key', 'steps', 'interval_ms'],
});

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const payload = (size: number) => ALPHABET.repeat(Math.ceil(size / 64)).slice(0, size);
// Characters (code points), not UTF-16 units: a surrogate pair counts once.
const characters = (s: string) => s.length - (s.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);

export function addDimensionTools(server: FastMCP, backends: Backends): void {
  const { redis, serverType } = backends;
  for (let i = 1; i <= extraTools; i++) {
    const name = `extra_${String(i).padStart(5, '0')}`;
    server.addTool({
      name,
      description: `Extra tool ${i}: a catalog lookup registered for the tools/list scale test.`,
      parameters: extraSchema,
      execute: async (args) => JSON.stringify({ tool: name, query: (args as { query: string }).query, server_type: serverType }),
    });
  }
  if (dimensionTools) {
    addSurface(server, backends);
    server.addTool({
      name: 'echo_payload',
      description: 'Returns size bytes of deterministic text and counts the characters of data.',
      parameters: echoSchema,
      execute: async (args) => {
        const { size, data = '' } = args as { size: number; data?: string };
        return JSON.stringify({ size, received: characters(data), payload: payload(size), server_type: serverType });
      },
    });
    // FastMCP's reportProgress sends a notifications/progress related to this call (the SDK's
    // extra.sendNotification), so it rides on the call's SSE reply (app.ts: SSE under SSE_REPLIES=1). Without a
    // progress token it is a silent no-op, and FastMCP's Context does not expose the token; it reads the fields of
    // the Progress it is given only when it builds a notification, so a getter counts the ones actually sent.
    server.addTool({
      name: 'stream_progress',
      description: 'Sends count progress notifications, then answers.',
      parameters: progressSchema,
      execute: async (args, { reportProgress }) => {
        const { count } = args as { count: number };
        let sent = 0;
        for (let i = 1; i <= count; i++) {
          await reportProgress({
            get progress() {
              sent++;
              return i;
            },
            total: count,
          });
        }
        return JSON.stringify({ count, sent, server_type: serverType });
      },
    });
    // Cancellation is FastMCP's: the Context's `signal`, aborted on the call's notifications/cancelled (the SDK's
    // extra.signal), when its session closes, or on the tool's timeoutMs (none here) (fastmcp/dist/chunk-*.js,
    // FastMCPSession's tools/call handler). Checked before each step; it ends the wait too.
    server.addTool({
      name: 'stepped_work',
      description: 'Appends steps timestamps to a Redis list, interval_ms apart, with progress; stops when cancelled.',
      parameters: steppedSchema,
      execute: async (args, { reportProgress, signal }) => {
        const { key, steps, interval_ms } = args as { key: string; steps: number; interval_ms: number };
        for (let i = 1; i <= steps; i++) {
          signal.throwIfAborted();
          await redis.rpush(`bench:steps:${key}`, String(Date.now()));
          await reportProgress({ progress: i, total: steps });
          if (i < steps) await sleep(interval_ms, undefined, { signal });
        }
        return JSON.stringify({ key, steps, server_type: serverType });
      },
    });
  }
}
