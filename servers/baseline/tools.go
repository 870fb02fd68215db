package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"mcpbench/contract"
)

type toolFunc func(ctx context.Context, args json.RawMessage, enc *json.Encoder) error

type server struct {
	rdb        *redis.Client
	http       *http.Client
	searchURL  string
	productURL string
	calcURL    string
	serverType string
	tools      map[string]toolFunc
	toolsList  []byte // the tools/list result, built by registerTools
	// EXTRA_TOOLS / DIMENSION_TOOLS: the dimension tools (dimension_tools.go), off by default.
	extraTools     int
	dimensionTools bool
}

func newServer(cfg contract.Config) (*server, error) {
	rdb, err := contract.NewRedis(cfg)
	if err != nil {
		return nil, err
	}
	s := &server{
		rdb:        rdb,
		http:       contract.NewHTTPClient(cfg),
		searchURL:  cfg.APIURL + "/products/search",
		productURL: cfg.APIURL + "/products/",
		calcURL:    cfg.APIURL + "/cart/calculate",
		serverType: cfg.ServerType,

		extraTools:     cfg.ExtraTools,
		dimensionTools: cfg.DimensionTools,
	}
	s.registerTools()
	return s, nil
}

func (s *server) registerTools() {
	s.tools = map[string]toolFunc{
		"search_products": s.searchProducts,
		"get_user_cart":   s.getUserCart,
		"checkout":        s.checkout,
	}
	list := append([]byte(`{"tools":[`), workloadTools...)
	s.toolsList = append(s.addDimensionTools(list), "]}"...)
}

func (s *server) close() {
	_ = s.rdb.Close()
	s.http.CloseIdleConnections()
}

// The three workload tools' entries in tools/list.
const workloadTools = `{"name":"search_products","description":"Search products by category and price range, merged with popularity data",` +
	`"inputSchema":{"type":"object","properties":{` +
	`"category":{"type":"string","description":"Product category","default":"Electronics"},` +
	`"min_price":{"type":"number","description":"Minimum price","default":50.0},` +
	`"max_price":{"type":"number","description":"Maximum price (0 = no upper bound)","default":500.0},` +
	`"limit":{"type":"integer","description":"Maximum number of products to return","default":10}}}},` +
	`{"name":"get_user_cart","description":"Get user cart details with recent order history",` +
	`"inputSchema":{"type":"object","properties":{` +
	`"user_id":{"type":"string","description":"User id, e.g. user-00042","default":"user-00042"}}}},` +
	`{"name":"checkout","description":"Process checkout: calculate total, update rate limit, record history",` +
	`"inputSchema":{"type":"object","properties":{` +
	`"user_id":{"type":"string","description":"User id, e.g. user-00042","default":"user-00042"},` +
	`"items":{"type":"array","description":"Items to order","items":{"type":"object","properties":{` +
	`"product_id":{"type":"integer"},"quantity":{"type":"integer"}},"required":["product_id","quantity"]},` +
	`"default":[{"product_id":42,"quantity":2},{"product_id":1337,"quantity":1}]}}}}`

// decodeArgs fills v from the call's arguments; absent arguments leave the defaults.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	err := json.Unmarshal(raw, v)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return &invalidParams{"invalid arguments: expected an object, got " + typeErr.Value}
	case errors.As(err, &typeErr):
		return &invalidParams{"invalid arguments: " + typeErr.Field + " cannot be a " + typeErr.Value}
	default:
		return &invalidParams{"invalid arguments: " + err.Error()}
	}
}

func or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

var respPool = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 8<<10)) }}

// call sends one API request and decodes a 200 reply into out, or just drains it when out is nil
// (a body left unread would cost the keep-alive connection).
func (s *server) call(req *http.Request, out any) error {
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s: HTTP %d", req.Method, req.URL.Path, resp.StatusCode)
		}
		return nil
	}
	buf := respPool.Get().(*bytes.Buffer)
	defer func() { buf.Reset(); respPool.Put(buf) }()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return err
	}
	return json.Unmarshal(buf.Bytes(), out)
}

func (s *server) get(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	return s.call(req, out)
}

// ---- search_products ----------------------------------------------------------------------

