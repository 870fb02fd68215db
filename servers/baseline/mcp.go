package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

const (
	maxBody = 1 << 20

	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// Protocol versions this server speaks; initialize echoes the client's when it is one of them.
var protocolVersions = map[string]bool{"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}

const latestProtocol = "2025-06-18"

var (
	ctJSON = []string{"application/json"}
	ctSSE  = []string{"text/event-stream"}

	sseEventStart = []byte("event: message\ndata: ")
	sseEventEnd   = []byte("\n\n")
)

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// invalidParams marks an error that is the caller's fault (-32602) rather than a failed tool run.
type invalidParams struct{ msg string }

func (e *invalidParams) Error() string { return e.msg }

// buffers is one request's scratch space, pooled: the request body, the tool's JSON payload (written
// by an encoder bound to it once) and the response being assembled; and the transport's way to send a
// message ahead of the reply (notify: sse over HTTP, the reply line queue over stdio).
type buffers struct {
	body    bytes.Buffer
	payload bytes.Buffer
	enc     *json.Encoder
	out     []byte
	notify  notifier
	sse     sseReply
}

// A notifier sends one message (a progress notification) ahead of a call's reply.
type notifier interface{ send(msg []byte) error }

// sseReply is how a reply over HTTP carries notifications: the first one turns the response into an
// SSE stream (text/event-stream, one `message` event per JSON-RPC message, each flushed as written),
// and the reply then follows as its last event. A call that sends none is answered application/json,
// as every other request is, so SSE_REPLIES changes nothing here.
type sseReply struct {
	w       http.ResponseWriter
	started bool
}

func (r *sseReply) send(msg []byte) error {
	if !r.started {
		h := r.w.Header()
		h["Content-Type"] = ctSSE
		h["Cache-Control"] = []string{"no-cache"}
		r.w.WriteHeader(http.StatusOK)
		r.started = true
	}
	_, err := r.w.Write(sseEventStart)
	if err == nil {
		_, err = r.w.Write(msg) // compact JSON: no newline in it
	}
	if err == nil {
		_, err = r.w.Write(sseEventEnd)
	}
	if err == nil {
		err = http.NewResponseController(r.w).Flush()
	}
	return err
}

var bufPool = sync.Pool{New: func() any {
	b := &buffers{out: make([]byte, 0, 4096)}
	b.enc = json.NewEncoder(&b.payload)
	b.enc.SetEscapeHTML(false)
	return b
}}

func getBuffers() *buffers { return bufPool.Get().(*buffers) }

func putBuffers(b *buffers) {
	if b.body.Cap() > 64<<10 { // drop the buffer an oversized request grew
		b.body = bytes.Buffer{}
	}
	b.body.Reset()
	b.payload.Reset()
	b.out = b.out[:0]
	b.notify, b.sse = nil, sseReply{}
	bufPool.Put(b)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		// Stateless: no session was issued, so there is nothing to end.
		w.WriteHeader(http.StatusOK)
		return
	default:
		// No server-initiated SSE stream in a stateless server.
		w.Header().Set("Allow", "POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	b := getBuffers()
	defer putBuffers(b)

	if _, err := b.body.ReadFrom(http.MaxBytesReader(w, r.Body, maxBody)); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeJSON(w, http.StatusRequestEntityTooLarge, appendError(b.out, nil, codeInvalidRequest, "request body exceeds 1 MiB"))
		} else {
			writeJSON(w, http.StatusBadRequest, appendError(b.out, nil, codeParse, "could not read request body"))
		}
		return
	}
	b.sse.w = w
	b.notify = &b.sse
	reply, status := s.handle(r.Context(), b.body.Bytes(), b)
	if b.sse.started { // notifications went out as SSE events: the reply is the stream's last
		_ = b.sse.send(reply)
		return
	}
	if reply == nil {
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, reply)
}

// handle answers one JSON-RPC message, for both transports: the reply (built in b.out), or nil for
// a notification, and the HTTP status that goes with it.
func (s *server) handle(ctx context.Context, msg []byte, b *buffers) ([]byte, int) {
	var req rpcRequest
	if err := json.Unmarshal(msg, &req); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) { // valid JSON, but not a request object (a batch, a number, …)
			return appendError(b.out, nil, codeInvalidRequest, "invalid request"), http.StatusBadRequest
		}
		return appendError(b.out, nil, codeParse, "parse error"), http.StatusBadRequest
	}
	if len(req.ID) == 0 {
		// A notification (or a response from the client): acknowledged, never answered.
		return nil, http.StatusAccepted
	}
	if !validID(req.ID) {
		return appendError(b.out, nil, codeInvalidRequest, "invalid request: id must be a string or a number"), http.StatusOK
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		return appendError(b.out, req.ID, codeInvalidRequest, "invalid request"), http.StatusOK
	}
	return s.dispatch(ctx, &req, b), http.StatusOK
}

