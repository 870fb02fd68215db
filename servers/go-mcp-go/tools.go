package main

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"mcpbench/contract"
)

// Tool inputs: the contract's (common-go), with this server's schema descriptions. mcp-go derives
// each input schema from the struct (jsonschema tags become descriptions); it does not apply schema
// defaults, so each tool decodes its arguments over a fresh copy of its defaults (see typed) and a
// wrong type is an isError result.

type searchInput struct {
	Category string  `json:"category,omitempty" jsonschema:"product category (default Electronics)"`
	MinPrice float64 `json:"min_price,omitempty" jsonschema:"lowest price (default 50)"`
	MaxPrice float64 `json:"max_price,omitempty" jsonschema:"highest price, 0 = no upper bound (default 500)"`
	Limit    int     `json:"limit,omitempty" jsonschema:"how many products to return (default 10)"`
}

type cartInput struct {
	UserID string `json:"user_id,omitempty" jsonschema:"user id (default user-00042)"`
}

type checkoutInput struct {
	UserID string              `json:"user_id,omitempty" jsonschema:"user id (default user-00042)"`
	Items  []contract.LineItem `json:"items,omitempty" jsonschema:"items to buy (default 2 x #42 and 1 x #1337)"`
}

func registerTools(s *server.MCPServer, b *contract.Backends) {
	s.AddTool(mcp.NewTool("search_products",
		mcp.WithDescription("Search the catalog by category and price range, ranked against the popularity list."),
		mcp.WithInputSchema[searchInput](),
	), typed(func() searchInput {
		return searchInput{Category: "Electronics", MinPrice: 50, MaxPrice: 500, Limit: 10}
	}, func(ctx context.Context, in searchInput) (any, error) {
		return b.SearchProducts(ctx, contract.SearchInput(in))
	}))
	s.AddTool(mcp.NewTool("get_user_cart",
		mcp.WithDescription("A user's cart (its first product looked up in the catalog) and recent order history."),
		mcp.WithInputSchema[cartInput](),
	), typed(func() cartInput { return cartInput{UserID: "user-00042"} }, func(ctx context.Context, in cartInput) (any, error) {
		return b.GetUserCart(ctx, contract.CartInput(in))
	}))
	s.AddTool(mcp.NewTool("checkout",
		mcp.WithDescription("Price an order, count it against the rate limit and record it."),
		mcp.WithInputSchema[checkoutInput](),
	), typed(func() checkoutInput {
		// A new slice each call: json.Unmarshal would write client items into a shared one.
		return checkoutInput{UserID: "user-00042", Items: []contract.LineItem{{ProductID: 42, Quantity: 2}, {ProductID: 1337, Quantity: 1}}}
	}, func(ctx context.Context, in checkoutInput) (any, error) {
		return b.Checkout(ctx, contract.CheckoutInput(in))
	}))
}

// typed adapts a typed handler to mcp-go: arguments the client leaves out keep their
// defaults, and both bad arguments and backend failures become isError results (a
// handler error would otherwise be a JSON-RPC error).
func typed[T any](defaults func() T, h func(context.Context, T) (any, error)) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in := defaults()
		if err := req.BindArguments(&in); err != nil {
			return mcp.NewToolResultError("invalid arguments: " + err.Error()), nil
		}
		out, err := h(ctx, in)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		text, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(text)), nil
	}
}
