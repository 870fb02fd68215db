// The three workload tools and the two backends they talk to (Redis, the product API service).
import { McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { addDimensionTools } from './dimension-tools.js';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import * as z from 'zod';

export interface Backends {
  redis: Redis;
  api: ApiClient;
  serverType: string;
}

export interface ApiClient {
  get(path: string): Promise<any>;
  post(path: string, body: unknown): Promise<any>;
  close(): Promise<void>;
}

// One process's clients: one Redis connection (Redis executes commands one at a time anyway, and
// auto-pipelining batches every command issued in the same event-loop tick into one write) and one HTTP
// pool (a process is one JS thread; 64 sockets exceed what it can have in flight with 50 clients).
export function connectBackends(redisUrl: string, apiUrl: string, serverType: string): Backends {
  const redis = new Redis(redisUrl, { enableAutoPipelining: true });
  redis.on('error', (err) => console.error(`redis: ${err.message}`));
  return { redis, api: apiClient(apiUrl, 64), serverType };
}

export async function closeBackends(b: Backends): Promise<void> {
  await Promise.allSettled([b.redis.quit(), b.api.close()]);
}

// Under Node, undici's Pool is the fastest keep-alive client (no WHATWG fetch overhead). Bun replaces
// the `undici` module with stubs whose Pool does nothing, so there the native fetch is used: it keeps
// connections alive and pools them per host on its own.
export function apiClient(baseUrl: string, connections: number): ApiClient {
  if (process.versions.bun) {
    const base = baseUrl.replace(/\/$/, '');
    const call = async (path: string, init?: RequestInit) => {
      const res = await fetch(base + path, init);
      if (!res.ok) throw new Error(`api-service ${path}: HTTP ${res.status}`);
      return res.json();
    };
    return {
      get: (path) => call(path),
      post: (path, body) =>
        call(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      close: async () => {},
    };
  }
  const pool = new Pool(baseUrl, { connections, keepAliveTimeout: 30_000 });
  const call = async (path: string, method: 'GET' | 'POST', body?: string) => {
    const res = await pool.request({
      path,
      method,
      body,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
    });
    if (res.statusCode !== 200) {
      await res.body.dump(); // frees the socket for reuse
      throw new Error(`api-service ${path}: HTTP ${res.statusCode}`);
    }
    return res.body.json();
  };
  return {
    get: (path) => call(path, 'GET'),
    post: (path, body) => call(path, 'POST', JSON.stringify(body)),
    close: () => pool.close(),
  };
}

// Built once per process as z.object()s: given a bare shape, registerTool would wrap it in a new
// z.object() on every request.
const searchInput = z.object({
  category: z.string().default('Electronics').describe('Product category'),
  min_price: z.number().default(50.0).describe('Minimum price'),
  max_price: z.number().default(500.0).describe('Maximum price (0 = no upper bound)'),
  limit: z.number().int().default(10).describe('Maximum number of products'),
});
const cartInput = z.object({
  user_id: z.string().default('user-00042').describe('User identifier, e.g. user-00042'),
});
const checkoutInput = z.object({
  user_id: z.string().default('user-00042').describe('User identifier, e.g. user-00042'),
  items: z
    .array(z.object({ product_id: z.number().int(), quantity: z.number().int() }))
    .min(1) // an empty order is a tool error, before any I/O (docs/workload.md §5)
    .default([
      { product_id: 42, quantity: 2 },
      { product_id: 1337, quantity: 1 },
    ])
    .describe('Items to buy'),
});

type Args<S extends z.ZodType> = z.infer<S>;

interface Product {
  id: number;
  sku: string;
  name: string;
  price: number;
  rating: number;
}

const text = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

async function searchProducts(b: Backends, a: Args<typeof searchInput>): Promise<CallToolResult> {
  const query = new URLSearchParams({
    category: a.category,
    min_price: String(a.min_price),
    max_price: String(a.max_price),
    limit: String(a.limit),
  });
  const [search, popular] = await Promise.all([
    b.api.get(`/products/search?${query}`) as Promise<{ category: string; total_found: number; products: Product[] }>,
    b.redis.zrevrange('bench:popular', 0, 9),
  ]);
  const top10 = popular.map((member) => Number(member.slice('product:'.length)));
  return text({
    category: search.category,
    total_found: search.total_found,
    products: search.products.map((p) => ({
      id: p.id,
      sku: p.sku,
      name: p.name,
      price: p.price,
      rating: p.rating,
      popularity_rank: top10.indexOf(p.id) + 1,
    })),
    top10_popular_ids: top10,
    server_type: b.serverType,
  });
}

async function getUserCart(b: Backends, a: Args<typeof cartInput>): Promise<CallToolResult> {
  const cart = await b.redis.hgetall(`bench:cart:${a.user_id}`);
  const items: Array<{ product_id: number }> = cart.items ? JSON.parse(cart.items) : [];
  // The product lookup is part of the workload's I/O; the result has no field for it.
  const [, history] = await Promise.all([
    b.api.get(`/products/${items[0]?.product_id ?? 1}`),
    b.redis.lrange(`bench:history:${a.user_id}`, 0, 4),
  ]);
  return text({
    user_id: a.user_id,
    cart: { items, item_count: items.length, estimated_total: Number(cart.total ?? 0) },
    recent_history: history.map((entry) => JSON.parse(entry)),
    server_type: b.serverType,
  });
}

async function checkout(b: Backends, a: Args<typeof checkoutInput>): Promise<CallToolResult> {
  // docs/workload.md §5: the integer after the last '-' (0 if none); the entry is {user_id, items, ts}.
  const last = a.user_id.slice(a.user_id.lastIndexOf('-') + 1);
  const userNumber = /^\d+$/.test(last) ? Number(last) : 0;
  const entry = JSON.stringify({ user_id: a.user_id, items: a.items, ts: Math.floor(Date.now() / 1000) });
  const [calc, rateLimitCount] = await Promise.all([
    b.api.post('/cart/calculate', { user_id: a.user_id, items: a.items }) as Promise<{
      order_id: string;
      total: number;
      items_count: number;
    }>,
    b.redis.incr(`bench:ratelimit:user-${String(userNumber % 100).padStart(5, '0')}`),
    b.redis.rpush(`bench:history:${a.user_id}`, entry),
    b.redis.zincrby('bench:popular', 1, `product:${a.items[0].product_id}`),
  ]);
  return text({
    order_id: calc.order_id,
    user_id: a.user_id,
    total: calc.total,
    items_count: calc.items_count,
    rate_limit_count: rateLimitCount,
    status: 'confirmed',
    server_type: b.serverType,
  });
}

// Without this option every McpServer builds its own Ajv instance (~2 ms of CPU under Node), which
// with one McpServer per request would cost more than the tools themselves.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

// Both eras are served by a fresh McpServer per request (the SDK refuses to reuse a stateless transport, a
// server is bound to one transport, and createMcpHandler calls its factory per request); with the shared
// validator that is cheap.
export function newMcpServer(b: Backends): McpServer {
  const server = new McpServer({ name: `mcpbench-${b.serverType}`, version: '1.0.0' }, { jsonSchemaValidator });
  server.registerTool(
    'search_products',
    { description: 'Search the product catalog by category and price range, ranked by popularity', inputSchema: searchInput },
    (args) => searchProducts(b, args),
  );
  server.registerTool(
    'get_user_cart',
    { description: "Get a user's cart and recent order history", inputSchema: cartInput },
    (args) => getUserCart(b, args),
  );
  server.registerTool(
    'checkout',
    { description: 'Check out: price the cart, count the rate limit, record the order', inputSchema: checkoutInput },
    (args) => checkout(b, args),
  );
  addDimensionTools(server, b, jsonSchemaValidator); // none unless EXTRA_TOOLS / DIMENSION_TOOLS
  return server;
}
