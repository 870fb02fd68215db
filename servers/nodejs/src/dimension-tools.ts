// Issue 37's dimension tools (tools/list at scale, payload size, streamed progress, cancellation): EXTRA_TOOLS=N
// catalog tools and, with DIMENSION_TOOLS=1, echo_payload, stream_progress and stepped_work; off unless the contract
// settings turn them on (docs/workload.md §6). DIMENSION_TOOLS=1 also adds the surface (src/surface.ts, §7).
import { setTimeout as sleep } from 'node:timers/promises';
import { fromJsonSchema, type CallToolResult, type jsonSchemaValidator, type McpServer } from '@modelcontextprotocol/server';
import { addSurface } from './surface.js';
import type { Backends } from './tools.js';

const extraTools = /^\d+$/.test(process.env.EXTRA_TOOLS?.trim() ?? '') ? Number(process.env.EXTRA_TOOLS) : 0;
const dimensionTools = process.env.DIMENSION_TOOLS?.trim() === '1';

const extraSchema = {
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
};
const echoSchema = {
  type: 'object',
  properties: {
    size: { type: 'integer', minimum: 0, maximum: 16777216, description: 'how many characters of payload to return' },
    data: { type: 'string', default: '', description: 'characters to count (the request size)' },
  },
  required: ['size'],
};
const progressSchema = {
  type: 'object',
  properties: {
    count: { type: 'integer', minimum: 0, maximum: 1000, description: 'how many progress notifications to send' },
  },
  required: ['count'],
};
const steppedSchema = {
  type: 'object',
  properties: {
    key: { type: 'string', minLength: 1, maxLength: 100, description: 'names the Redis list bench:steps:<key> the steps are appended to' },
    steps: { type: 'integer', minimum: 1, maximum: 1000, description: 'how many steps to do' },
    interval_ms: { type: 'integer', minimum: 0, maximum: 10000, description: 'milliseconds between steps' },
  },
  required: ['key', 'steps', 'interval_ms'],
};

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const payload = (size: number) => ALPHABET.repeat(Math.ceil(size / 64)).slice(0, size);
// Characters (code points), not UTF-16 units: a surrogate pair counts once.
const characters = (s: string) => s.length - (s.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
const text = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

type Schema = ReturnType<typeof fromJsonSchema>;
type Schemas = { extra: Schema; echo: Schema; progress: Schema; stepped: Schema };
let schemas: Schemas | undefined;

// Called for every McpServer (one per request): the JSON schemas are wrapped (and compiled by the shared
// validator) once per process, the registrations are the SDK's registerTool like the workload tools'.
export function addDimensionTools(server: McpServer, backends: Backends, validator: jsonSchemaValidator): void {
  const { redis, serverType } = backends;
  if (extraTools === 0 && !dimensionTools) return;
  schemas ??= {
    extra: fromJsonSchema(extraSchema, validator),
    echo: fromJsonSchema(echoSchema, validator),
    progress: fromJsonSchema(progressSchema, validator),
    stepped: fromJsonSchema(steppedSchema, validator),
  };
  for (let i = 1; i <= extraTools; i++) {
    const name = `extra_${String(i).padStart(5, '0')}`;
    server.registerTool(
      name,
      { description: `Extra tool ${i}: a catalog lookup registered for the tools/list scale test.`, inputSchema: schemas.extra },
      (args) => text({ tool: name, query: (args as { query: string }).query, server_type: serverType }),
    );
  }
  if (dimensionTools) {
    addSurface(server, backends);
    server.registerTool(
      'echo_payload',
      { description: 'Returns size bytes of deterministic text and counts the characters of data.', inputSchema: schemas.echo },
      (args) => {
        const { size, data = '' } = args as { size: number; data?: string };
        return text({ size, received: characters(data), payload: payload(size), server_type: serverType });
      },
    );
    // The SDK's request-scoped notify: the notification is related to this call, so the transport writes it on
    // the call's own SSE reply (JSON replies have nowhere to put it: app.ts switches to SSE under SSE_REPLIES=1).
    server.registerTool(
      'stream_progress',
      { description: 'Sends count progress notifications, then answers.', inputSchema: schemas.progress },
      async (args, ctx) => {
        const { count } = args as { count: number };
        const progressToken = ctx.mcpReq._meta?.progressToken;
        if (progressToken === undefined) return text({ count, sent: 0, server_type: serverType });
        for (let progress = 1; progress <= count; progress++) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: count } });
        }
        return text({ count, sent: count, server_type: serverType });
      },
    );
    // Cancellation is the SDK's: ctx.mcpReq.signal, which the Protocol aborts on the call's notifications/cancelled
    // and when the call's transport closes (_oncancel, _onclose in @modelcontextprotocol/server's dist/src-*.mjs),
    // e.g. a stateless request whose client hung up (app.ts closes its McpServer then). Checked before each step;
    // it ends the wait too. The abort's rejection is the handler's end: the SDK sends nothing for an aborted call.
    server.registerTool(
      'stepped_work',
      {
        description: 'Appends steps timestamps to a Redis list, interval_ms apart, with progress; stops when cancelled.',
        inputSchema: schemas.stepped,
      },
      async (args, ctx) => {
        const { key, steps, interval_ms } = args as { key: string; steps: number; interval_ms: number };
        const { signal, _meta } = ctx.mcpReq;
        const progressToken = _meta?.progressToken;
        for (let progress = 1; progress <= steps; progress++) {
          signal.throwIfAborted();
          await redis.rpush(`bench:steps:${key}`, String(Date.now()));
          if (progressToken !== undefined) {
            await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: steps } });
          }
          if (progress < steps) await sleep(interval_ms, undefined, { signal });
        }
        return text({ key, steps, server_type: serverType });
      },
    );
  }
}
