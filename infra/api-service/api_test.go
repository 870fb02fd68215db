package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

var testHandler = newHandler()

func do(t *testing.T, method, target, body string) (int, []byte) {
	t.Helper()
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, target, strings.NewReader(body))
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	rec := httptest.NewRecorder()
	testHandler.ServeHTTP(rec, req)
	if ct := rec.Header().Get("Content-Type"); rec.Body.Len() > 0 && ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, target, ct)
	}
	return rec.Code, rec.Body.Bytes()
}

type productJSON struct {
	ID          int      `json:"id"`
	SKU         string   `json:"sku"`
	Category    string   `json:"category"`
	Brand       string   `json:"brand"`
	Name        string   `json:"name"`
	Price       float64  `json:"price"`
	Stock       int      `json:"stock"`
	Rating      float64  `json:"rating"`
	Tags        []string `json:"tags"`
	Weight      float64  `json:"weight"`
	Description string   `json:"description"`
}

type searchJSON struct {
	Category   string        `json:"category"`
	TotalFound int           `json:"total_found"`
	Products   []productJSON `json:"products"`
}

func search(t *testing.T, query string) searchJSON {
	t.Helper()
	code, body := do(t, "GET", "/products/search"+query, "")
	if code != 200 {
		t.Fatalf("search %s: status %d", query, code)
	}
	var res searchJSON
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatalf("search %s: %v", query, err)
	}
	return res
}

func TestHealth(t *testing.T) {
	code, body := do(t, "GET", "/health", "")
	if code != 200 || string(body) != `{"status":"ok","server_type":"api-service"}` {
		t.Fatalf("health: %d %s", code, body)
	}
}

func TestSearchElectronics50to500(t *testing.T) {
	res := search(t, "?category=Electronics&min_price=50&max_price=500&limit=1000")
	if res.Category != "Electronics" || res.TotalFound != 2251 {
		t.Fatalf("category %q total_found %d, want Electronics 2251", res.Category, res.TotalFound)
	}
	if len(res.Products) != 1000 {
		t.Fatalf("%d products, want 1000", len(res.Products))
	}
	for k, p := range res.Products {
		if p.Category != "Electronics" || p.Price < 50 || p.Price > 500 {
			t.Fatalf("product %d out of the filter: %+v", k, p)
		}
		if k > 0 && p.Price < res.Products[k-1].Price {
			t.Fatalf("not sorted by price at %d: %v after %v", k, p.Price, res.Products[k-1].Price)
		}
	}
	if first := res.Products[0]; first.ID != 4901 || first.Price != 50.0 {
		t.Fatalf("first product %+v, want id 4901 at 50.0", first)
	}
	// Defaults: limit 10, and the same count through the tool's default arguments.
	if res := search(t, "?category=Electronics&min_price=50.0&max_price=500.0&limit=10"); res.TotalFound != 2251 || len(res.Products) != 10 {
		t.Fatalf("default tool args: total_found %d, %d products", res.TotalFound, len(res.Products))
	}
	// The whole range, checked against a linear scan.
	want := 0
	for i := range testHandler.cat.products {
		p := &testHandler.cat.products[i]
		if p.Category == "Electronics" && p.Price >= 50 && p.Price <= 500 {
			want++
		}
	}
	if want != 2251 {
		t.Fatalf("linear scan finds %d", want)
	}
}

