package main

// One VU over Streamable HTTP: load.js's sessionCall, statelessCall, persistentCall and selfContainedCall,
// request for request and verdict for verdict. Each VU has its own connection (a k6 VU keeps its own too),
// kept alive between requests.
//
// A request is timed from the moment it starts being written on its connection (httptrace GotConn:
// connection set-up is left out, as k6's timings.duration leaves out blocked and connecting) to the last
// byte of its reply read.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync/atomic"
	"time"
)

const (
	contentType = "application/json"
	accept      = "application/json, text/event-stream"
)

// httpTarget is what every HTTP VU shares.
type httpTarget struct {
	plan     *plan
	url      string
	mode     string
	protocol string
	timeout  time.Duration
	checks   bool
	requests atomic.Int64 // every HTTP request sent (k6's http_reqs)
}

type httpVU struct {
	t         *httpTarget
	client    *http.Client
	prefixes  prefixes
	iteration int64 // the call's ({iteration} in its arguments)
	init      []byte
	rpcID     uint64
	session   *string // persistent mode: the open session's id ("" when the server issued none); nil: none open
	lastOpen  float64 // persistent mode: the duration of the request that failed the last opening
	gotConn   time.Time
	trace     *httptrace.ClientTrace
	buf       bytes.Buffer
	notices   *http.Client // notifications/cancelled, sent while the VU's own connection waits on the call
}

func newHTTPVU(t *httpTarget, global int) *httpVU {
	transport := &http.Transport{
		Proxy:               nil, // the target is on this machine or a test network: never a proxy
		DisableCompression:  true,
		MaxIdleConnsPerHost: 1,
		DialContext:         (&net.Dialer{Timeout: t.timeout, KeepAlive: 30 * time.Second}).DialContext,
	}
	meta := ""
	if t.mode == "stateless-2026" {
		meta = meta2026
	}
	v := &httpVU{t: t, client: &http.Client{Transport: transport, Timeout: t.timeout},
		prefixes: t.plan.prefixes(global+1, meta), init: initializePrefix(t.protocol)}
	v.trace = &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { v.gotConn = time.Now() }}
	return v
}

// httpReply is what a request came back with: the status (0: no reply), its kind of transport failure, the
// body, whether it was an SSE stream, the session id header, and the request's duration in ms.
type httpReply struct {
	status  int
	failure string
	body    []byte
	sse     bool
	session string
	ms      float64
	firstMs float64 // a streamed call's: its first progress notification's arrival (when first)
	first   bool
}

func (v *httpVU) post(payload []byte, session *string, call int) httpReply {
	return v.send(http.MethodPost, payload, session, call)
}

// newRequest is a request to the target with what every request of the workload carries: Content-Type with a
// payload, `accepting` as Accept, the workload's headers, and the session's id when there is one ("": none).
func (t *httpTarget) newRequest(ctx context.Context, method string, payload []byte, accepting, session string) (*http.Request, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url, body)
	if err != nil {
		return nil, err
	}
	if payload != nil {
		req.Header["Content-Type"] = []string{contentType}
	}
	req.Header["Accept"] = []string{accepting}
	for name, value := range t.plan.Headers {
		req.Header.Set(name, value)
	}
	if session != "" {
		req.Header["Mcp-Session-Id"] = []string{session}
	}
	return req, nil
}

// send makes one request; call is the index of the tool (for mode stateless-2026's headers), -1 for none.
func (v *httpVU) send(method string, payload []byte, session *string, call int) httpReply {
	id := ""
	if session != nil {
		id = *session
	}
	req, err := v.t.newRequest(httptrace.WithClientTrace(context.Background(), v.trace), method, payload, accept, id)
	if err != nil {
		return httpReply{failure: "transport"}
	}
	v.revisionHeaders(req, call)
	v.gotConn = time.Time{}
	begun := time.Now()
	v.t.requests.Add(1)
	res, err := v.client.Do(req)
	if err != nil {
		return httpReply{failure: failureKind(err), ms: v.since(begun)}
	}
	v.buf.Reset()
	var first time.Time
	if call >= 0 && v.t.plan.Calls[call].Progress > 0 {
		first, err = v.readStream(res.Body)
	} else {
		_, err = v.buf.ReadFrom(res.Body)
	}
	res.Body.Close()
	ms := v.since(begun)
	if err != nil {
		return httpReply{failure: failureKind(err), ms: ms}
	}
	r := httpReply{status: res.StatusCode, body: v.buf.Bytes(), ms: ms, session: res.Header.Get("Mcp-Session-Id"),
		sse: bytes.Contains([]byte(res.Header.Get("Content-Type")), []byte("text/event-stream"))}
	if !first.IsZero() {
		r.first, r.firstMs = true, v.since(begun)-float64(time.Since(first).Nanoseconds())/1e6
	}
	return r
}

