package main

// The workload as data (--workload): the calls a VU makes, their arguments and the checks on their
// replies, compiled by the orchestrator from a workload file (benchmark/mcpbench/workload/file.py,
// docs/workload-file.md). The lineup's own workload is one such file (workload/lineup.toml): its bodies are
// load.js's byte for byte.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync/atomic"
	"unicode/utf8"
)

const (
	toolsCall     = "tools/call"
	toolsList     = "tools/list"
	resourcesRead = "resources/read"
)

// listMethods are the paged methods: a reply naming result.nextCursor is followed to its last page.
var listMethods = map[string]bool{toolsList: true, "resources/list": true, "resources/templates/list": true,
	"prompts/list": true}

// plan is the compiled workload.
type plan struct {
	Calls []*call `json:"calls"`
	// Headers are sent with every HTTP request (a target's --header: Authorization, a tenant); never over stdio.
	Headers map[string]string `json:"headers"`
	// Abandon: session mode's sessions are left open after their call, never DELETEd (a client that crashed or
	// forgot): what a server keeps of a session nobody closes.
	Abandon bool `json:"abandon"`
	// DropStream: an abandoned session's client also opens the session's standalone GET stream and drops the
	// TCP connection under it, unread: a client that crashed mid-stream (needs Abandon).
	DropStream bool `json:"drop_stream"`
	// closed is the closed model's iteration (every call, each `weight` times, in the file's order); open
	// the open model's cycle (the tool calls and the method calls made arrivals, each `weight` times): arrival
	// k makes open[k % len].
	closed []int
	open   []int
	// cursorPages counts the tools/list pages fetched after a first one (following result.nextCursor) by
	// every VU: they are sent (over HTTP counted in http_reqs too), but a sample holds its list as one duration.
	cursorPages atomic.Int64
	// sessionsLeftOpen counts the sessions an abandoning workload left open (session ids never DELETEd).
	sessionsLeftOpen atomic.Int64
	// requestsUnread counts the requests an abandoning workload sent over stdio while it read nothing back.
	requestsUnread atomic.Int64
	// requestsNotTaken counts those the server did not take from its stdin within the timeout (it stopped reading).
	requestsNotTaken atomic.Int64
	// firstLeft is the first session an abandoning workload left open: asked again once the load is over
	// (oldestSession), whether the server still holds it.
	firstLeft atomic.Pointer[string]
	// streamsDropped counts the GET streams DropStream dropped while the server had them open (200, or held
	// unanswered).
	streamsDropped atomic.Int64
	// WorkRedis is the Redis (a URL) the cancelled calls' work lists are read from once the load is over.
	WorkRedis string `json:"work_redis"`
	cancels   cancellations
}

// call is one request of the workload.
type call struct {
	Name   string  `json:"name"`   // what its samples are called
	Method string  `json:"method"` // tools/call, or another MCP request method (tools/list, resources/read…)
	Tool   string  `json:"tool"`   // tools/call: the tool's name
	Params string  `json:"params"` // params' members, JSON text without its braces, with placeholders
	Weight int     `json:"weight"`
	Checks []check `json:"checks"`
	// McpName is the 2026-07-28 revision's Mcp-Name header, with placeholders: what the call names (a
	// resource's uri, a prompt's name); empty: the tool.
	McpName string `json:"mcp_name"`
	// Arrival: a method call that the open model's arrivals make (a tool call always is one).
	Arrival bool `json:"arrival"`
	// Progress is how many notifications/progress the call asks for (its params carry a progress token): over
	// HTTP they must arrive on its reply before the result, and the first one's arrival is timed (first_ms).
	Progress int `json:"progress"`
	// CancelAfterMs: the client cancels the call this long after sending it (cancel.go); 0: never.
	CancelAfterMs int `json:"cancel_after_ms"`
	// WorkList is the Redis list, with placeholders, that the call's work appends its Unix-ms times to:
	// read after the load, it says how many steps the server still did after the cancellation.
	WorkList string `json:"work_list"`

	params   template
	mcpName  template
	workList template
}

// check is one check on a reply: the value at Pointer (RFC 6901) in the result's JSON, which must exist
// and, when given, equal Equals, have Length or at least MinLength elements, or be a number above Above.
type check struct {
	Pointer   string          `json:"pointer"`
	Equals    json.RawMessage `json:"equals"`
	Length    *int            `json:"length"`
	MinLength *int            `json:"min_length"`
	Above     *float64        `json:"above"`
	Absent    bool            `json:"absent"` // the value must not exist

	tokens []string
	equals any
}

