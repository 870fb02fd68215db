package main

import (
	"strings"
	"testing"
)

const weighted = `{"calls":[
 {"name":"echo","method":"tools/call","tool":"echo","params":"\"name\":\"echo\",\"arguments\":{\"message\":\"vu {vu} it {iteration%3} u{vu%10:03}\"}","weight":2,
  "checks":[{"pointer":"/content/0/text","equals":"hi"},{"pointer":"/a~1b","above":1},{"pointer":"/gone","absent":true}]},
 {"name":"add","method":"tools/call","tool":"get-sum","params":"\"name\":\"get-sum\",\"arguments\":{\"a\":1,\"b\":2}","weight":1,"checks":[]},
 {"name":"tools/list","method":"tools/list","tool":"","params":"","weight":1,"checks":[{"pointer":"/tools","min_length":1}]}]}`

func TestTheWorkloadIsData(t *testing.T) {
	p, err := parsePlan(weighted)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.closed; len(got) != 4 || got[0] != 0 || got[1] != 0 || got[2] != 1 || got[3] != 2 {
		t.Errorf("closed iteration %v; want [0 0 1 2] (each call weight times, in order)", got)
	}
	if got := p.open; len(got) != 3 || got[2] != 1 {
		t.Errorf("open cycle %v; want [0 0 1] (the tool calls only)", got)
	}
	pre := p.prefixes(12, "")
	want := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"message":"vu 12 it 1 u002"}},"id":7}`
	if got := string(body(pre.of(0, 4), 7, 0)); got != want {
		t.Errorf("rendered %s; want %s", got, want)
	}
	if got := string(body(pre.of(1, 4), 8, 0)); !strings.Contains(got, `"arguments":{"a":1,"b":2}},"id":8}`) {
		t.Errorf("fixed body %s", got)
	}
	echo := p.Calls[0]
	structured := `{"id":1,"result":{"structuredContent":{"content":[{"text":"hi"}],"a/b":2}}}`
	for line, want := range map[string]string{
		structured: "",
		`{"id":1,"result":{"structuredContent":{"content":[{"text":"hi"}],"a/b":1}}}`:          "check_failed",
		`{"id":1,"result":{"structuredContent":{"content":[{"text":"hi"}],"a/b":2,"gone":3}}}`: "check_failed",
		`{"id":1,"result":{"structuredContent":{"content":[{"text":"ho"}],"a/b":2}}}`:          "check_failed",
		`{"id":1,"result":{"structuredContent":{"content":[],"a/b":2}}}`:                       "check_failed",
		`{"id":1,"result":{"structuredContent":{"content":[{"text":"hi"}],"a\/b":2}}}`:         "",
		toolReply(`{"content":[{"text":"hi"}],"a/b":"2"}`):                                     "check_failed",
		toolReply(`{"content" : [ {"text" : "hi"} ] , "a/b" : 2.5 }`):                          "",
		`{"id":1,"result":{"content":[],"isError":true}}`:                                      "tool_error",
		`{"id":1,"result":{}}`: "check_failed",
	} {
		if got := judge(echo, []byte(line), true); got != want {
			t.Errorf("judge(echo, %s) = %q; want %q", line, got, want)
		}
	}
	if got := judge(p.Calls[1], []byte(`{"id":1,"result":{}}`), true); got != "" {
		t.Errorf("a call without checks passes any result: %q", got)
	}
	if got := judge(p.Calls[2], []byte(`{"id":1,"result":{"tools":[]}}`), true); got != "check_failed" {
		t.Errorf("tools/list with no tools: %q", got)
	}
}

func TestABadWorkloadIsRefusedInOneLine(t *testing.T) {
	for text, said := range map[string]string{
		`{"calls":[]}`: "no calls",
		`{"calls":[{"name":"x","method":"tools/call","weight":1}]}`:                                       "without a tool",
		`{"calls":[{"name":"x","method":"tools/call","tool":"x","weight":0}]}`:                            "weight 0",
		`{"calls":[{"name":"x","method":"tools/list","weight":1}]}`:                                       "no arrival",
		`{"calls":[{"name":"x","method":"tools/call","tool":"x","weight":1,"extra":true}]}`:               "unknown field",
		`{"calls":[{"name":"x","method":"tools/call","tool":"x","weight":1,"checks":[{"pointer":"a"}]}]}`: "does not start with /",
	} {
		if _, err := parsePlan(text); err == nil || !strings.Contains(err.Error(), said) {
			t.Errorf("parsePlan(%s) = %v; want an error saying %q", text, err, said)
		}
	}
}

func TestTextThatIsNoJSONIsCheckedAsAString(t *testing.T) {
	p, err := parsePlan(`{"calls":[{"name":"echo","method":"tools/call","tool":"echo","params":"","weight":1,"checks":[{"pointer":"","equals":"Echo: hi"}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := judge(p.Calls[0], []byte(toolReply("Echo: hi")), true); got != "" {
		t.Errorf("echo's text: %q", got)
	}
	if got := judge(p.Calls[0], []byte(toolReply("Echo: ho")), true); got != "check_failed" {
		t.Errorf("another text: %q", got)
	}
}

const methods = `{"calls":[
 {"name":"product","method":"resources/read","params":"\"uri\":\"product://{vu%3}\"","mcp_name":"product://{vu%3}","arrival":true,"weight":2,
  "checks":[{"pointer":"/id","equals":2}]},
 {"name":"prompts/get","method":"prompts/get","params":"\"name\":\"cart\"","mcp_name":"cart","weight":1,"checks":[]},
 {"name":"echo","method":"tools/call","tool":"echo","params":"\"name\":\"echo\",\"arguments\":{}","weight":1,"checks":[]}]}`

func TestAMethodCallHasParamsAndIsAnArrivalWhenTheFileSaysSo(t *testing.T) {
	p, err := parsePlan(methods)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.open; len(got) != 3 || got[0] != 0 || got[1] != 0 || got[2] != 2 {
		t.Errorf("open cycle %v; want [0 0 2] (the arrival twice, the tool call; not prompts/get)", got)
	}
	want := `{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"product://2"},"id":3}`
	if got := string(body(p.prefixes(5, "").of(0, 0), 3, 0)); got != want {
		t.Errorf("rendered %s; want %s", got, want)
	}
	if got := string(p.Calls[0].mcpName.render(nil, 5, 0)); got != "product://2" {
		t.Errorf("Mcp-Name %q; want the rendered uri", got)
	}
	if got := string(p.Calls[2].mcpName.render(nil, 5, 0)); got != "echo" {
		t.Errorf("a tool call's Mcp-Name %q; want its tool", got)
	}
	read := p.Calls[0]
	for line, want := range map[string]string{
		`{"id":1,"result":{"contents":[{"uri":"product://2","text":"{\"id\":2}"}]}}`: "",
		`{"id":1,"result":{"contents":[{"uri":"product://2","text":"{\"id\":3}"}]}}`: "check_failed",
		`{"id":1,"result":{"contents":[{"uri":"product://2","blob":"AAAA"}]}}`:       "check_failed",
		`{"id":1,"result":{"contents":[]}}`:                                          "check_failed",
		`{"id":1,"result":{"id":2}}`:                                                 "check_failed",
		`{"id":1,"error":{"code":-32002,"message":"not found"}}`:                     "jsonrpc_-32002",
	} {
		if got := judge(read, []byte(line), true); got != want {
			t.Errorf("judge(resources/read, %s) = %q; want %q", line, got, want)
		}
	}
	if got := judge(p.Calls[1], []byte(`{"id":1,"result":{"messages":[]}}`), true); got != "" {
		t.Errorf("prompts/get without checks: %q", got)
	}
}