// revisionHeaders adds mode stateless-2026's headers to a request of call `call` (-1: none).
func (v *httpVU) revisionHeaders(req *http.Request, call int) {
	if v.t.mode != "stateless-2026" || call < 0 {
		return
	}
	req.Header["Mcp-Protocol-Version"] = []string{revision2026}
	c := v.t.plan.Calls[call]
	req.Header["Mcp-Method"] = []string{c.Method}
	if c.McpName != "" {
		req.Header["Mcp-Name"] = []string{string(c.mcpName.render(nil, v.prefixes.vu, v.iteration))}
	}
}

// sent is a whole reply to a request (its body read to its end, or to the failure that ended it), or why there
// was none.
type sent struct {
	reply httpReply
	err   error
}

// fetch makes the request and reads its reply to the end on the VU's client: what the cancellation races.
func (v *httpVU) fetch(req *http.Request) sent {
	res, err := v.client.Do(req)
	if err != nil {
		return sent{err: err}
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(res.Body)
	return sent{httpReply{status: res.StatusCode, body: buf.Bytes(),
		sse: bytes.Contains([]byte(res.Header.Get("Content-Type")), []byte("text/event-stream"))}, err}
}

// cancelledRequest sends call `call` and cancels it cancel_after_ms later (cancel.go): in a session by
// notifications/cancelled, then listening on for its reply for cancelWatch; without one by closing the
// response stream. The VU goes on at once, as a client that gave up does; its sample is the time to the
// cancellation, "cancelled". A whole reply that came first (headers and body: a streamed reply's headers come
// at once) makes it an ordinary call.
func (v *httpVU) cancelledRequest(call int, session *string) (httpReply, string) {
	c := v.t.plan.Calls[call]
	id := v.nextID()
	sessionID := ""
	if session != nil {
		sessionID = *session
	}
	// Its own trace: the request is made on another goroutine, which the VU's (v.gotConn) must not be written from.
	var gotConn atomic.Int64
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { gotConn.Store(time.Now().UnixNano()) }}
	ctx, stop := context.WithCancel(httptrace.WithClientTrace(context.Background(), trace))
	req, err := v.t.newRequest(ctx, http.MethodPost, body(v.prefixes.of(call, v.iteration), id, 0), accept, sessionID)
	if err != nil {
		stop()
		return httpReply{failure: "transport"}, "transport"
	}
	v.revisionHeaders(req, call)
	begun := time.Now()
	since := func() float64 { // as v.since: from the connection in hand, else from the start
		from := begun
		if n := gotConn.Load(); n != 0 {
			from = time.Unix(0, n)
		}
		return float64(time.Since(from).Nanoseconds()) / 1e6
	}
	v.t.requests.Add(1)
	answered := make(chan sent, 1)
	go func() { answered <- v.fetch(req) }()
	timer := time.NewTimer(time.Duration(c.CancelAfterMs) * time.Millisecond)
	select {
	case s := <-answered: // answered before the cancellation: an ordinary call
		timer.Stop()
		stop()
		if s.err != nil {
			return httpReply{failure: failureKind(s.err), ms: since()}, failureKind(s.err)
		}
		s.reply.ms = since()
		return s.reply, v.judgeCall(s.reply, call)
	case <-timer.C:
	}
	at := time.Now()
	ms := since()
	byNotice := sessionID != ""
	v.t.plan.cancels.noted(at, byNotice, string(c.workList.render(nil, v.prefixes.vu, v.iteration)))
	if !byNotice {
		stop() // the response stream closed under the call: the connection goes with it
		return httpReply{ms: ms}, "cancelled"
	}
	// The notification is not one of the call's requests (http_reqs counts those): cancelled_by_notice counts it.
	if notice, err := v.t.newRequest(context.Background(), http.MethodPost, cancelNotice(id, 0), accept, sessionID); err == nil {
		if v.notices == nil {
			v.notices = &http.Client{Transport: &http.Transport{Proxy: nil, DisableCompression: true}, Timeout: v.t.timeout}
		}
		if res, err := v.notices.Do(notice); err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}
	watch := time.AfterFunc(time.Until(at.Add(cancelWatch)), stop)
	v.t.plan.cancels.watching.Add(1)
	go func() {
		defer v.t.plan.cancels.watching.Done()
		defer watch.Stop()
		defer stop()
		s := <-answered // until the reply, the stream's end or the watch's end
		if line, ok := s.reply.message(); ok && s.reply.status == http.StatusOK {
			if _, kind := classify(line); kind == replyLine {
				v.t.plan.cancels.replies.Add(1)
			}
		}
	}()
	return httpReply{ms: ms}, "cancelled"
}

