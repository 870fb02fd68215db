package main

// What the VUs send and how a reply is judged: benchmark/mcpbench/k6/load.js's closed iteration, byte for
// byte where the server can see it (the same JSON-RPC bodies) and verdict for verdict where the samples
// record it (the same error kinds). A change to load.js's TOOLS, toolArguments, checkResult or judgeCall
// must be made here too.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// The iteration's calls, in order: the three tools, then tools/list (load.js closedIteration).
var calls = [...]string{"search_products", "get_user_cart", "checkout", "tools/list"}

const toolsList = 3 // index of tools/list in calls

// userFor is load.js's userFor: VU N uses user-{N % 1000}, but 1000 for N = 1000, 2000… (user-00000 has
// no cart).
func userFor(vu int) string {
	n := vu % 1000
	if n == 0 {
		n = 1000
	}
	return fmt.Sprintf("user-%05d", n)
}

// clientName is the driver's clientInfo name (initialize, and params._meta of the 2026-07-28 revision).
const clientName = "mcpbench-load-driver"

// revision2026 is the MCP revision of mode stateless-2026: self-contained requests (docs/workload.md §4).
const revision2026 = "2026-07-28"

// meta2026 is load.js's META_2026 (params._meta of every request in mode stateless-2026).
const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + revision2026 + `",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"` + clientName + `","version":"1"}}`

// requestPrefixes are one VU's request bodies without their id: JSON.stringify({jsonrpc, method,
// params}) minus its '}' plus `,"id":`, as load.js's bodyPrefix builds them (JS prints 50.0 as 50). A
// body is prefix + id + "}" (and a newline over stdio, the transport's message delimiter). meta, when
// not empty, is a member appended to every params object (mode stateless-2026).
func requestPrefixes(vu int, meta string) [len(calls)][]byte {
	user := userFor(vu)
	arguments := [len(calls)]string{
		`"name":"search_products","arguments":{"category":"Electronics","min_price":50,"max_price":500,"limit":10}`,
		`"name":"get_user_cart","arguments":{"user_id":"` + user + `"}`,
		`"name":"checkout","arguments":{"user_id":"` + user + `","items":[{"product_id":42,"quantity":2},{"product_id":1337,"quantity":1}]}`,
		``,
	}
	var params [len(calls)]string
	for i, members := range arguments {
		if meta != "" {
			if members != "" {
				members += ","
			}
			members += meta
		}
		params[i] = "{" + members + "}"
	}
	var prefixes [len(calls)][]byte
	for i, p := range params {
		method := "tools/call"
		if i == toolsList {
			method = "tools/list"
		}
		prefixes[i] = []byte(`{"jsonrpc":"2.0","method":"` + method + `","params":` + p + `,"id":`)
	}
	return prefixes
}

// initializePrefix is initialize's body without its id, for a protocol revision.
func initializePrefix(protocol string) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"` + protocol +
		`","capabilities":{},"clientInfo":{"name":"` + clientName + `","version":"1"}},"id":`)
}

// initializedBody is the notification that ends the handshake.
const initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// body is a complete request: prefix, id, '}' and the transport's delimiter (0: none).
func body(prefix []byte, id uint64, delimiter byte) []byte {
	b := make([]byte, 0, len(prefix)+24)
	b = append(b, prefix...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, '}')
	if delimiter != 0 {
		b = append(b, delimiter)
	}
	return b
}

// judgeInitialize is load.js's judgeInitialize on a reply: its error, or a reply without a result, is the
// session's failure.
func judgeInitialize(line []byte) string {
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return "bad_response"
		}
	}
	if truthy(r.Error) {
		return "jsonrpc_" + errorCode(r.Error)
	}
	if !truthy(r.Result) {
		return "bad_response"
	}
	return ""
}

// skip stands for any JSON value whose only use is being counted (an array's length): the decoder hands
// it over without building anything.
type skip struct{}

