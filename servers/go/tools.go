package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
)

// Tool inputs. The SDK derives each input schema from the struct (jsonschema tags become
// descriptions), fills in the defaults below, validates the arguments against it and
// answers a wrong type with an isError result before a handler runs.

type searchInput struct {
	Category string  `json:"category,omitempty" jsonschema:"product category"`
	MinPrice float64 `json:"min_price,omitempty" jsonschema:"lowest price"`
	MaxPrice float64 `json:"max_price,omitempty" jsonschema:"highest price (0 = no upper bound)"`
	Limit    int     `json:"limit,omitempty" jsonschema:"how many products to return"`
}

type cartInput struct {
	UserID string `json:"user_id,omitempty" jsonschema:"user id such as user-00042"`
}

type lineItem struct {
	ProductID int `json:"product_id" jsonschema:"product id (1-100000)"`
	Quantity  int `json:"quantity" jsonschema:"units to buy"`
}

type checkoutInput struct {
	UserID string     `json:"user_id,omitempty" jsonschema:"user id such as user-00042"`
	Items  []lineItem `json:"items,omitempty" jsonschema:"items to buy"`
}

func registerTools(s *mcp.Server, b *backends) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "search_products",
		Description: "Search the catalog by category and price range, ranked against the popularity list.",
		InputSchema: schemaWithDefaults[searchInput](map[string]any{
			"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10,
		}),
	}, b.searchProducts)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_user_cart",
		Description: "A user's cart (its first product looked up in the catalog) and recent order history.",
		InputSchema: schemaWithDefaults[cartInput](map[string]any{"user_id": "user-00042"}),
	}, b.getUserCart)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "checkout",
		Description: "Price an order, count it against the rate limit and record it.",
		InputSchema: schemaWithDefaults[checkoutInput](map[string]any{
			"user_id": "user-00042",
			"items":   []lineItem{{ProductID: 42, Quantity: 2}, {ProductID: 1337, Quantity: 1}},
		}),
	}, b.checkout)
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

// textResult returns v as the tool's single JSON text item. Out is `any` on purpose: a
// typed Out would make the SDK add an output schema and re-validate every result.
func textResult(v any) (*mcp.CallToolResult, any, error) {
	text, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil, nil
}

// search_products: the API search and the popularity top 10 run concurrently.

type apiProduct struct {
	ID     int     `json:"id"`
	SKU    string  `json:"sku"`
	Name   string  `json:"name"`
	Price  float64 `json:"price"`
	Rating float64 `json:"rating"`
}

type rankedProduct struct {
	apiProduct
	PopularityRank int `json:"popularity_rank"`
}

type searchResult struct {
	Category        string          `json:"category"`
	TotalFound      int             `json:"total_found"`
	Products        []rankedProduct `json:"products"`
	Top10PopularIDs []int           `json:"top10_popular_ids"`
	ServerType      string          `json:"server_type"`
}

func (b *backends) searchProducts(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, any, error) {
	query := url.Values{
		"category":  {in.Category},
		"min_price": {strconv.FormatFloat(in.MinPrice, 'f', -1, 64)},
		"max_price": {strconv.FormatFloat(in.MaxPrice, 'f', -1, 64)},
		"limit":     {strconv.Itoa(in.Limit)},
	}
	var found struct {
		Category   string       `json:"category"`
		TotalFound int          `json:"total_found"`
		Products   []apiProduct `json:"products"`
	}
	var popular []string

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return b.getJSON(gctx, "/products/search?"+query.Encode(), &found) })
	g.Go(func() (err error) {
		popular, err = b.rdb.ZRevRange(gctx, "bench:popular", 0, 9).Result()
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}

	top := make([]int, 0, len(popular))
	for _, member := range popular {
		if id, err := strconv.Atoi(strings.TrimPrefix(member, "product:")); err == nil {
			top = append(top, id)
		}
	}
	products := make([]rankedProduct, len(found.Products))
	for i, p := range found.Products {
		products[i] = rankedProduct{apiProduct: p}
		for rank, id := range top {
			if id == p.ID {
				products[i].PopularityRank = rank + 1
				break
			}
		}
	}
	return textResult(searchResult{
		Category:        found.Category,
		TotalFound:      found.TotalFound,
		Products:        products,
		Top10PopularIDs: top,
		ServerType:      b.serverType,
	})
}

// get_user_cart: the cart first (it names the product), then the product and the history
// concurrently.

type cartItem struct {
	ProductID int `json:"product_id"`
	Qty       int `json:"qty"`
}