var progressMethod = []byte(`"notifications/progress"`)

// readStream reads a streamed reply into v.buf as it arrives, and when the first progress notification came:
// the read that completed its method name (a notification is timed by its arrival, not by the whole reply's).
func (v *httpVU) readStream(body io.Reader) (first time.Time, err error) {
	var chunk [32 << 10]byte
	for {
		n, readErr := body.Read(chunk[:])
		if n > 0 {
			from := max(0, v.buf.Len()-len(progressMethod)+1)
			v.buf.Write(chunk[:n])
			if first.IsZero() && bytes.Contains(v.buf.Bytes()[from:], progressMethod) {
				first = time.Now()
			}
		}
		if readErr == io.EOF {
			return first, nil
		}
		if readErr != nil {
			return first, readErr
		}
	}
}

// since is the request's duration: from its connection being in hand (or, failing that, from when it was
// begun) to now.
func (v *httpVU) since(begun time.Time) float64 {
	from := v.gotConn
	if from.IsZero() {
		from = begun
	}
	return float64(time.Since(from).Nanoseconds()) / 1e6
}

// failureKind is load.js's transportKind for a request that got no reply: a timeout, or any other failure.
func failureKind(err error) string {
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "transport"
}

// transportKind is load.js's: no reply, or HTTP >= 400.
func (r httpReply) transportKind() string {
	if r.failure != "" {
		return r.failure
	}
	if r.status >= 400 {
		return "http_" + strconv.Itoa(r.status)
	}
	return ""
}

// message is the reply's JSON-RPC message: the body, or over SSE the last `data:` line whose message has
// an id. ok is false when there is none or it is no JSON (load.js: bad_response).
func (r httpReply) message() ([]byte, bool) {
	if !r.sse {
		return r.body, true
	}
	var found []byte
	for _, line := range bytes.Split(r.body, []byte("\n")) {
		data, isData := bytes.CutPrefix(line, []byte("data:"))
		if !isData {
			continue
		}
		data = bytes.TrimSpace(data)
		switch _, kind := classify(data); kind {
		case replyLine, unmatchedReply:
			found = data
		case blankLine:
			// An event whose data is empty is never dispatched (the SSE standard); MCP 2025-11-25 has servers
			// prime a stream with one (an event id, no data) so that a client can resume it.
			continue
		case garbageLine:
			if !jsonValid(data) {
				return nil, false
			}
		}
	}
	return found, found != nil
}

// judgeCall is load.js's judgeCall on a reply; a call that asked for progress must have had all of it first.
func (v *httpVU) judgeCall(r httpReply, call int) string {
	if kind := r.transportKind(); kind != "" {
		return kind
	}
	line, ok := r.message()
	if !ok {
		return "bad_response"
	}
	c := v.t.plan.Calls[call]
	if kind := judge(c, line, v.t.checks); kind != "" || c.Progress == 0 {
		return kind
	}
	if !r.sse || r.progressBefore() != c.Progress {
		return "progress_missing"
	}
	return ""
}

