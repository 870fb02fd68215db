// The surface (docs/workload.md §7), with DIMENSION_TOOLS=1 only: the resource template product://{id}, the fixed
// resource bench://popular, the prompt cart_summary and the completion of its user_id, through the SDK's own
// registerResource / registerPrompt and completable(); the SDK advertises resources, prompts and completions
// only once something is registered, so without the setting nothing changes on the wire.
import { completable, McpServer, ProtocolError, ProtocolErrorCode, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { Backends } from './tools.js';

const JSON_MIME = 'application/json';

// Built once per process (the completer closes over the process's one Redis connection), like the tools' schemas.
let parts: { product: ResourceTemplate; cartArgs: z.ZodObject<{ user_id: z.ZodString }> } | undefined;

export function addSurface(server: McpServer, { redis, api }: Backends): void {
  parts ??= {
    product: new ResourceTemplate('product://{id}', { list: undefined }),
    cartArgs: z.object({
      // The first 10 users with a cart, in byte order, that start with the prefix (\x7f sorts above every id character).
      user_id: completable(z.string().describe('the user whose cart is summarised'), (prefix) =>
        redis.zrangebylex('bench:users', `[${prefix}`, `(${prefix}\x7f`, 'LIMIT', 0, 10),
      ),
    }),
  };
  server.registerResource(
    'product',
    parts.product,
    { description: 'A product of the catalog, read from the API service.', mimeType: JSON_MIME },
    async (uri, { id }) => {
      // The API client throws on any status but 200 (a 404 included): the SDK answers it as a JSON-RPC error.
      const product = await api.get(`/products/${encodeURIComponent(String(id))}`);
      return { contents: [{ uri: uri.href, mimeType: JSON_MIME, text: JSON.stringify(product) }] };
    },
  );
  server.registerResource(
    'popular',
    'bench://popular',
    { description: 'The ten most popular products, read from Redis.', mimeType: JSON_MIME },
    async (uri) => {
      const popular = await redis.zrevrange('bench:popular', 0, 9);
      return { contents: [{ uri: uri.href, mimeType: JSON_MIME, text: JSON.stringify({ popular }) }] };
    },
  );
  server.registerPrompt(
    'cart_summary',
    { description: "Summarises a user's cart, read from Redis.", argsSchema: parts.cartArgs },
    async ({ user_id }) => {
      const cart = await redis.hgetall(`bench:cart:${user_id}`);
      if (cart.items === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `no cart for ${user_id}`);
      const text = `Summarise the cart of ${user_id}: ${cart.items} (total ${cart.total})`;
      return { messages: [{ role: 'user', content: { type: 'text', text } }] };
    },
  );
}
