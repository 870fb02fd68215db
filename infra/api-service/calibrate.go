package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// POST /calibrate/mcp is a do-nothing MCP Streamable-HTTP server: canned answers, no I/O. `mcpbench
// calibrate` drives it with the real load pattern to measure the harness's own ceiling, so anything it
// reports for a real server can be read against what the load generator itself can push.

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		ProtocolVersion string `json:"protocolVersion"`
		Name            string `json:"name"`
	} `json:"params"`
}

const toolsListResult = `{"tools":[` +
	`{"name":"search_products","description":"Search products by category and price range, annotated with popularity.",` +
	`"inputSchema":{"type":"object","properties":{` +
	`"category":{"type":"string","default":"Electronics"},` +
	`"min_price":{"type":"number","default":50.0},` +
	`"max_price":{"type":"number","default":500.0},` +
	`"limit":{"type":"integer","default":10}}}},` +
	`{"name":"get_user_cart","description":"A user's cart with its first product and recent order history.",` +
	`"inputSchema":{"type":"object","properties":{"user_id":{"type":"string","default":"user-00042"}}}},` +
	`{"name":"checkout","description":"Price a cart, count the rate limit, record the order and its popularity.",` +
	`"inputSchema":{"type":"object","properties":{` +
	`"user_id":{"type":"string","default":"user-00042"},` +
	`"items":{"type":"array","items":{"type":"object","properties":{` +
	`"product_id":{"type":"integer"},"quantity":{"type":"integer"}},"required":["product_id","quantity"]},` +
	`"default":[{"product_id":42,"quantity":2},{"product_id":1337,"quantity":1}]}}}}]}`

// The ten members with the top score (9999) in the seeded bench:popular, in ZREVRANGE order.
var calibrateTop10 = []int{92857, 82857, 72857, 62857, 52857, 42857, 32857, 2857, 22857, 12857}