func TestSearchParameterRules(t *testing.T) {
	all := search(t, "")
	if all.Category != "Electronics" || all.TotalFound != 5000 || len(all.Products) != 10 {
		t.Fatalf("no parameters: %q %d %d, want Electronics 5000 10", all.Category, all.TotalFound, len(all.Products))
	}
	// Counts cross-checked with a Python scan of the spec's formulas.
	for _, c := range []struct {
		query      string
		total, got int
	}{
		{"?limit=0", 5000, 10},
		{"?limit=-5", 5000, 10},
		{"?limit=1001", 5000, 10},
		{"?limit=ten", 5000, 10},
		{"?limit=1000", 5000, 1000},
		{"?limit=25", 5000, 25},
		{"?min_price=abc", 5000, 10},               // unparsable min_price counts as 0
		{"?min_price=abc&max_price=500", 2501, 10}, // …so it equals min_price=0
		{"?min_price=0&max_price=500", 2501, 10},
		{"?min_price=50&max_price=0", 4750, 10}, // max_price 0: no upper bound
		{"?min_price=50", 4750, 10},
		{"?min_price=500&max_price=50", 0, 0},
		{"?category=Books&min_price=50&max_price=500", 2250, 10},
		{"?category=Nope&min_price=50&max_price=500", 0, 0},
		{"?category=Home+Garden", 0, 0},
	} {
		res := search(t, c.query)
		if res.TotalFound != c.total || len(res.Products) != c.got {
			t.Errorf("%s: total_found %d, %d products; want %d, %d", c.query, res.TotalFound, len(res.Products), c.total, c.got)
		}
	}
	_, body := do(t, "GET", "/products/search?category=Nope", "")
	if string(body) != `{"category":"Nope","total_found":0,"products":[]}` {
		t.Errorf("unknown category: %s", body)
	}
}