type cartResult struct {
	UserID string `json:"user_id"`
	Cart   struct {
		Items          []cartItem `json:"items"`
		ItemCount      int        `json:"item_count"`
		EstimatedTotal float64    `json:"estimated_total"`
	} `json:"cart"`
	RecentHistory []json.RawMessage `json:"recent_history"`
	ServerType    string            `json:"server_type"`
}

func (b *backends) getUserCart(ctx context.Context, _ *mcp.CallToolRequest, in cartInput) (*mcp.CallToolResult, any, error) {
	cart, err := b.rdb.HGetAll(ctx, "bench:cart:"+in.UserID).Result()
	if err != nil {
		return nil, nil, err
	}
	out := cartResult{UserID: in.UserID, ServerType: b.serverType}
	out.Cart.Items = []cartItem{}
	if raw := cart["items"]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &out.Cart.Items); err != nil {
			return nil, nil, fmt.Errorf("cart items: %w", err)
		}
	}
	out.Cart.ItemCount = len(out.Cart.Items)
	out.Cart.EstimatedTotal, _ = strconv.ParseFloat(cart["total"], 64)
	productID := 1
	if len(out.Cart.Items) > 0 {
		productID = out.Cart.Items[0].ProductID
	}

	// The workload fetches the product, but its result has no field for it.
	var product json.RawMessage
	var history []string
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return b.getJSON(gctx, "/products/"+strconv.Itoa(productID), &product) })
	g.Go(func() (err error) {
		history, err = b.rdb.LRange(gctx, "bench:history:"+in.UserID, 0, 4).Result()
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}

	// Entries are JSON already: embedded as they are (Marshal still checks them).
	out.RecentHistory = make([]json.RawMessage, len(history))
	for i, h := range history {
		out.RecentHistory[i] = json.RawMessage(h)
	}
	return textResult(out)
}

// checkout: the API pricing runs concurrently with the three Redis writes (one pipeline).

type checkoutResult struct {
	OrderID        string  `json:"order_id"`
	UserID         string  `json:"user_id"`
	Total          float64 `json:"total"`
	ItemsCount     int     `json:"items_count"`
	RateLimitCount int64   `json:"rate_limit_count"`
	Status         string  `json:"status"`
	ServerType     string  `json:"server_type"`
}

func (b *backends) checkout(ctx context.Context, _ *mcp.CallToolRequest, in checkoutInput) (*mcp.CallToolResult, any, error) {
	if len(in.Items) == 0 { // docs/workload.md §5: an isError result, before any I/O
		return nil, nil, errors.New("items must not be empty")
	}
	entry, err := json.Marshal(struct {
		UserID string     `json:"user_id"`
		Items  []lineItem `json:"items"`
		TS     int64      `json:"ts"`
	}{in.UserID, in.Items, time.Now().Unix()})
	if err != nil {
		return nil, nil, err
	}
	rateKey := fmt.Sprintf("bench:ratelimit:user-%05d", userNumber(in.UserID)%100)

	var priced struct {
		OrderID    string  `json:"order_id"`
		Total      float64 `json:"total"`
		ItemsCount int     `json:"items_count"`
	}
	var incr *redis.IntCmd
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return b.postJSON(gctx, "/cart/calculate", struct {
			UserID string     `json:"user_id"`
			Items  []lineItem `json:"items"`
		}{in.UserID, in.Items}, &priced)
	})
	// The three Redis writes are pipelined: they go out together on one connection and come
	// back in one round trip while the API call is in flight.
	g.Go(func() error {
		_, err := b.rdb.Pipelined(gctx, func(p redis.Pipeliner) error {
			incr = p.Incr(gctx, rateKey)
			p.RPush(gctx, "bench:history:"+in.UserID, entry)
			p.ZIncrBy(gctx, "bench:popular", 1, "product:"+strconv.Itoa(in.Items[0].ProductID))
			return nil
		})
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}

	return textResult(checkoutResult{
		OrderID:        priced.OrderID,
		UserID:         in.UserID,
		Total:          priced.Total,
		ItemsCount:     priced.ItemsCount,
		RateLimitCount: incr.Val(),
		Status:         "confirmed",
		ServerType:     b.serverType,
	})
}

// userNumber is the integer after the user id's last '-' ("user-00042" -> 42), or 0 if there is none.
func userNumber(userID string) int {
	n, err := strconv.Atoi(userID[strings.LastIndexByte(userID, '-')+1:])
	if err != nil {
		return 0
	}
	return max(n, 0)
}