// calibrateResults maps a tool name to its canned CallToolResult. The payloads are built from the real
// catalog and seed formulas so that they have the size and shape of a real server's answers.
func calibrateResults(c *catalog) map[string][]byte {
	toolResult := func(payload []byte) []byte {
		b := []byte(`{"content":[{"type":"text","text":`)
		b = appendString(b, string(payload))
		return append(b, `}],"isError":false}`...)
	}

	found := c.search("Electronics", 50, 500)
	b := []byte(`{"category":"Electronics","total_found":`)
	b = strconv.AppendInt(b, int64(len(found)), 10)
	b = append(b, `,"products":[`...)
	for k, p := range found[:10] {
		if k > 0 {
			b = append(b, ',')
		}
		rank := 0
		for r, id := range calibrateTop10 {
			if id == p.ID {
				rank = r + 1
			}
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(p.ID), 10)
		b = append(b, `,"sku":`...)
		b = appendString(b, p.SKU)
		b = append(b, `,"name":`...)
		b = appendString(b, p.Name)
		b = append(b, `,"price":`...)
		b = appendFloat(b, p.Price)
		b = append(b, `,"rating":`...)
		b = appendFloat(b, p.Rating)
		b = append(b, `,"popularity_rank":`...)
		b = strconv.AppendInt(b, int64(rank), 10)
		b = append(b, '}')
	}
	b = append(b, `],"top10_popular_ids":[`...)
	for k, id := range calibrateTop10 {
		if k > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	search := append(b, `],"server_type":"calibrate"}`...)

	// user-00042 as seeded: three cart items, and history entries j = 1 … 5.
	const n = 42
	type item struct {
		ProductID int `json:"product_id"`
		Qty       int `json:"qty"`
	}
	items := []item{{(n*7)%100000 + 1, 1 + n%3}, {(n*13)%100000 + 1, 1 + n%2}, {(n*17)%100000 + 1, 1}}
	var total float64
	for _, it := range items {
		total += float64(it.Qty) * float64((it.ProductID*100)%9999+1) / 100
	}
	type entry struct {
		OrderID   string  `json:"order_id"`
		ProductID int     `json:"product_id"`
		Qty       int     `json:"qty"`
		Price     float64 `json:"price"`
		TS        int     `json:"ts"`
	}
	var history []entry
	for j := 1; j <= 5; j++ {
		history = append(history, entry{
			OrderID: fmt.Sprintf("ORD-%05d-%02d", n, j), ProductID: (n*j*7)%100000 + 1,
			Qty: 1 + j%3, Price: round2(float64((n*j*13)%9999+1) / 100), TS: 1740000000 + n*86400 + j*3600,
		})
	}
	cart, _ := json.Marshal(map[string]any{
		"user_id":        "user-00042",
		"cart":           map[string]any{"items": items, "item_count": len(items), "estimated_total": round2(total)},
		"recent_history": history,
		"server_type":    "calibrate",
	})

	priced := c.calculate(&cartRequest{UserID: "user-00042", Items: []cartItem{{42, 2}, {1337, 1}}})
	checkout, _ := json.Marshal(map[string]any{
		"order_id": priced.OrderID, "user_id": "user-00042", "total": priced.Total, "items_count": 2,
		"rate_limit_count": 1, "status": "confirmed", "server_type": "calibrate",
	})

	return map[string][]byte{
		"search_products": toolResult(search),
		"get_user_cart":   toolResult(cart),
		"checkout":        toolResult(checkout),
	}
}

func rpcReply(b, id []byte, result string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

func rpcError(b, id []byte, code int, msg string) []byte {
	if len(id) == 0 {
		id = []byte("null")
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, msg)
	return append(b, "}}"...)
}

func (h *handler) calibrate(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		write(w, http.StatusMethodNotAllowed, badMethod)
		return
	}
	bp, ok := h.readBody(w, r)
	defer h.putBuf(bp)
	if !ok {
		write(w, http.StatusRequestEntityTooLarge, rpcError(nil, nil, -32600, "request body too large"))
		return
	}
	out, ok := h.answer(*bp)
	if !ok {
		write(w, http.StatusBadRequest, out)
		return
	}
	if out == nil {
		w.WriteHeader(http.StatusAccepted) // a notification: nothing to answer
		return
	}
	write(w, http.StatusOK, out)
}

// answer is the canned server's reply to one JSON-RPC message, over either transport: nil for a
// notification, and ok false with a parse error for a message that is not JSON.
func (h *handler) answer(body []byte) (out []byte, ok bool) {
	var req rpcRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return rpcError(nil, nil, -32700, "parse error"), false
	}
	if len(req.ID) == 0 || bytes.Equal(req.ID, []byte("null")) {
		return nil, true
	}
	out = make([]byte, 0, 4096)
	switch req.Method {
	case "initialize":
		v := req.Params.ProtocolVersion
		if v == "" {
			v = "2024-11-05"
		}
		res := append([]byte(`{"protocolVersion":`), appendString(nil, v)...)
		res = append(res, `,"capabilities":{"tools":{}},"serverInfo":{"name":"mcpbench-calibrate","version":"1.0.0"}}`...)
		out = rpcReply(out, req.ID, string(res))
	case "tools/list":
		out = rpcReply(out, req.ID, toolsListResult)
	case "tools/call":
		res, found := h.canned[req.Params.Name]
		if !found {
			out = rpcError(out, req.ID, -32602, "unknown tool: "+req.Params.Name)
		} else {
			out = rpcReply(out, req.ID, string(res))
		}
	case "ping":
		out = rpcReply(out, req.ID, "{}")
	default:
		out = rpcError(out, req.ID, -32601, "method not found: "+req.Method)
	}
	return out, true
}

// serveStdio is the same canned server over the stdio transport (`api-service calibrate-stdio`): one
// JSON-RPC message per line on stdin, each reply a line on stdout, until stdin closes. The load driver
// starts it as it starts a stdio server, so the stdio transport's limit is the harness's own too.
func (h *handler) serveStdio(in io.Reader, out io.Writer) error {
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 0, 64<<10), maxBody)
	w := bufio.NewWriter(out)
	for lines.Scan() {
		reply, _ := h.answer(lines.Bytes())
		if reply == nil {
			continue
		}
		if _, err := w.Write(append(reply, '\n')); err != nil {
			return err
		}
		// A reply waits for nothing: the client's next request may depend on it.
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return lines.Err()
}
