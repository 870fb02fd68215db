// The surface (docs/workload.md §7), with DIMENSION_TOOLS=1 only: the resource template product://{id}, the fixed
// resource bench://popular, the prompt cart_summary and the completion of its user_id, through FastMCP's own
// addResourceTemplate / addResource / addPrompt (an argument's `complete`). FastMCP advertises resources and
// prompts only when some are added (completions it always advertises), so without the setting nothing changes.
import type { FastMCP } from 'fastmcp';
import type { Backends } from './tools.js';

const JSON_MIME = 'application/json';

export function addSurface(server: FastMCP, { redis, api }: Backends): void {
  server.addResourceTemplate({
    uriTemplate: 'product://{id}',
    name: 'product',
    description: 'A product of the catalog, read from the API service.',
    mimeType: JSON_MIME,
    arguments: [{ name: 'id', required: true }],
    // The API client throws on any status but 200 (a 404 included): the SDK answers it as a JSON-RPC error. The
    // content's uri is FastMCP's: the template filled with the request's id.
    load: async ({ id }) => ({ mimeType: JSON_MIME, text: JSON.stringify(await api.get(`/products/${encodeURIComponent(id)}`)) }),
  });
  server.addResource({
    uri: 'bench://popular',
    name: 'popular',
    description: 'The ten most popular products, read from Redis.',
    mimeType: JSON_MIME,
    load: async () => ({ text: JSON.stringify({ popular: await redis.zrevrange('bench:popular', 0, 9) }) }),
  });
  server.addPrompt({
    name: 'cart_summary',
    description: "Summarises a user's cart, read from Redis.",
    arguments: [
      {
        name: 'user_id',
        description: 'the user whose cart is summarised',
        required: true,
        // The first 10 users with a cart, in byte order, that start with the prefix (\x7f sorts above every id character).
        complete: async (prefix) => ({
          values: await redis.zrangebylex('bench:users', `[${prefix}`, `(${prefix}\x7f`, 'LIMIT', 0, 10),
        }),
      },
    ],
    // A string is FastMCP's shorthand for one user message with that text.
    load: async ({ user_id }) => {
      const cart = await redis.hgetall(`bench:cart:${user_id}`);
      if (cart.items === undefined) throw new Error(`no cart for ${user_id}`);
      return `Summarise the cart of ${user_id}: ${cart.items} (total ${cart.total})`;
    },
  });
}
