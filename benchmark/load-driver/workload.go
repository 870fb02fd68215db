package main

// How a reply is judged, and the protocol's own messages (initialize, its notification, the 2026 _meta).
// What the VUs call is the workload (plan.go), given as data; for the lineup's workload the bodies are
// benchmark/mcpbench/k6/load.js's byte for byte and the verdicts its error kinds.

import (
	"encoding/json"
	"errors"
	"strconv"
)

// clientName is the driver's clientInfo name (initialize, and params._meta of the 2026-07-28 revision).
const clientName = "mcpbench-load-driver"

// revision2026 is the MCP revision of mode stateless-2026: self-contained requests (docs/workload.md §4).
const revision2026 = "2026-07-28"

// meta2026 is load.js's META_2026 (params._meta of every request in mode stateless-2026).
const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + revision2026 + `",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"` + clientName + `","version":"1"}}`

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
	IsError           json.RawMessage `json:"isError"`
	StructuredContent present         `json:"structuredContent"`
}

// present marks a value that is there, without copying it (read again from the line when it is used).
type present bool

func (p *present) UnmarshalJSON([]byte) error { *p = true; return nil }

// resultOf is the reply's result object itself (a method call's checks, or the structured content).
func resultOf(line []byte) []byte {
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(line, &r)
	return r.Result
}

// firstContentsText is what a resources/read's checks read, as a tool's read its first text content: the
// result's first contents' text (parsed as JSON by judgeResult, or checked as a string); ok is false when
// there is none (a blob, or no contents).
func firstContentsText(result []byte) (text []byte, ok bool) {
	var r struct {
		Contents []struct {
			Text *string `json:"text"`
		} `json:"contents"`
	}
	if json.Unmarshal(result, &r) != nil || len(r.Contents) == 0 || r.Contents[0].Text == nil {
		return nil, false
	}
	return []byte(*r.Contents[0].Text), true
}

// judge is load.js's replyResult + judgeCall for one reply line to call c: "" when the call succeeded,
// else its error kind. A method call's checks (tools/list's count) are the protocol's and always made;
// `--checks off` leaves out a tool result's.
func judge(c *call, line []byte, checks bool) string {
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
	if c.Method == resourcesRead && len(c.Checks) > 0 {
		text, ok := firstContentsText(resultOf(line))
		if !ok {
			return "check_failed"
		}
		return c.judgeResult(text)
	}
	if c.Method != toolsCall {
		return c.judgeResult(resultOf(line))
	}
	if truthy(r.Result.IsError) {
		return "tool_error"
	}
	if !checks || len(c.Checks) == 0 {
		return ""
	}
	// The checks read the first text content as JSON (text that is no JSON as a string: every lineup
	// check on it fails, as JSON.parse throwing does), or the structured content of a result without text.
	if len(r.Result.Content) > 0 && r.Result.Content[0].Text != nil {
		return c.judgeResult([]byte(*r.Result.Content[0].Text))
	}
	if r.Result.StructuredContent {
		var s struct {
			Result struct {
				StructuredContent json.RawMessage `json:"structuredContent"`
			} `json:"result"`
		}
		_ = json.Unmarshal(line, &s)
		return c.judgeResult(s.Result.StructuredContent)
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