// validID accepts the two id types JSON-RPC allows MCP to use: strings and numbers.
func validID(id json.RawMessage) bool {
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

func (s *server) dispatch(ctx context.Context, req *rpcRequest, b *buffers) []byte {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if len(req.Params) > 0 && json.Unmarshal(req.Params, &p) != nil {
			return appendError(b.out, req.ID, codeInvalidParams, "invalid initialize params")
		}
		v := p.ProtocolVersion
		if !protocolVersions[v] {
			v = latestProtocol
		}
		out := appendResultStart(b.out, req.ID)
		out = append(out, `{"protocolVersion":`...)
		out = strconv.AppendQuote(out, v) // a known version: plain ASCII
		out = append(out, `,"capabilities":{"tools":{"listChanged":false}`...)
		if s.dimensionTools {
			out = append(out, surfaceCapabilities...) // surface.go
		}
		return append(out, `},"serverInfo":{"name":"mcpbench-baseline","version":"1.0.0"}}}`...)
	case "ping":
		return append(appendResultStart(b.out, req.ID), "{}}"...)
	case "tools/list":
		out := appendResultStart(b.out, req.ID)
		out = append(out, s.toolsList...)
		return append(out, '}')
	case "tools/call":
		var p callParams
		if len(req.Params) == 0 || json.Unmarshal(req.Params, &p) != nil {
			return appendError(b.out, req.ID, codeInvalidParams, "invalid tools/call params")
		}
		tool, ok := s.tools[p.Name]
		if !ok {
			return appendError(b.out, req.ID, codeInvalidParams, "unknown tool: "+p.Name)
		}
		if bytes.Equal(p.Arguments, []byte("null")) {
			p.Arguments = nil
		}
		if token := p.Meta.ProgressToken; len(token) > 0 && validID(token) && b.notify != nil {
			// Only a call that asks for progress pays for the context value (stream_progress reads it).
			ctx = context.WithValue(ctx, progressKey{}, &progress{token: token, out: b.notify})
		}
		err := tool(ctx, p.Arguments, b.enc)
		var bad *invalidParams
		if errors.As(err, &bad) {
			return appendError(b.out, req.ID, codeInvalidParams, bad.msg)
		}
		out := appendResultStart(b.out, req.ID)
		out = append(out, `{"content":[{"type":"text","text":`...)
		if err != nil {
			// A failed run (Redis or the API unreachable…) is a tool result, per MCP, not a protocol error.
			out = appendString(out, strings.ToValidUTF8(p.Name+" failed: "+err.Error(), "\uFFFD"))
			return append(out, `}],"isError":true}}`...)
		}
		out = appendString(out, bytes.TrimSuffix(b.payload.Bytes(), []byte("\n")))
		return append(out, `}],"isError":false}}`...)
	default:
		if s.dimensionTools {
			if out, ok := s.dispatchSurface(ctx, req, b); ok {
				return out
			}
		}
		return appendError(b.out, req.ID, codeMethodNotFound, "method not found: "+req.Method)
	}
}

func appendResultStart(b []byte, id json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	return append(b, `,"result":`...)
}

func appendError(b []byte, id json.RawMessage, code int, msg string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if len(id) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, id...)
	}
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, strings.ToValidUTF8(msg, "\uFFFD"))
	return append(b, "}}"...)
}

const hex = "0123456789abcdef"

// appendString writes s as a JSON string. It is how the tool payload (already JSON) becomes the text
// content, so it is written by hand: one pass, no intermediate string.
func appendString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = ctJSON
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