func TestProductFields(t *testing.T) {
	for _, want := range []productJSON{
		{1, "SKU-000001", "Electronics", "Alpha", "Alpha Electronics Item 1", 1.0, 0, 1.0, []string{"sale", "new"}, 0.1,
			"Quality Electronics by Alpha. SKU 000001."},
		{3, "SKU-000003", "Clothing", "Gamma", "Gamma Clothing Item 3", 1.02, 2, 1.2, []string{"featured", "bestseller", "clearance", "limited"}, 0.3,
			"Quality Clothing by Gamma. SKU 000003."},
		{12345, "SKU-012345", "Home", "Link", "Link Home Item 12345", 124.44, 320, 3.4, []string{"sale", "new", "featured", "bestseller"}, 4.5,
			"Quality Home by Link. SKU 012345."},
		{100000, "SKU-100000", "Baby", "Knit", "Knit Baby Item 100000", 1.99, 300, 4.9, []string{"exclusive", "sale"}, 10.0,
			"Quality Baby by Knit. SKU 100000."},
	} {
		code, body := do(t, "GET", "/products/"+itoa(want.ID), "")
		var got productJSON
		if code != 200 || json.Unmarshal(body, &got) != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("product %d: %d %s\nwant %+v", want.ID, code, body, want)
		}
	}
	// Exact token shapes: floats keep a fraction digit, rounding leaves no float noise (0.3, not 0.30000000000000004).
	_, body := do(t, "GET", "/products/3", "")
	if want := `{"id":3,"sku":"SKU-000003","category":"Clothing","brand":"Gamma","name":"Gamma Clothing Item 3","price":1.02,"stock":2,"rating":1.2,"tags":["featured","bestseller","clearance","limited"],"weight":0.3,"description":"Quality Clothing by Gamma. SKU 000003."}`; string(body) != want {
		t.Errorf("product 3 JSON:\n got %s\nwant %s", body, want)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestProductNotFound(t *testing.T) {
	for _, id := range []string{"0", "100001", "abc", "-1", "1.5", ""} {
		if code, _ := do(t, "GET", "/products/"+id, ""); code != 404 {
			t.Errorf("/products/%s: %d, want 404", id, code)
		}
	}
}

type cartJSON struct {
	OrderID    string  `json:"order_id"`
	UserID     string  `json:"user_id"`
	Subtotal   float64 `json:"subtotal"`
	Tax        float64 `json:"tax"`
	Shipping   float64 `json:"shipping"`
	Discount   float64 `json:"discount"`
	Total      float64 `json:"total"`
	ItemsCount int     `json:"items_count"`
}

func TestCartCalculate(t *testing.T) {
	// Expected values computed with Python's round(x, 2), as the published service did.
	for _, c := range []struct {
		body string
		want cartJSON
	}{
		{`{"user_id":"user-00042","items":[{"product_id":42,"quantity":2},{"product_id":1337,"quantity":1}]}`,
			cartJSON{"ORD-user00042-2", "user-00042", 17.18, 1.46, 5.99, 0, 24.63, 2}},
		{`{"user_id":"u","items":[{"product_id":10000,"quantity":1}]}`, // ≥ 100: 10% off, free shipping
			cartJSON{"ORD-u-1", "u", 100.99, 8.58, 0, 10.1, 99.47, 1}},
		{`{"user_id":"u","items":[{"product_id":9901,"quantity":1}]}`, // exactly 100
			cartJSON{"ORD-u-1", "u", 100.0, 8.5, 0, 10.0, 98.5, 1}},
		{`{"user_id":"u","items":[{"product_id":9900,"quantity":1}]}`, // just under
			cartJSON{"ORD-u-1", "u", 99.99, 8.5, 5.99, 0, 114.48, 1}},
		{`{"user_id":"u","items":[{"product_id":2,"quantity":3}]}`, // 3 × 1.01 = 3.0300000000000002
			cartJSON{"ORD-u-1", "u", 3.03, 0.26, 5.99, 0, 9.28, 1}},
		{`{"user_id":"u","items":[{"product_id":7,"quantity":3},{"product_id":1234,"quantity":7},{"product_id":99999,"quantity":2}]}`,
			cartJSON{"ORD-u-3", "u", 100.45, 8.54, 0, 10.05, 98.94, 3}},
		{`{"user_id":"a-b-c","items":[{"product_id":4567,"quantity":11},{"product_id":89,"quantity":3}]}`,
			cartJSON{"ORD-abc-2", "a-b-c", 518.9, 44.11, 0, 51.89, 511.12, 2}},
		// Out-of-range ids are ignored but still counted as items.
		{`{"user_id":"user-1","items":[{"product_id":0,"quantity":5},{"product_id":100001,"quantity":1},{"product_id":-3,"quantity":1},{"product_id":42,"quantity":1}]}`,
			cartJSON{"ORD-user1-4", "user-1", 1.41, 0.12, 5.99, 0, 7.52, 4}},
		{`{"user_id":"user-1","items":[]}`, cartJSON{"ORD-user1-0", "user-1", 0, 0, 5.99, 0, 5.99, 0}},
	} {
		code, body := do(t, "POST", "/cart/calculate", c.body)
		var got cartJSON
		if code != 200 || json.Unmarshal(body, &got) != nil || got != c.want {
			t.Errorf("%s\n got %d %s\nwant %+v", c.body, code, body, c.want)
		}
	}
	_, body := do(t, "POST", "/cart/calculate", `{"user_id":"user-00042","items":[{"product_id":42,"quantity":2},{"product_id":1337,"quantity":1}]}`)
	if want := `{"order_id":"ORD-user00042-2","user_id":"user-00042","subtotal":17.18,"tax":1.46,"shipping":5.99,"discount":0.0,"total":24.63,"items_count":2}`; string(body) != want {
		t.Errorf("cart JSON:\n got %s\nwant %s", body, want)
	}
}

func TestCartMalformed(t *testing.T) {
	for _, body := range []string{"", "{", "not json", "[]", "null", `"x"`, `{"items":"x"}`,
		`{"user_id":"u","items":[{"product_id":"42","quantity":1}]}`, `{"user_id":"u","items":[{"product_id":42,"quantity":"two"}]}`,
		`{"user_id":1,"items":[]}`} {
		if code, _ := do(t, "POST", "/cart/calculate", body); code != 400 {
			t.Errorf("body %q: %d, want 400", body, code)
		}
	}
	big := `{"user_id":"` + strings.Repeat("x", 2<<20) + `","items":[]}`
	if code, _ := do(t, "POST", "/cart/calculate", big); code != 400 {
		t.Errorf("2 MiB body: %d, want 400", code)
	}
	if code, _ := do(t, "GET", "/cart/calculate", ""); code != 405 {
		t.Errorf("GET /cart/calculate: %d, want 405", code)
	}
}

func TestRound2MatchesPython(t *testing.T) {
	for in, want := range map[float64]float64{1.005: 1.0, 2.675: 2.67, 0.125: 0.12, 0.375: 0.38, 1.4603: 1.46, 0.30000000000000004: 0.3} {
		if got := round2(in); got != want {
			t.Errorf("round2(%v) = %v, want %v", in, got, want)
		}
	}
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
}

func rpc(t *testing.T, body string) (int, rpcResponse) {
	t.Helper()
	code, raw := do(t, "POST", "/calibrate/mcp", body)
	var r rpcResponse
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("%s: reply %s: %v", body, raw, err)
		}
	}
	return code, r
}