// A placeholder in a string of the arguments: {vu} (the VU's number, from 1), {iteration} (the closed
// model's iteration of the VU, the open model's arrival, from 0); %N cycles it through N values (1…N for
// a VU, 0…N-1 for an iteration); :0W pads it with zeros to W digits.
var placeholder = regexp.MustCompile(`\{(vu|iteration)(?:%([1-9][0-9]*))?(?::0([1-9][0-9]?))?\}`)

// part is a literal piece of a template, or a placeholder.
type part struct {
	literal []byte
	name    string // "vu" | "iteration"; "" for a literal
	cycle   int64
	width   int
}

type template struct {
	parts        []part
	perIteration bool // it names {iteration}: rendered for every call, not once per VU
}

func compileTemplate(text string) template {
	var t template
	at := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(text, -1) {
		t.parts = append(t.parts, part{literal: []byte(text[at:m[0]])})
		p := part{name: text[m[2]:m[3]]}
		if m[4] >= 0 {
			p.cycle, _ = strconv.ParseInt(text[m[4]:m[5]], 10, 64)
		}
		if m[6] >= 0 {
			p.width, _ = strconv.Atoi(text[m[6]:m[7]])
		}
		t.perIteration = t.perIteration || p.name == "iteration"
		t.parts = append(t.parts, p)
		at = m[1]
	}
	t.parts = append(t.parts, part{literal: []byte(text[at:])})
	return t
}

// render appends the template with vu (from 1) and iteration (from 0) put in.
func (t template) render(b []byte, vu int, iteration int64) []byte {
	for _, p := range t.parts {
		if p.name == "" {
			b = append(b, p.literal...)
			continue
		}
		v := iteration
		if p.name == "vu" {
			v = int64(vu)
			if p.cycle > 0 {
				v = (v-1)%p.cycle + 1
			}
		} else if p.cycle > 0 {
			v %= p.cycle
		}
		digits := strconv.AppendInt(nil, v, 10)
		for range p.width - len(digits) {
			b = append(b, '0')
		}
		b = append(b, digits...)
	}
	return b
}

// parsePlan reads --workload's JSON and prepares it; an error says what is wrong with it.
func parsePlan(text string) (*plan, error) {
	var p plan
	decoder := json.NewDecoder(bytes.NewReader([]byte(text)))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&p); err != nil {
		return nil, fmt.Errorf("--workload: %v", err)
	}
	if len(p.Calls) == 0 {
		return nil, errors.New("--workload: no calls")
	}
	for i, c := range p.Calls {
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("--workload: call %d has no name", i)
		case c.Method == toolsCall && c.Tool == "":
			return nil, fmt.Errorf("--workload: call %s: tools/call without a tool", c.Name)
		case c.Weight < 1:
			return nil, fmt.Errorf("--workload: call %s: weight %d (at least 1)", c.Name, c.Weight)
		case c.Progress < 0 || c.Progress > 0 && c.Method != toolsCall:
			return nil, fmt.Errorf("--workload: call %s: progress %d (a tools/call's notifications, 0 or more)", c.Name, c.Progress)
		case c.CancelAfterMs < 0 || c.CancelAfterMs > 0 && listMethods[c.Method]:
			return nil, fmt.Errorf("--workload: call %s: cancel_after_ms %d (0 or more, not on a paged list)", c.Name, c.CancelAfterMs)
		case c.WorkList != "" && c.CancelAfterMs == 0:
			return nil, fmt.Errorf("--workload: call %s: a work_list is read for a cancelled call only", c.Name)
		}
		c.workList = compileTemplate(c.WorkList)
		c.params = compileTemplate(c.Params)
		if c.McpName == "" {
			c.McpName = c.Tool
		}
		c.mcpName = compileTemplate(c.McpName)
		for j := range c.Checks {
			k := &c.Checks[j]
			if k.Pointer != "" && k.Pointer[0] != '/' {
				return nil, fmt.Errorf("--workload: call %s: pointer %q does not start with /", c.Name, k.Pointer)
			}
			k.tokens = pointerTokens(k.Pointer)
			if len(k.Equals) > 0 {
				if err := json.Unmarshal(k.Equals, &k.equals); err != nil {
					return nil, fmt.Errorf("--workload: call %s: equals: %v", c.Name, err)
				}
			}
		}
		for range c.Weight {
			p.closed = append(p.closed, i)
			if c.Method == toolsCall || c.Arrival {
				p.open = append(p.open, i)
			}
		}
	}
	if len(p.open) == 0 {
		return nil, errors.New("--workload: no arrival (a tool call, or a method call with arrival)")
	}
	return &p, nil
}

