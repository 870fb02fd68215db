package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The protocol layer alone: every case here is answered before any Redis or HTTP I/O, so the server
// needs no backends. The tools themselves are checked against real Redis and the API service by hand
// and by `mcpbench verify`.
func newTestServer() *server {
	s := &server{serverType: "test"}
	s.registerTools()
	return s
}

func post(t *testing.T, s *server, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Body.Len() == 0 {
		return rec.Code, nil
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q", body, ct)
	}
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s: reply is not JSON: %v\n%s", body, err, rec.Body)
	}
	return rec.Code, out
}

func errCode(reply map[string]any) int {
	e, _ := reply["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

func TestLifecycle(t *testing.T) {
	s := newTestServer()
	_, r := post(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	res := r["result"].(map[string]any)
	if res["protocolVersion"] != "2024-11-05" || res["capabilities"].(map[string]any)["tools"] == nil {
		t.Errorf("initialize: %v", r)
	}
	if code, _ := post(t, s, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
		t.Errorf("notification: %d", code)
	}
	_, r = post(t, s, `{"jsonrpc":"2.0","id":"two","method":"tools/list"}`)
	tools := r["result"].(map[string]any)["tools"].([]any)
	if r["id"] != "two" || len(tools) != 3 {
		t.Errorf("tools/list: %v", r)
	}
	for _, tool := range tools {
		if tool.(map[string]any)["inputSchema"].(map[string]any)["type"] != "object" {
			t.Errorf("schema of %v", tool)
		}
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodDelete, "/mcp", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("DELETE: %d", rec.Code)
	}
}

func TestBadInput(t *testing.T) {
	s := newTestServer()
	for _, c := range []struct {
		body       string
		status     int
		code       int
		idSurvives bool
	}{
		{`{"jsonrpc":"2.0","id":1,`, 400, codeParse, false},
		{`not json`, 400, codeParse, false},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 400, codeInvalidRequest, false},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, 200, codeInvalidRequest, false},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, 200, codeInvalidRequest, true},
		{`{"jsonrpc":"2.0","id":7,"method":"nope"}`, 200, codeMethodNotFound, true},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, 200, codeInvalidParams, true},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope"}}`, 200, codeInvalidParams, true},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_products","arguments":{"limit":"ten"}}}`, 200, codeInvalidParams, true},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_products","arguments":{"min_price":"x"}}}`, 200, codeInvalidParams, true},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_user_cart","arguments":{"user_id":42}}}`, 200, codeInvalidParams, true},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_user_cart","arguments":"x"}}`, 200, codeInvalidParams, true},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"checkout","arguments":{"items":[{"product_id":1}]}}}`, 200, codeInvalidParams, true},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"checkout","arguments":{"items":"x"}}}`, 200, codeInvalidParams, true},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("a", 2<<20) + `"}}`, 413, codeInvalidRequest, false},
	} {
		status, r := post(t, s, c.body)
		name := c.body[:min(len(c.body), 90)]
		if status != c.status || errCode(r) != c.code {
			t.Errorf("%s: %d %v; want %d, error %d", name, status, r, c.status, c.code)
		}
		if c.idSurvives && r["id"] != float64(7) {
			t.Errorf("%s: id %v, want 7", name, r["id"])
		}
	}
	if _, r := post(t, s, `{"jsonrpc":"2.0","id":8,"method":"ping"}`); r["result"] == nil {
		t.Errorf("ping after bad input: %v", r)
	}
}

func TestAppendString(t *testing.T) {
	for _, in := range []string{"", `{"a":"b\\c"}`, "tab\there\nnl \x01 \x1f é ✓ \u2028"} {
		var back string
		if err := json.Unmarshal(appendString(nil, in), &back); err != nil || back != in {
			t.Errorf("%q: %q %v", in, back, err)
		}
	}
}

func TestRateLimitKey(t *testing.T) {
	for in, want := range map[string]string{
		"user-00042": "bench:ratelimit:user-00042", "user-00999": "bench:ratelimit:user-00099",
		"user-01000": "bench:ratelimit:user-00000", "user-00007": "bench:ratelimit:user-00007", "bob": "bench:ratelimit:user-00000",
		"user-00042-7": "bench:ratelimit:user-00007", "user-00042-x": "bench:ratelimit:user-00000", "42": "bench:ratelimit:user-00042",
	} {
		if got := rateLimitKey(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// An empty order is a tool error answered before any I/O: the test server has no Redis or HTTP client.
func TestCheckoutWithEmptyItems(t *testing.T) {
	_, r := post(t, newTestServer(), `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"checkout","arguments":{"items":[]}}}`)
	res, _ := r["result"].(map[string]any)
	if res == nil || res["isError"] != true {
		t.Errorf("checkout with no items: %v, want an isError result", r)
	}
}
