package main

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpbench/contract"
)

// Tool inputs: the contract's (common-go), with this server's schema descriptions. The SDK derives each
// input schema from the struct (jsonschema tags become descriptions), fills in the defaults below,
// validates the arguments against it and answers a wrong type with an isError result before a handler
// runs.

type searchInput struct {
	Category string  `json:"category,omitempty" jsonschema:"product category"`
	MinPrice float64 `json:"min_price,omitempty" jsonschema:"lowest price"`
	MaxPrice float64 `json:"max_price,omitempty" jsonschema:"highest price (0 = no upper bound)"`
	Limit    int     `json:"limit,omitempty" jsonschema:"how many products to return"`
}

type cartInput struct {
	UserID string `json:"user_id,omitempty" jsonschema:"user id such as user-00042"`
}

type checkoutInput struct {
	UserID string              `json:"user_id,omitempty" jsonschema:"user id such as user-00042"`
	Items  []contract.LineItem `json:"items,omitempty" jsonschema:"items to buy"`
}

func registerTools(s *mcp.Server, b *contract.Backends) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "search_products",
		Description: "Search the catalog by category and price range, ranked against the popularity list.",
		InputSchema: schemaWithDefaults[searchInput](map[string]any{
			"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10,
		}),
	}, handler(func(ctx context.Context, in searchInput) (any, error) {
		return b.SearchProducts(ctx, contract.SearchInput(in))
	}))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_user_cart",
		Description: "A user's cart (its first product looked up in the catalog) and recent order history.",
		InputSchema: schemaWithDefaults[cartInput](map[string]any{"user_id": "user-00042"}),
	}, handler(func(ctx context.Context, in cartInput) (any, error) {
		return b.GetUserCart(ctx, contract.CartInput(in))
	}))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "checkout",
		Description: "Price an order, count it against the rate limit and record it.",
		InputSchema: schemaWithDefaults[checkoutInput](map[string]any{
			"user_id": "user-00042",
			"items":   []contract.LineItem{{ProductID: 42, Quantity: 2}, {ProductID: 1337, Quantity: 1}},
		}),
	}, handler(func(ctx context.Context, in checkoutInput) (any, error) {
		return b.Checkout(ctx, contract.CheckoutInput(in))
	}))
}

func schemaWithDefaults[T any](defaults map[string]any) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	for name, v := range defaults {
		raw, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		s.Properties[name].Default = raw
	}
	return s
}

// handler adapts a contract tool to the SDK's typed handler; an error becomes an isError result.
func handler[In any](tool func(context.Context, In) (any, error)) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		out, err := tool(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		return textResult(out)
	}
}

// textResult returns v as the tool's single JSON text item. Out is `any` on purpose: a
// typed Out would make the SDK add an output schema and re-validate every result.
func textResult(v any) (*mcp.CallToolResult, any, error) {
	text, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil, nil
}