// pointerTokens splits an RFC 6901 pointer ("" is the whole document).
func pointerTokens(pointer string) []string {
	if pointer == "" {
		return nil
	}
	var tokens []string
	for _, t := range bytes.Split([]byte(pointer[1:]), []byte("/")) {
		t = bytes.ReplaceAll(t, []byte("~1"), []byte("/"))
		t = bytes.ReplaceAll(t, []byte("~0"), []byte("~"))
		tokens = append(tokens, string(t))
	}
	return tokens
}

// prefix is the call's request body for a VU without its id: JSON.stringify({jsonrpc, method, params})
// minus its '}' plus `,"id":`, as load.js's bodyPrefix builds them. meta, when not empty, is a member
// appended to the params object (mode stateless-2026). A body is prefix + id + "}" (body()).
func (c *call) prefix(b []byte, vu int, iteration int64, meta string) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":"`...)
	b = append(b, c.Method...)
	b = append(b, `","params":{`...)
	b = c.params.render(b, vu, iteration)
	if meta != "" {
		if len(c.Params) > 0 {
			b = append(b, ',')
		}
		b = append(b, meta...)
	}
	return append(b, `},"id":`...)
}

// cursorPrefix is the request for the page of call c's list after `cursor` (the JSON string a reply's
// result.nextCursor held, as it came): the same method with params {"cursor": …} and meta.
func (c *call) cursorPrefix(cursor []byte, meta string) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","method":"`), c.Method...)
	b = append(b, `","params":{"cursor":`...)
	b = append(b, cursor...)
	if meta != "" {
		b = append(append(b, ','), meta...)
	}
	return append(b, `},"id":`...)
}

// maxListPages bounds one list: a server whose cursors never end fails the call instead of holding the VU.
const maxListPages = 1000

var nextCursorName = []byte(`"nextCursor"`)

// nextCursor is the cursor of the page after this reply of a list method (line: its JSON-RPC message), as
// JSON text; nil on the last page. The bytes are searched first: a whole list's result (MBs at 10,000 tools)
// is scanned again only when it names a cursor at all.
func nextCursor(c *call, line []byte) []byte {
	if !listMethods[c.Method] || !bytes.Contains(line, nextCursorName) {
		return nil
	}
	value, ok := lookup(resultOf(line), []string{"nextCursor"})
	if !ok || firstByte(value) != '"' || bytes.Equal(bytes.TrimSpace(value), []byte(`""`)) {
		return nil
	}
	return bytes.TrimSpace(value)
}

// prefixes is every call's prefix for a VU, made once; a call whose arguments name {iteration} is
// rendered for each call instead (requestPrefix).
type prefixes struct {
	plan  *plan
	vu    int
	meta  string
	fixed [][]byte
}

func (p *plan) prefixes(vu int, meta string) prefixes {
	out := prefixes{plan: p, vu: vu, meta: meta, fixed: make([][]byte, len(p.Calls))}
	for i, c := range p.Calls {
		if !c.params.perIteration {
			out.fixed[i] = c.prefix(nil, vu, 0, meta)
		}
	}
	return out
}

// of is call i's prefix at an iteration.
func (p prefixes) of(i int, iteration int64) []byte {
	if f := p.fixed[i]; f != nil {
		return f
	}
	return p.plan.Calls[i].prefix(nil, p.vu, iteration, p.meta)
}

// cursor is the request prefix of the page after `cursor` of call i's list.
func (p prefixes) cursor(i int, cursor []byte) []byte {
	return p.plan.Calls[i].cursorPrefix(cursor, p.meta)
}

// judgeResult makes the call's checks on a JSON document (a tool's result, or a method's result object).
// The document is validated once; each check then finds its value by scanning the bytes (envelope.go's
// skipValue), with nothing decoded but the value a check compares: a reply is judged for every call, and
// decoding whole payloads would cost the driver a multiple of its CPU per call.
func (c *call) judgeResult(document []byte) string {
	if len(c.Checks) == 0 {
		return ""
	}
	if !json.Valid(document) { // text that is no JSON is checked as a string (a lineup check on it fails)
		quoted, _ := json.Marshal(string(document))
		document = quoted
	}
	for i := range c.Checks {
		if !c.Checks[i].holds(document) {
			return "check_failed"
		}
	}
	return ""
}

