package main

import (
	"strings"
	"testing"
)

// The dimension tools need no backends either.
func TestDimensionTools(t *testing.T) {
	s := &server{serverType: "test", extraTools: 100, dimensionTools: true}
	s.registerTools()
	_, r := post(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	tools := r["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 3+100+1 || tools[102].(map[string]any)["name"] != "extra_00100" {
		t.Fatalf("tools/list: %d tools", len(tools))
	}
	_, r = post(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"extra_00100","arguments":{"query":"q"}}}`)
	if text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != `{"tool":"extra_00100","query":"q","server_type":"test"}` {
		t.Errorf("extra_00100: %v", text)
	}
	_, r = post(t, s, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo_payload","arguments":{"size":130,"data":"héllo"}}}`)
	want := `{"size":130,"received":5,"payload":"` + strings.Repeat(payloadAlphabet, 3)[:130] + `","server_type":"test"}`
	if text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != want {
		t.Errorf("echo_payload: %v", text)
	}
	for _, args := range []string{`{"size":-1}`, `{"size":16777217}`, `{"size":1.5}`, `{"size":"1"}`, `{}`} {
		if _, r = post(t, s, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo_payload","arguments":`+args+`}}`); errCode(r) != codeInvalidParams {
			t.Errorf("echo_payload %s: %v", args, r)
		}
	}
}
