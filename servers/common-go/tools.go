package contract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
)

// The three workload tools (docs/workload.md). A server defines its own input structs (its SDK derives
// the input schema from their tags) with these fields, and converts them to these types; each tool
// returns the value the server sends as the result's single JSON text item, or an error for an isError
// result.

type SearchInput struct {
	Category string  `json:"category,omitempty"`
	MinPrice float64 `json:"min_price,omitempty"`
	MaxPrice float64 `json:"max_price,omitempty"`
	Limit    int     `json:"limit,omitempty"`
}

type CartInput struct {
	UserID string `json:"user_id,omitempty"`
}

type LineItem struct {
	ProductID int `json:"product_id" jsonschema:"product id (1-100000)"`
	Quantity  int `json:"quantity" jsonschema:"units to buy"`
}

type CheckoutInput struct {
	UserID string     `json:"user_id,omitempty"`
	Items  []LineItem `json:"items,omitempty"`
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

func (b *Backends) SearchProducts(ctx context.Context, in SearchInput) (any, error) {
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
		popular, err = b.Redis.ZRevRange(gctx, "bench:popular", 0, 9).Result()
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
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
	return searchResult{
		Category:        found.Category,
		TotalFound:      found.TotalFound,
		Products:        products,
		Top10PopularIDs: top,
		ServerType:      b.ServerType,
	}, nil
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

func (b *Backends) GetUserCart(ctx context.Context, in CartInput) (any, error) {
	cart, err := b.Redis.HGetAll(ctx, "bench:cart:"+in.UserID).Result()
	if err != nil {
		return nil, err
	}
	out := cartResult{UserID: in.UserID, ServerType: b.ServerType}
	out.Cart.Items = []cartItem{}
	if raw := cart["items"]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &out.Cart.Items); err != nil {
			return nil, fmt.Errorf("cart items: %w", err)
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
		history, err = b.Redis.LRange(gctx, "bench:history:"+in.UserID, 0, 4).Result()
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}

	// Entries are JSON already: embedded as they are (Marshal still checks them).
	out.RecentHistory = make([]json.RawMessage, len(history))
	for i, h := range history {
		out.RecentHistory[i] = json.RawMessage(h)
	}
	return out, nil
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

func (b *Backends) Checkout(ctx context.Context, in CheckoutInput) (any, error) {
	if len(in.Items) == 0 { // docs/workload.md §5: an isError result, before any I/O
		return nil, errors.New("items must not be empty")
	}
	entry, err := json.Marshal(struct {
		UserID string     `json:"user_id"`
		Items  []LineItem `json:"items"`
		TS     int64      `json:"ts"`
	}{in.UserID, in.Items, time.Now().Unix()})
	if err != nil {
		return nil, err
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
			Items  []LineItem `json:"items"`
		}{in.UserID, in.Items}, &priced)
	})
	// The three Redis writes are pipelined: they go out together on one connection and come
	// back in one round trip while the API call is in flight.
	g.Go(func() error {
		_, err := b.Redis.Pipelined(gctx, func(p redis.Pipeliner) error {
			incr = p.Incr(gctx, rateKey)
			p.RPush(gctx, "bench:history:"+in.UserID, entry)
			p.ZIncrBy(gctx, "bench:popular", 1, "product:"+strconv.Itoa(in.Items[0].ProductID))
			return nil
		})
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}

	return checkoutResult{
		OrderID:        priced.OrderID,
		UserID:         in.UserID,
		Total:          priced.Total,
		ItemsCount:     priced.ItemsCount,
		RateLimitCount: incr.Val(),
		Status:         "confirmed",
		ServerType:     b.ServerType,
	}, nil
}

// userNumber is the integer after the user id's last '-' ("user-00042" -> 42), or 0 if there is none.
func userNumber(userID string) int {
	n, err := strconv.Atoi(userID[strings.LastIndexByte(userID, '-')+1:])
	if err != nil {
		return 0
	}
	return max(n, 0)
}