// holds is whether the check passes on the (valid) document.
func (k *check) holds(document []byte) bool {
	value, ok := lookup(document, k.tokens)
	if !ok || k.Absent {
		return ok == !k.Absent
	}
	if k.Length != nil || k.MinLength != nil {
		n, isArray := valueLength(value)
		if !isArray || k.Length != nil && n != *k.Length || k.MinLength != nil && n < *k.MinLength {
			return false
		}
	}
	if k.Above != nil {
		if c := value[0]; c != '-' && (c < '0' || c > '9') {
			return false
		}
		f, err := strconv.ParseFloat(string(value), 64)
		if err != nil || !(f > *k.Above) {
			return false
		}
	}
	if len(k.Equals) > 0 {
		var got any
		if json.Unmarshal(value, &got) != nil || !equalJSON(got, k.equals) {
			return false
		}
	}
	return true
}

// lookup is the value at the pointer's tokens, a slice of the document: an object's member, an array's
// element (by index); ok is false when there is none (a missing member, null on the way or at the end, an
// index out of range) — undefined and null alike fail a check, as in load.js.
func lookup(document []byte, tokens []string) ([]byte, bool) {
	value := bytes.TrimSpace(document)
	for _, token := range tokens {
		var ok bool
		switch firstByte(value) {
		case '{':
			value, ok = member(value, token)
		case '[':
			index, err := strconv.Atoi(token)
			ok = err == nil
			if ok {
				value, ok = element(value, index)
			}
		}
		if !ok {
			return nil, false
		}
	}
	if len(tokens) > 0 && bytes.Equal(value, []byte("null")) {
		return nil, false
	}
	return value, len(value) > 0
}

// member is the value of an object's member named key (the object is valid JSON).
func member(object []byte, key string) ([]byte, bool) {
	for i := skipSpace(object, 1); i < len(object) && object[i] == '"'; {
		end := skipString(object, i)
		if end < 0 {
			return nil, false
		}
		name := object[i+1 : end-1]
		matches := string(name) == key
		if !matches && bytes.IndexByte(name, '\\') >= 0 { // an escaped name: compare it decoded
			var decoded string
			matches = json.Unmarshal(object[i:end], &decoded) == nil && decoded == key
		}
		i = skipSpace(object, skipSpace(object, end)+1) // past ':'
		valueEnd := skipValue(object, i)
		if valueEnd < 0 {
			return nil, false
		}
		if matches {
			return object[i:valueEnd], true
		}
		i = skipSpace(object, valueEnd)
		if i >= len(object) || object[i] != ',' {
			return nil, false
		}
		i = skipSpace(object, i+1)
	}
	return nil, false
}

// element is an array's element at index (the array is valid JSON).
func element(array []byte, index int) ([]byte, bool) {
	n := 0
	found := []byte(nil)
	eachElement(array, func(value []byte) bool {
		if n == index {
			found = value
			return false
		}
		n++
		return true
	})
	return found, found != nil
}

// valueLength is an array's number of elements or a string's number of characters (code points, as Python's
// len: echo_payload's payload is checked by its length); ok is false for any other value.
func valueLength(value []byte) (n int, ok bool) {
	if firstByte(value) != '"' {
		return arrayLength(value)
	}
	text := bytes.TrimSpace(value)
	if bytes.IndexByte(text, '\\') < 0 { // nothing escaped (the payload's alphabet): count without decoding
		return utf8.RuneCount(text[1 : len(text)-1]), true
	}
	var s string
	if json.Unmarshal(text, &s) != nil {
		return 0, false
	}
	return utf8.RuneCountInString(s), true
}

// arrayLength is how many elements the value has; isArray is false when it is no array.
func arrayLength(value []byte) (n int, isArray bool) {
	if firstByte(value) != '[' {
		return 0, false
	}
	eachElement(value, func([]byte) bool { n++; return true })
	return n, true
}

// eachElement calls f with every element of a (valid) array until f returns false.
func eachElement(array []byte, f func([]byte) bool) {
	i := skipSpace(array, 1)
	if i < len(array) && array[i] == ']' {
		return
	}
	for i < len(array) {
		end := skipValue(array, i)
		if end < 0 || !f(array[i:end]) {
			return
		}
		i = skipSpace(array, end)
		if i >= len(array) || array[i] != ',' {
			return
		}
		i = skipSpace(array, i+1)
	}
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// equalJSON compares two decoded JSON values (numbers as float64: 2 equals 2.0).
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !equalJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}
