package main

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

const maxBody = 1 << 20

var (
	ctJSON       = []string{"application/json"}
	healthBody   = []byte(`{"status":"ok","server_type":"api-service"}`)
	notFoundBody = []byte(`{"detail":"Not Found"}`)
	noProduct    = []byte(`{"detail":"Product not found"}`)
	badBody      = []byte(`{"detail":"malformed request body"}`)
	badMethod    = []byte(`{"detail":"Method Not Allowed"}`)
)

type handler struct {
	cat    *catalog
	canned map[string][]byte // calibrate: tool name → CallToolResult JSON
	bufs   sync.Pool
}

func newHandler() *handler {
	h := &handler{cat: newCatalog()}
	h.canned = calibrateResults(h.cat)
	h.bufs.New = func() any { b := make([]byte, 0, 4096); return &b }
	return h
}

// ServeHTTP routes by hand: five fixed routes do not need a pattern matcher on the hot path.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case path == "/products/search":
		if r.Method != http.MethodGet {
			write(w, http.StatusMethodNotAllowed, badMethod)
			return
		}
		h.search(w, r)
	case strings.HasPrefix(path, "/products/"):
		if r.Method != http.MethodGet {
			write(w, http.StatusMethodNotAllowed, badMethod)
			return
		}
		h.productByID(w, path[len("/products/"):])
	case path == "/cart/calculate":
		if r.Method != http.MethodPost {
			write(w, http.StatusMethodNotAllowed, badMethod)
			return
		}
		h.cartCalculate(w, r)
	case path == "/health":
		write(w, http.StatusOK, healthBody)
	case path == "/calibrate/mcp":
		h.calibrate(w, r)
	default:
		write(w, http.StatusNotFound, notFoundBody)
	}
}

func write(w http.ResponseWriter, status int, body []byte) {
	hdr := w.Header()
	hdr["Content-Type"] = ctJSON
	// An explicit length avoids chunked encoding for the large (limit=1000) search responses.
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (h *handler) getBuf() *[]byte { return h.bufs.Get().(*[]byte) }

func (h *handler) putBuf(b *[]byte) {
	if cap(*b) <= 1<<20 { // do not pin the occasional 250 KB limit=1000 buffer forever
		*b = (*b)[:0]
		h.bufs.Put(b)
	}
}

type searchParams struct {
	category string
	minPrice float64
	maxPrice float64
	limit    int
}

func parseSearch(rawQuery string) searchParams {
	p := searchParams{category: "Electronics", limit: 10}
	for rawQuery != "" {
		var kv string
		kv, rawQuery, _ = strings.Cut(rawQuery, "&")
		k, v, _ := strings.Cut(kv, "=")
		if strings.ContainsAny(v, "%+") {
			if u, err := url.QueryUnescape(v); err == nil {
				v = u
			}
		}
		switch k {
		case "category":
			if v != "" {
				p.category = v
			}
		case "min_price":
			p.minPrice = parsePrice(v)
		case "max_price":
			p.maxPrice = parsePrice(v)
		case "limit":
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 && n <= 1000 {
				p.limit = n
			} else {
				p.limit = 10
			}
		}
	}
	return p
}

// parsePrice: anything that is not a finite number counts as 0 (for max_price: no upper bound).
func parsePrice(v string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func (h *handler) search(w http.ResponseWriter, r *http.Request) {
	p := parseSearch(r.URL.RawQuery)
	found := h.cat.search(p.category, p.minPrice, p.maxPrice)
	bp := h.getBuf()
	b := append(*bp, `{"category":`...)
	b = appendString(b, p.category)
	b = append(b, `,"total_found":`...)
	b = strconv.AppendInt(b, int64(len(found)), 10)
	b = append(b, `,"products":[`...)
	for k, prod := range found[:min(p.limit, len(found))] {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, prod.json...)
	}
	b = append(b, "]}"...)
	write(w, http.StatusOK, b)
	*bp = b
	h.putBuf(bp)
}

func (h *handler) productByID(w http.ResponseWriter, idText string) {
	id, err := strconv.Atoi(idText)
	p := h.cat.product(id)
	if err != nil || p == nil {
		write(w, http.StatusNotFound, noProduct)
		return
	}
	write(w, http.StatusOK, p.json)
}

type cartRequest struct {
	UserID string     `json:"user_id"`
	Items  []cartItem `json:"items"`
}

type cartItem struct {
	ProductID int `json:"product_id"`
	Quantity  int `json:"quantity"`
}

type cartResult struct {
	OrderID                                  string
	UserID                                   string
	Subtotal, Tax, Shipping, Discount, Total float64
	ItemsCount                               int
}

func (c *catalog) calculate(req *cartRequest) cartResult {
	var subtotal float64
	for _, it := range req.Items {
		if p := c.product(it.ProductID); p != nil {
			// The explicit conversion forbids fused multiply-add, keeping sums bit-identical to Python's.
			subtotal += float64(p.Price * float64(it.Quantity))
		}
	}
	res := cartResult{UserID: req.UserID, ItemsCount: len(req.Items), Shipping: 5.99}
	res.Subtotal = round2(subtotal)
	res.Tax = round2(res.Subtotal * 0.085)
	if res.Subtotal >= 100 {
		res.Discount = round2(res.Subtotal * 0.10)
		res.Shipping = 0
	}
	res.Total = round2(res.Subtotal + res.Tax + res.Shipping - res.Discount)
	res.OrderID = "ORD-" + strings.ReplaceAll(req.UserID, "-", "") + "-" + strconv.Itoa(len(req.Items))
	return res
}

func (r *cartResult) appendJSON(b []byte) []byte {
	b = append(b, `{"order_id":`...)
	b = appendString(b, r.OrderID)
	b = append(b, `,"user_id":`...)
	b = appendString(b, r.UserID)
	b = append(b, `,"subtotal":`...)
	b = appendFloat(b, r.Subtotal)
	b = append(b, `,"tax":`...)
	b = appendFloat(b, r.Tax)
	b = append(b, `,"shipping":`...)
	b = appendFloat(b, r.Shipping)
	b = append(b, `,"discount":`...)
	b = appendFloat(b, r.Discount)
	b = append(b, `,"total":`...)
	b = appendFloat(b, r.Total)
	b = append(b, `,"items_count":`...)
	b = strconv.AppendInt(b, int64(r.ItemsCount), 10)
	return append(b, '}')
}

// readBody reads at most maxBody bytes into a pooled buffer; ok is false when the body is larger.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request) (bp *[]byte, ok bool) {
	bp = h.getBuf()
	buf := bytes.NewBuffer(*bp)
	n, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBody))
	*bp = buf.Bytes()
	return bp, err == nil && n <= maxBody
}

func (h *handler) cartCalculate(w http.ResponseWriter, r *http.Request) {
	bp, ok := h.readBody(w, r)
	defer h.putBuf(bp)
	body := bytes.TrimLeft(*bp, " \t\r\n")
	var req cartRequest
	if !ok || len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &req) != nil {
		write(w, http.StatusBadRequest, badBody)
		return
	}
	res := h.cat.calculate(&req)
	var out [256]byte
	write(w, http.StatusOK, res.appendJSON(out[:0]))
}