func (*skip) UnmarshalJSON([]byte) error { return nil }

type reply struct {
	Result *result         `json:"result"`
	Error  json.RawMessage `json:"error"`
}

type result struct {
	Content []struct {
		Text *string `json:"text"`
	} `json:"content"`
	IsError json.RawMessage `json:"isError"`
	Tools   []skip          `json:"tools"`
}

// The tools' payloads, only the fields checkResult reads. A missing field stays zero and fails its check,
// as undefined does in load.js.
type searchPayload struct {
	TotalFound float64 `json:"total_found"`
	Products   []skip  `json:"products"`
	Top10      []skip  `json:"top10_popular_ids"`
}

type cartPayload struct {
	Cart *struct {
		Items []skip `json:"items"`
	} `json:"cart"`
	RecentHistory []skip `json:"recent_history"`
}

type checkoutPayload struct {
	Status     string  `json:"status"`
	Total      float64 `json:"total"`
	ItemsCount float64 `json:"items_count"`
}

// judge is load.js's replyResult + judgeCall for one reply line: "" when the call succeeded, else its
// error kind.
func judge(call int, line []byte, checks bool) string {
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return "bad_response" // no JSON: res.json() throws
		}
		if typeErr.Field == "result" {
			// A result that is no object: load.js goes on with it when it is truthy, and nothing it
			// reads from it exists (the zero result below); a falsy one is a bad response.
			var raw struct {
				Result json.RawMessage `json:"result"`
			}
			_ = json.Unmarshal(line, &raw)
			if !truthy(raw.Result) {
				return "bad_response"
			}
			r.Result = &result{}
		}
	}
	if truthy(r.Error) {
		return "jsonrpc_" + errorCode(r.Error)
	}
	if r.Result == nil {
		return "bad_response"
	}
	if call == toolsList {
		if len(r.Result.Tools) >= 3 {
			return ""
		}
		return "check_failed"
	}
	if truthy(r.Result.IsError) {
		return "tool_error"
	}
	if !checks {
		return ""
	}
	if len(r.Result.Content) == 0 || r.Result.Content[0].Text == nil {
		return "check_failed"
	}
	return checkResult(call, []byte(*r.Result.Content[0].Text))
}

// checkResult is load.js's checkResult on the tool's JSON text (docs/workload.md §3); text that is no
// JSON fails it, as JSON.parse throwing does.
func checkResult(call int, text []byte) string {
	ok := false
	switch calls[call] {
	case "search_products":
		var d searchPayload
		ok = json.Unmarshal(text, &d) == nil && d.TotalFound == 2251 && len(d.Products) == 10 && len(d.Top10) == 10
	case "get_user_cart":
		var d cartPayload
		ok = json.Unmarshal(text, &d) == nil && d.Cart != nil && len(d.Cart.Items) >= 1 && len(d.RecentHistory) == 5
	case "checkout":
		var d checkoutPayload
		ok = json.Unmarshal(text, &d) == nil && d.Status == "confirmed" && d.Total > 0 && d.ItemsCount == 2
	}
	if ok {
		return ""
	}
	return "check_failed"
}

// truthy is JavaScript's truthiness of a JSON value (absent counts as undefined).
func truthy(raw json.RawMessage) bool {
	switch string(raw) {
	case "", "null", "false", `""`:
		return false
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
		return f != 0
	}
	return true
}

// errorCode prints error.code as a JS template literal does (`jsonrpc_${message.error.code}`).
func errorCode(raw json.RawMessage) string {
	var e struct {
		Code json.RawMessage `json:"code"`
	}
	if json.Unmarshal(raw, &e) != nil || len(e.Code) == 0 {
		return "undefined"
	}
	if f, err := strconv.ParseFloat(string(e.Code), 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	var s string
	if json.Unmarshal(e.Code, &s) == nil {
		return s
	}
	return string(e.Code)
}