func TestCalibrateSession(t *testing.T) {
	_, r := rpc(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	var init struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ServerInfo      struct{ Name string }      `json:"serverInfo"`
	}
	if json.Unmarshal(r.Result, &init) != nil || init.ProtocolVersion != "2024-11-05" || init.Capabilities["tools"] == nil || init.ServerInfo.Name == "" {
		t.Fatalf("initialize: %s", r.Result)
	}
	if code, _ := rpc(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != 202 {
		t.Fatalf("notification: %d, want 202", code)
	}
	_, r = rpc(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(r.Result, &list) != nil || len(list.Tools) != 3 {
		t.Fatalf("tools/list: %s", r.Result)
	}
	for _, tool := range list.Tools {
		_, r = rpc(t, `{"jsonrpc":"2.0","id":"call-`+tool.Name+`","method":"tools/call","params":{"name":"`+tool.Name+`","arguments":{}}}`)
		if string(r.ID) != `"call-`+tool.Name+`"` {
			t.Errorf("%s: id %s", tool.Name, r.ID)
		}
		var res struct {
			Content []struct{ Type, Text string } `json:"content"`
			IsError bool                          `json:"isError"`
		}
		if json.Unmarshal(r.Result, &res) != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" {
			t.Fatalf("%s: %s", tool.Name, r.Result)
		}
		var p struct {
			TotalFound    int                               `json:"total_found"`
			Products      []json.RawMessage                 `json:"products"`
			Top10         []int                             `json:"top10_popular_ids"`
			Cart          struct{ Items []json.RawMessage } `json:"cart"`
			RecentHistory []json.RawMessage                 `json:"recent_history"`
			Status        string                            `json:"status"`
			Total         float64                           `json:"total"`
			ItemsCount    int                               `json:"items_count"`
			ServerType    string                            `json:"server_type"`
		}
		if err := json.Unmarshal([]byte(res.Content[0].Text), &p); err != nil || p.ServerType != "calibrate" {
			t.Fatalf("%s: text %s: %v", tool.Name, res.Content[0].Text, err)
		}
		var ok bool
		switch tool.Name {
		case "search_products":
			ok = p.TotalFound == 2251 && len(p.Products) == 10 && len(p.Top10) == 10
		case "get_user_cart":
			ok = len(p.Cart.Items) >= 1 && len(p.RecentHistory) == 5
		case "checkout":
			ok = p.Status == "confirmed" && p.Total > 0 && p.ItemsCount == 2
		}
		if !ok {
			t.Errorf("%s fails the workload check: %s", tool.Name, res.Content[0].Text)
		}
	}
	if code, _ := do(t, "DELETE", "/calibrate/mcp", ""); code != 200 {
		t.Errorf("DELETE: %d", code)
	}
}

func TestCalibrateErrors(t *testing.T) {
	for body, want := range map[string]int{
		`{"jsonrpc":`: -32700,
		`{"jsonrpc":"2.0","id":1,"method":"nope"}`:                                -32601,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`: -32602,
	} {
		if _, r := rpc(t, body); r.Error == nil || r.Error.Code != want {
			t.Errorf("%s: want error %d, got %+v", body, want, r)
		}
	}
}

// The stdio form answers as the HTTP one does, a line per reply, and nothing for a notification.
func TestCalibrateStdio(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_user_cart","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"nope"}` + "\n")
	var out bytes.Buffer
	if err := testHandler.serveStdio(in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 replies, got %d: %s", len(lines), out.String())
	}
	var replies []rpcResponse
	for _, line := range lines {
		var r rpcResponse
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		replies = append(replies, r)
	}
	if string(replies[0].ID) != "1" || !strings.Contains(string(replies[0].Result), `"2025-06-18"`) {
		t.Errorf("initialize: %s", lines[0])
	}
	if string(replies[1].ID) != "2" || !strings.Contains(string(replies[1].Result), `recent_history`) {
		t.Errorf("tools/call: %s", lines[1])
	}
	if replies[2].Error == nil || replies[2].Error.Code != -32601 {
		t.Errorf("unknown method: %s", lines[2])
	}
}