type apiSearch struct {
	TotalFound int `json:"total_found"`
	Products   []struct {
		ID     int64   `json:"id"`
		SKU    string  `json:"sku"`
		Name   string  `json:"name"`
		Price  float64 `json:"price"`
		Rating float64 `json:"rating"`
	} `json:"products"`
}

type productHit struct {
	ID             int64   `json:"id"`
	SKU            string  `json:"sku"`
	Name           string  `json:"name"`
	Price          float64 `json:"price"`
	Rating         float64 `json:"rating"`
	PopularityRank int     `json:"popularity_rank"`
}

type searchResult struct {
	Category   string       `json:"category"`
	TotalFound int          `json:"total_found"`
	Products   []productHit `json:"products"`
	Top10      []int64      `json:"top10_popular_ids"`
	ServerType string       `json:"server_type"`
}

func (s *server) searchProducts(ctx context.Context, raw json.RawMessage, enc *json.Encoder) error {
	var a struct {
		Category *string  `json:"category"`
		MinPrice *float64 `json:"min_price"`
		MaxPrice *float64 `json:"max_price"`
		Limit    *int     `json:"limit"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return err
	}
	category := or(a.Category, "Electronics")
	u := s.searchURL + "?category=" + url.QueryEscape(category) +
		"&min_price=" + strconv.FormatFloat(or(a.MinPrice, 50), 'f', -1, 64) +
		"&max_price=" + strconv.FormatFloat(or(a.MaxPrice, 500), 'f', -1, 64) +
		"&limit=" + strconv.Itoa(or(a.Limit, 10))

	// The API call runs on its own goroutine while this one waits on Redis.
	var api apiSearch
	var apiErr error
	var wg sync.WaitGroup
	wg.Go(func() { apiErr = s.get(ctx, u, &api) })
	members, redisErr := s.rdb.ZRevRange(ctx, "bench:popular", 0, 9).Result()
	wg.Wait()
	if err := errors.Join(apiErr, redisErr); err != nil {
		return err
	}

	top10 := make([]int64, 0, len(members))
	for _, m := range members {
		if id, err := strconv.ParseInt(strings.TrimPrefix(m, "product:"), 10, 64); err == nil {
			top10 = append(top10, id)
		}
	}
	hits := make([]productHit, len(api.Products))
	for i, p := range api.Products {
		hits[i] = productHit{ID: p.ID, SKU: p.SKU, Name: p.Name, Price: p.Price, Rating: p.Rating}
		for rank, id := range top10 {
			if id == p.ID {
				hits[i].PopularityRank = rank + 1
				break
			}
		}
	}
	return enc.Encode(&searchResult{category, api.TotalFound, hits, top10, s.serverType})
}

// ---- get_user_cart ------------------------------------------------------------------------

type cartResult struct {
	UserID string `json:"user_id"`
	Cart   struct {
		Items          []json.RawMessage `json:"items"`
		ItemCount      int               `json:"item_count"`
		EstimatedTotal float64           `json:"estimated_total"`
	} `json:"cart"`
	RecentHistory []json.RawMessage `json:"recent_history"`
	ServerType    string            `json:"server_type"`
}

func (s *server) getUserCart(ctx context.Context, raw json.RawMessage, enc *json.Encoder) error {
	var a struct {
		UserID *string `json:"user_id"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return err
	}
	res := cartResult{UserID: or(a.UserID, "user-00042"), ServerType: s.serverType}

	cart, err := s.rdb.HGetAll(ctx, "bench:cart:"+res.UserID).Result()
	if err != nil {
		return err
	}
	res.Cart.Items = []json.RawMessage{}
	if items, ok := cart["items"]; ok {
		if err := json.Unmarshal([]byte(items), &res.Cart.Items); err != nil {
			return fmt.Errorf("cart items: %w", err)
		}
	}
	res.Cart.ItemCount = len(res.Cart.Items)
	res.Cart.EstimatedTotal, _ = strconv.ParseFloat(cart["total"], 64)
	first := int64(1)
	if len(res.Cart.Items) > 0 {
		var item struct {
			ProductID *int64 `json:"product_id"`
		}
		if json.Unmarshal(res.Cart.Items[0], &item) == nil && item.ProductID != nil {
			first = *item.ProductID
		}
	}

	// The product look-up is workload I/O the result does not carry: fetched and drained.
	var apiErr error
	var wg sync.WaitGroup
	wg.Go(func() { apiErr = s.get(ctx, s.productURL+strconv.FormatInt(first, 10), nil) })
	history, redisErr := s.rdb.LRange(ctx, "bench:history:"+res.UserID, 0, 4).Result()
	wg.Wait()
	if err := errors.Join(apiErr, redisErr); err != nil {
		return err
	}
	// Entries are JSON written by the seeder or by checkout; the encoder validates them.
	res.RecentHistory = make([]json.RawMessage, len(history))
	for i, h := range history {
		res.RecentHistory[i] = json.RawMessage(h)
	}
	return enc.Encode(&res)
}

