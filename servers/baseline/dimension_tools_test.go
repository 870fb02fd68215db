package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// The dimension tools need no backends either.
func TestDimensionTools(t *testing.T) {
	s := &server{serverType: "test", extraTools: 100, dimensionTools: true}
	s.registerTools()
	_, r := post(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	tools := r["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 3+100+3 || tools[102].(map[string]any)["name"] != "extra_00100" {
		t.Fatalf("tools/list: %d tools", len(tools))
	}
	_, r = post(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"extra_00100","arguments":{"query":"q"}}}`)
	if text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != `{"tool":"extra_00100","query":"q","server_type":"test"}` {
		t.Errorf("extra_00100: %v", text)
	}
	_, r = post(t, s, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo_payload","arguments":{"size":130,"data":"héllo"}}}`)
	want := `{"size":130,"received":5,"payload":"` + strings.Repeat("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 3)[:130] + `","server_type":"test"}`
	if text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != want {
		t.Errorf("echo_payload: %v", text)
	}
	for _, args := range []string{`{"size":-1}`, `{"size":16777217}`, `{"size":1.5}`, `{"size":"1"}`, `{}`} {
		if _, r = post(t, s, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo_payload","arguments":`+args+`}}`); errCode(r) != codeInvalidParams {
			t.Errorf("echo_payload %s: %v", args, r)
		}
	}
	// stepped_work's refusals come before any Redis write.
	for _, args := range []string{`{"key":"","steps":1,"interval_ms":0}`, `{"key":"` + strings.Repeat("k", 101) + `","steps":1,"interval_ms":0}`,
		`{"key":"k","steps":0,"interval_ms":0}`, `{"key":"k","steps":1001,"interval_ms":0}`, `{"key":"k","steps":1,"interval_ms":10001}`,
		`{"key":"k","steps":1}`, `{"key":"k","interval_ms":0}`, `{"steps":1,"interval_ms":0}`, `{"key":"k","steps":"1","interval_ms":0}`} {
		if _, r = post(t, s, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"stepped_work","arguments":`+args+`}}`); errCode(r) != codeInvalidParams {
			t.Errorf("stepped_work %s: %v", args, r)
		}
	}
}

// stream_progress: with a token, its notifications in order on the call's own reply (an SSE stream over
// HTTP, lines over stdio) before the result; without one, a plain JSON reply.
func TestStreamProgress(t *testing.T) {
	s := &server{serverType: "test", dimensionTools: true}
	s.registerTools()
	call := func(meta string) string {
		return `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"stream_progress","arguments":{"count":3}` + meta + `}}`
	}
	note := func(token string, i int) string {
		return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token +
			`,"progress":` + strconv.Itoa(i) + `,"total":3}}`
	}
	result := func(sent string) string {
		return `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"{\"count\":3,\"sent\":` + sent +
			`,\"server_type\":\"test\"}"}],"isError":false}}`
	}

	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(call(`,"_meta":{"progressToken":"tok"}`)))
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var want strings.Builder
	for i := 1; i <= 3; i++ {
		want.WriteString("event: message\ndata: " + note(`"tok"`, i) + "\n\n")
	}
	want.WriteString("event: message\ndata: " + result("3") + "\n\n")
	if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream" || rec.Body.String() != want.String() {
		t.Errorf("with a token: %s\n%s", ct, rec.Body)
	}

	if _, r := post(t, s, call("")); r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"] != `{"count":3,"sent":0,"server_type":"test"}` {
		t.Errorf("without a token: %v", r)
	}
	for _, args := range []string{`{"count":-1}`, `{"count":1001}`, `{"count":"3"}`, `{}`} {
		if _, r := post(t, s, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"stream_progress","arguments":`+args+`}}`); errCode(r) != codeInvalidParams {
			t.Errorf("stream_progress %s: %v", args, r)
		}
	}

	var out strings.Builder
	if err := s.serveStdio(context.Background(), strings.NewReader(call(`,"_meta":{"progressToken":7}`)+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	if wantLines := note("7", 1) + "\n" + note("7", 2) + "\n" + note("7", 3) + "\n" + result("3") + "\n"; out.String() != wantLines {
		t.Errorf("stdio: %s", out.String())
	}
}

// The surface's listings and refusals need no backends; without DIMENSION_TOOLS it is not there.
func TestSurface(t *testing.T) {
	off := newTestServer()
	_, r := post(t, off, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	if caps := r["result"].(map[string]any)["capabilities"].(map[string]any); len(caps) != 1 {
		t.Errorf("capabilities without DIMENSION_TOOLS: %v", caps)
	}
	if _, r = post(t, off, `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`); errCode(r) != codeMethodNotFound {
		t.Errorf("resources/list without DIMENSION_TOOLS: %v", r)
	}

	s := &server{serverType: "test", dimensionTools: true}
	s.registerTools()
	_, r = post(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	if caps := r["result"].(map[string]any)["capabilities"].(map[string]any); caps["resources"] == nil || caps["prompts"] == nil || caps["completions"] == nil {
		t.Errorf("capabilities: %v", caps)
	}
	for method, want := range map[string]string{"resources/list": "bench://popular", "resources/templates/list": "product://{id}", "prompts/list": "cart_summary"} {
		_, r = post(t, s, `{"jsonrpc":"2.0","id":3,"method":"`+method+`"}`)
		if res, _ := json.Marshal(r["result"]); !strings.Contains(string(res), want) {
			t.Errorf("%s: %v", method, r)
		}
	}
	for body, code := range map[string]int{
		`{"method":"resources/read","params":{"uri":"other://1"}}`:                           codeResourceNotFound,
		`{"method":"resources/read","params":{}}`:                                            codeInvalidParams,
		`{"method":"prompts/get","params":{"name":"other"}}`:                                 codeInvalidParams,
		`{"method":"prompts/get","params":{"name":"cart_summary","arguments":{}}}`:           codeInvalidParams,
		`{"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"}}}`: codeInvalidParams,
	} {
		if _, r = post(t, s, `{"jsonrpc":"2.0","id":4,`+body[1:]); errCode(r) != code {
			t.Errorf("%s: %v", body, r)
		}
	}
}
