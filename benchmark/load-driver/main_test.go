package main

import (
	"encoding/json"
	"os"
	"testing"
)

// The lineup's workload as the orchestrator compiles it (workload/lineup.toml; a Python test keeps this
// file equal to the compilation). Its calls by index: the three tools, then tools/list.
const toolsListCall = 3

func lineup(t testing.TB) *plan {
	text, err := os.ReadFile("testdata/lineup.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := parsePlan(string(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func requestPrefixes(t testing.TB, vu int, meta string) []([]byte) {
	p := lineup(t)
	out := make([][]byte, len(p.Calls))
	for i := range p.Calls {
		out[i] = p.prefixes(vu, meta).of(i, 0)
	}
	return out
}

func TestClassifyFindsTheTopLevelIDOnly(t *testing.T) {
	cases := []struct {
		line string
		id   uint64
		kind lineKind
	}{
		{`{"jsonrpc":"2.0","result":{"structuredContent":{"products":[{"id":7}]}},"id":42}`, 42, replyLine},
		{`{"id":"9","jsonrpc":"2.0","result":{}}` + "\r\n", 9, replyLine},
		{`{"result":{"content":[{"text":"{\"id\":3}"}]},"id": 5 }`, 5, replyLine},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`, 0, unmatchedReply},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"id":1}}`, 0, serverMessage},
		{`{"jsonrpc":"2.0","method":"ping","id":1}`, 0, serverMessage},
		{"  \r\n", 0, blankLine},
		{"Server listening on stdio\n", 0, garbageLine},
		{`{"jsonrpc":"2.0","result":{`, 0, garbageLine},
		{`{}`, 0, garbageLine},
		{`[{"id":1}]`, 0, garbageLine},
	}
	for _, c := range cases {
		id, kind := classify([]byte(c.line))
		if id != c.id || kind != c.kind {
			t.Errorf("classify(%q) = %d, %d; want %d, %d", c.line, id, kind, c.id, c.kind)
		}
	}
}