// ---- checkout -----------------------------------------------------------------------------

type cartItem struct {
	ProductID int64 `json:"product_id"`
	Quantity  int64 `json:"quantity"`
}

var defaultItems = []cartItem{{ProductID: 42, Quantity: 2}, {ProductID: 1337, Quantity: 1}}

type checkoutResult struct {
	OrderID        string  `json:"order_id"`
	UserID         string  `json:"user_id"`
	Total          float64 `json:"total"`
	ItemsCount     int     `json:"items_count"`
	RateLimitCount int64   `json:"rate_limit_count"`
	Status         string  `json:"status"`
	ServerType     string  `json:"server_type"`
}

// rateLimitKey is one of 100 counters: the integer after the user id's last '-' (0 if none), mod 100.
func rateLimitKey(userID string) string {
	n, err := strconv.Atoi(userID[strings.LastIndexByte(userID, '-')+1:])
	if err != nil || n < 0 {
		n = 0
	}
	n %= 100
	return "bench:ratelimit:user-000" + string([]byte{'0' + byte(n/10), '0' + byte(n%10)})
}

func (s *server) checkout(ctx context.Context, raw json.RawMessage, enc *json.Encoder) error {
	var a struct {
		UserID *string `json:"user_id"`
		Items  *[]struct {
			ProductID *int64 `json:"product_id"`
			Quantity  *int64 `json:"quantity"`
		} `json:"items"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return err
	}
	userID := or(a.UserID, "user-00042")
	items := defaultItems
	if a.Items != nil {
		items = make([]cartItem, len(*a.Items))
		for i, it := range *a.Items {
			if it.ProductID == nil || it.Quantity == nil {
				return &invalidParams{"invalid arguments: every item needs product_id and quantity"}
			}
			items[i] = cartItem{*it.ProductID, *it.Quantity}
		}
	}
	if len(items) == 0 { // docs/workload.md §5: a tool error, before any I/O
		return errors.New("items must not be empty")
	}
	body, err := json.Marshal(struct {
		UserID string     `json:"user_id"`
		Items  []cartItem `json:"items"`
	}{userID, items})
	if err != nil {
		return err
	}
	entry, err := json.Marshal(struct {
		UserID string     `json:"user_id"`
		Items  []cartItem `json:"items"`
		TS     int64      `json:"ts"`
	}{userID, items, time.Now().Unix()})
	if err != nil {
		return err
	}

	// The API call on its own goroutine; the three Redis writes pipelined on one connection, so they
	// go out together and come back in one round trip while the HTTP call is in flight.
	var priced struct {
		OrderID string  `json:"order_id"`
		Total   float64 `json:"total"`
	}
	var apiErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.calcURL, bytes.NewReader(body))
		if err != nil {
			apiErr = err
			return
		}
		req.Header["Content-Type"] = []string{"application/json"}
		apiErr = s.call(req, &priced)
	})
	var incr *redis.IntCmd
	_, redisErr := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		incr = p.Incr(ctx, rateLimitKey(userID))
		p.RPush(ctx, "bench:history:"+userID, entry)
		p.ZIncrBy(ctx, "bench:popular", 1, "product:"+strconv.FormatInt(items[0].ProductID, 10))
		return nil
	})
	wg.Wait()
	if err := errors.Join(apiErr, redisErr); err != nil {
		return err
	}
	return enc.Encode(&checkoutResult{
		OrderID: priced.OrderID, UserID: userID, Total: priced.Total, ItemsCount: len(items),
		RateLimitCount: incr.Val(), Status: "confirmed", ServerType: s.serverType,
	})
}