// progressBefore counts the SSE stream's progress notifications before its first reply (one with an id).
func (r httpReply) progressBefore() int {
	n := 0
	for _, line := range bytes.Split(r.body, []byte("\n")) {
		data, isData := bytes.CutPrefix(line, []byte("data:"))
		if !isData {
			continue
		}
		if bytes.Contains(data, progressMethod) {
			n++
			continue
		}
		if _, kind := classify(bytes.TrimSpace(data)); kind == replyLine || kind == unmatchedReply {
			return n
		}
	}
	return n
}

func (v *httpVU) judgeInit(r httpReply) string {
	if kind := r.transportKind(); kind != "" {
		return kind
	}
	line, ok := r.message()
	if !ok {
		return "bad_response"
	}
	return judgeInitialize(line)
}

func (v *httpVU) nextID() uint64 {
	v.rpcID++
	return v.rpcID
}

func (v *httpVU) initialize() httpReply {
	return v.post(body(v.init, v.nextID(), 0), nil, -1)
}

// request sends the call and judges its reply. A tools/list whose reply names a next page (result.nextCursor)
// is followed to its last page, as a client must to see every tool (the Go SDK pages its list at 1,000): the
// reply's duration is all its pages', its verdict the first failing page's.
func (v *httpVU) request(call int, session *string) (httpReply, string) {
	if v.t.plan.Calls[call].CancelAfterMs > 0 {
		return v.cancelledRequest(call, session)
	}
	res := v.post(body(v.prefixes.of(call, v.iteration), v.nextID(), 0), session, call)
	kind := v.judgeCall(res, call)
	c := v.t.plan.Calls[call]
	for pages := 1; kind == ""; pages++ {
		line, _ := res.message()
		cursor := nextCursor(c, line)
		if cursor == nil {
			break
		}
		if pages == maxListPages {
			return res, "pages_unending"
		}
		page := v.post(body(v.prefixes.cursor(call, cursor), v.nextID(), 0), session, call)
		v.t.plan.cursorPages.Add(1)
		page.ms += res.ms
		res, kind = page, v.judgeCall(page, call)
	}
	return res, kind
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

func (v *httpVU) do(call int, iteration int64) (outcome, bool) {
	v.iteration = iteration
	switch v.t.mode {
	case "session":
		return v.sessionCall(call), true
	case "persistent":
		return v.persistentCall(call), true
	}
	return v.statelessCall(call), true // stateless and stateless-2026: one request, no session
}

// sessionCall is the v2 study's pattern: a whole MCP session around every single call.
func (v *httpVU) sessionCall(call int) outcome {
	started := time.Now()
	o := outcome{callMs: -1, httpMs: make([]float64, 0, 4)}
	done := func() outcome { o.sessionMs = msSince(started); return o }
	init := v.initialize()
	o.httpMs = append(o.httpMs, init.ms)
	if o.kind = v.judgeInit(init); o.kind != "" {
		return done()
	}
	session := init.session
	note := v.post([]byte(initializedBody), &session, -1)
	o.httpMs = append(o.httpMs, note.ms)
	if o.kind = note.transportKind(); o.kind != "" {
		return done()
	}
	res, kind := v.request(call, &session)
	o.callMs, o.firstMs, o.first = res.ms, res.firstMs, res.first
	o.httpMs = append(o.httpMs, res.ms)
	o.kind = kind
	if session != "" && v.t.plan.Abandon {
		v.t.plan.sessionsLeftOpen.Add(1)
		v.t.plan.firstLeft.CompareAndSwap(nil, &session)
		if v.t.plan.DropStream {
			opened, ms := v.dropStream(session)
			o.httpMs = append(o.httpMs, ms)
			if opened {
				v.t.plan.streamsDropped.Add(1)
			}
		}
	} else if session != "" {
		del := v.send(http.MethodDelete, nil, &session, -1)
		o.httpMs = append(o.httpMs, del.ms)
		if o.kind == "" && del.status != http.StatusMethodNotAllowed { // 405: the server keeps sessions itself
			o.kind = del.transportKind()
		}
	}
	return done()
}

// oldestSessionWait bounds the wait for the answer about the oldest session: a hung server must not hold the counts.
const oldestSessionWait = 5 * time.Second

// oldestSession asks the server, once the load is over, about the first session an abandoning workload left: a
// ping under its id. The HTTP status of the answer: 200, the server still holds it; 404, it let it go (the MCP
// spec's answer to a session it no longer knows); nil when no session was left or the ping went unanswered.
func (t *httpTarget) oldestSession() *int {
	session := t.plan.firstLeft.Load()
	if session == nil {
		return nil
	}
	req, err := t.newRequest(context.Background(), http.MethodPost, []byte(`{"jsonrpc":"2.0","id":0,"method":"ping"}`),
		accept, *session)
	if err != nil {
		return nil
	}
	res, err := (&http.Client{Timeout: min(t.timeout, oldestSessionWait)}).Do(req)
	if err != nil {
		return nil
	}
	res.Body.Close()
	return &res.StatusCode
}

// streamHeld is how long a GET stream's request may go unanswered before the client drops it anyway: a server
// that opens no stream answers at once (405), and some SDKs send a stream's headers only with its first event.
const streamHeld = time.Second

// dropStream opens the session's standalone GET stream (text/event-stream) and, once the server has answered it
// 200 or held it unanswered for streamHeld, closes the TCP connection under it without reading: what the server
// sees of a client that died while listening. Whether a stream was open to drop (a server without one answers
// 405), and the ms to its answer or to the drop (the session's last request).
func (v *httpVU) dropStream(session string) (bool, float64) {
	ctx, cancel := context.WithTimeout(context.Background(), streamHeld)
	defer cancel()
	req, err := v.t.newRequest(ctx, http.MethodGet, nil, "text/event-stream", session)
	if err != nil {
		return false, 0
	}
	v.t.requests.Add(1)
	begun := time.Now()
	res, err := v.client.Do(req)
	if err != nil { // held past streamHeld: the deadline closed the connection, the drop
		return errors.Is(err, context.DeadlineExceeded), v.since(begun)
	}
	// Closing an unfinished body closes its connection (net/http never reuses it): the drop.
	defer res.Body.Close()
	return res.StatusCode == http.StatusOK, v.since(begun)
}

func (v *httpVU) statelessCall(call int) outcome {
	started := time.Now()
	res, kind := v.request(call, nil)
	return outcome{kind: kind, callMs: res.ms, sessionMs: msSince(started), httpMs: []float64{res.ms},
		firstMs: res.firstMs, first: res.first}
}

// openPersistent opens the VU's session: initialize and the notification. "" when it is open.
func (v *httpVU) openPersistent() string {
	init := v.initialize()
	v.lastOpen = init.ms
	if kind := v.judgeInit(init); kind != "" {
		return kind
	}
	session := init.session
	note := v.post([]byte(initializedBody), &session, -1)
	v.lastOpen = note.ms
	if kind := note.transportKind(); kind != "" {
		return kind
	}
	v.session = &session
	return ""
}

// persistentCall: one session per VU, opened on its first call and reused. A failed opening, or a call
// answered 404 (the session expired, per the MCP spec), is retried once with a new session.
func (v *httpVU) persistentCall(call int) outcome {
	started := time.Now()
	for attempt := 0; ; attempt++ {
		if v.session == nil {
			if kind := v.openPersistent(); kind != "" {
				if attempt == 0 {
					continue
				}
				return outcome{kind: kind, callMs: -1, sessionMs: msSince(started), httpMs: []float64{v.lastOpen}}
			}
		}
		res, kind := v.request(call, v.session)
		if res.status == http.StatusNotFound && *v.session != "" {
			v.session = nil // gone: the next call opens a new one
			if attempt == 0 {
				continue
			}
		}
		return outcome{kind: kind, callMs: res.ms, sessionMs: msSince(started),
			httpMs: []float64{res.ms}, firstMs: res.firstMs, first: res.first}
	}
}

// jsonValid is whether data parses as JSON at all (JSON.parse would not throw).
func jsonValid(data []byte) bool { return json.Valid(data) }