func toolReply(payload string) string {
	text, _ := json.Marshal(payload)
	return `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + string(text) + `}]}}`
}

func TestJudgeGivesLoadJsVerdicts(t *testing.T) {
	p := lineup(t)
	search := `{"total_found":2251,"products":[1,2,3,4,5,6,7,8,9,null],"top10_popular_ids":[1,2,3,4,5,6,7,8,9,10]}`
	cases := []struct {
		call   int
		line   string
		checks bool
		want   string
	}{
		{0, toolReply(search), true, ""},
		{0, toolReply(`{"total_found":2250,"products":[],"top10_popular_ids":[]}`), true, "check_failed"},
		{0, toolReply(`{"total_found":2250}`), false, ""},
		{0, toolReply(`not json`), true, "check_failed"},
		{1, toolReply(`{"cart":{"items":[{}]},"recent_history":[1,2,3,4,5]}`), true, ""},
		{1, toolReply(`{"cart":null,"recent_history":[1,2,3,4,5]}`), true, "check_failed"},
		{2, toolReply(`{"status":"confirmed","total":12.5,"items_count":2}`), true, ""},
		{2, toolReply(`{"status":"confirmed","total":"12.5","items_count":2}`), true, "check_failed"},
		{2, `{"id":1,"result":{"content":[{"text":"x"}],"isError":true}}`, true, "tool_error"},
		{2, `{"id":1,"error":{"code":-32603,"message":"boom"}}`, true, "jsonrpc_-32603"},
		{2, `{"id":1,"error":{"message":"no code"}}`, true, "jsonrpc_undefined"},
		{2, `{"id":1,"error":null,"result":{"content":[]}}`, false, ""},
		{2, `{"id":1,"result":null}`, true, "bad_response"},
		{2, `{"id":1}`, true, "bad_response"},
		{2, `{"id":1,"result":false}`, true, "bad_response"},
		{2, `{"id":1,"result":"text"}`, false, ""},
		{2, `{"id":1,"result":"text"}`, true, "check_failed"},
		{2, `{"id":1,"result":{"content":[{"text":5}]}}`, true, "check_failed"},
		{2, `{"id":1,"result":{"content":[{"te`, true, "bad_response"},
		{toolsListCall, `{"id":1,"result":{"tools":[{},{},{}]}}`, true, ""},
		{toolsListCall, `{"id":1,"result":{"tools":[{},{}]}}`, false, "check_failed"},
		{toolsListCall, `{"id":1,"result":{"tools":[{},{},{}],"isError":true}}`, true, ""},
	}
	for _, c := range cases {
		if got := judge(p.Calls[c.call], []byte(c.line), c.checks); got != c.want {
			t.Errorf("judge(%s, %s, checks=%v) = %q; want %q", p.Calls[c.call].Name, c.line, c.checks, got, c.want)
		}
	}
}

func TestRequestBodiesAreLoadJsBytes(t *testing.T) {
	p := requestPrefixes(t, 1000, "")
	want := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"checkout","arguments":{"user_id":"user-01000",` +
		`"items":[{"product_id":42,"quantity":2},{"product_id":1337,"quantity":1}]}},"id":17}` + "\n"
	if got := string(body(p[2], 17, '\n')); got != want {
		t.Errorf("checkout body %s; want %s", got, want)
	}
	if got := string(body(requestPrefixes(t, 1, "")[toolsListCall], 3, '\n')); got != `{"jsonrpc":"2.0","method":"tools/list","params":{},"id":3}`+"\n" {
		t.Errorf("tools/list body %s", got)
	}
}

func BenchmarkJudgeSearch(b *testing.B) {
	products := `[{"id":1,"sku":"SKU-000001","name":"Alpha Electronics Item 1","price":51.0,"rating":1.0,"popularity_rank":0}`
	for i := 0; i < 9; i++ {
		products += `,{"id":1,"sku":"SKU-000001","name":"Alpha Electronics Item 1","price":51.0,"rating":1.0,"popularity_rank":0}`
	}
	line := []byte(toolReply(`{"category":"Electronics","total_found":2251,"products":` + products +
		`],"top10_popular_ids":[1,2,3,4,5,6,7,8,9,10],"server_type":"go"}`))
	search := lineup(b).Calls[0]
	for b.Loop() {
		classify(line)
		if judge(search, line, true) != "" {
			b.Fatal("check failed")
		}
	}
}

func TestTheStateless2026BodiesCarryTheirMeta(t *testing.T) {
	p := requestPrefixes(t, 1, meta2026)
	want := `{"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":` +
		`"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":` +
		`{"name":"mcpbench-load-driver","version":"1"}}},"id":4}`
	if got := string(body(p[toolsListCall], 4, 0)); got != want {
		t.Errorf("tools/list body %s; want %s", got, want)
	}
}

func TestSSERepliesGiveTheMessageWithAnID(t *testing.T) {
	cases := []struct {
		body string
		ok   bool
		want string
	}{
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\ndata: {\"id\":3,\"result\":{}}\n\n", true, `{"id":3,"result":{}}`},
		{"data: {\"id\":3,\"result\":{}}\r\n\r\n", true, `{"id":3,"result":{}}`},
		{"data: not json\n\n", false, ""},
		{"data:\n\n", false, ""},
		{"id: 0\ndata:\n\nid: 1\ndata: {\"id\":3,\"result\":{}}\n\n", true, `{"id":3,"result":{}}`}, // a priming event first
		{"event: ping\n\n", false, ""},
	}
	for _, c := range cases {
		line, ok := httpReply{sse: true, body: []byte(c.body)}.message()
		if ok != c.ok || string(line) != c.want {
			t.Errorf("message(%q) = %q, %v; want %q, %v", c.body, line, ok, c.want, c.ok)
		}
	}
}

func TestInitializeVerdicts(t *testing.T) {
	for line, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"}}`: "",
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603}}`:                   "jsonrpc_-32603",
		`{"jsonrpc":"2.0","id":1}`:                                           "bad_response",
		`["not","a","reply"]`:                                                "bad_response",
		`{"id":1,"result":`:                                                  "bad_response",
	} {
		if got := judgeInitialize([]byte(line)); got != want {
			t.Errorf("judgeInitialize(%s) = %q; want %q", line, got, want)
		}
	}
}
