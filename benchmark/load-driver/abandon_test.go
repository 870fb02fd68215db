package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A session-mode server: initialize issues a session id, the notification is accepted, a tool call answered,
// DELETE counted.
func sessionServer(deletes *atomic.Int64) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deletes.Add(1)
			return
		}
		request, _ := io.ReadAll(r.Body)
		switch {
		case strings.Contains(string(request), `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}`))
		case strings.Contains(string(request), `"notifications/initialized"`):
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{}"}]}}`))
		}
	}))
}

func TestAnAbandoningWorkloadLeavesEverySessionOpen(t *testing.T) {
	for _, abandon := range []bool{false, true} {
		var deletes atomic.Int64
		srv := sessionServer(&deletes)
		p, err := parsePlan(`{"calls":[{"name":"t","method":"tools/call","tool":"t","params":"\"name\":\"t\",\"arguments\":{}","weight":1,"checks":[]}],"abandon":` + map[bool]string{false: "false", true: "true"}[abandon] + `}`)
		if err != nil {
			t.Fatal(err)
		}
		v := newHTTPVU(&httpTarget{plan: p, url: srv.URL, mode: "session", timeout: 5 * time.Second, checks: true}, 0)
		for i := range 3 {
			if o, _ := v.do(0, int64(i)); o.kind != "" {
				t.Fatalf("abandon %v: call %d failed: %q", abandon, i, o.kind)
			}
		}
		// the first session left is asked about once the load is over: this server still answers it
		if status := v.t.oldestSession(); abandon != (status != nil) || abandon && *status != http.StatusOK {
			t.Errorf("abandon %v: the oldest session's status %v; want 200 when abandoning, none otherwise", abandon, status)
		}
		srv.Close()
		if want := map[bool]int64{false: 3, true: 0}[abandon]; deletes.Load() != want {
			t.Errorf("abandon %v: %d DELETEs; want %d", abandon, deletes.Load(), want)
		}
		if want := map[bool]int64{false: 0, true: 3}[abandon]; p.sessionsLeftOpen.Load() != want {
			t.Errorf("abandon %v: %d sessions counted as left open; want %d", abandon, p.sessionsLeftOpen.Load(), want)
		}
	}
}

func TestAbandonIsSessionModes(t *testing.T) {
	_, err := parseOptions([]string{"--mode", "persistent", "--target", "http://127.0.0.1:1/mcp", "--stages", "1s:1", "--samples", "/dev/null", "--counts", "/dev/null",
		"--workload", `{"calls":[{"name":"t","method":"tools/call","tool":"t","params":"","weight":1,"checks":[]}],"abandon":true}`})
	if err == nil || !strings.Contains(err.Error(), "abandon leaves session mode's sessions open") {
		t.Errorf("abandon in persistent mode: %v", err)
	}
}

// A dropping client opens each abandoned session's GET stream and closes its connection unread: the server's
// handler sees its request's context end (the connection gone) for every stream it opened.
func TestADroppingClientClosesEveryStreamItOpened(t *testing.T) {
	var deletes, opened, gone atomic.Int64
	posts := sessionServer(&deletes)
	defer posts.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			posts.Config.Handler.ServeHTTP(w, r)
			return
		}
		if r.Header.Get("Mcp-Session-Id") != "s1" || r.Header.Get("Accept") != "text/event-stream" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		// Every other stream is held without headers, as an SDK that sends them with its first event does.
		if opened.Add(1)%2 == 1 {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
			gone.Add(1)
		case <-time.After(5 * time.Second):
		}
	}))
	p, err := parsePlan(`{"calls":[{"name":"t","method":"tools/call","tool":"t","params":"\"name\":\"t\",\"arguments\":{}","weight":1,"checks":[]}],"abandon":true,"drop_stream":true}`)
	if err != nil {
		t.Fatal(err)
	}
	v := newHTTPVU(&httpTarget{plan: p, url: srv.URL, mode: "session", timeout: 5 * time.Second, checks: true}, 0)
	for i := range 3 {
		if o, _ := v.do(0, int64(i)); o.kind != "" {
			t.Fatalf("call %d failed: %q", i, o.kind)
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for gone.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	srv.Close()
	if opened.Load() != 3 || gone.Load() != 3 || p.streamsDropped.Load() != 3 || deletes.Load() != 0 {
		t.Errorf("opened %d, seen gone %d, counted dropped %d, DELETEs %d; want 3, 3, 3, 0",
			opened.Load(), gone.Load(), p.streamsDropped.Load(), deletes.Load())
	}
}

func TestDropStreamNeedsAbandon(t *testing.T) {
	_, err := parseOptions([]string{"--mode", "session", "--target", "http://127.0.0.1:1/mcp", "--stages", "1s:1", "--samples", "/dev/null", "--counts", "/dev/null",
		"--workload", `{"calls":[{"name":"t","method":"tools/call","tool":"t","params":"","weight":1,"checks":[]}],"drop_stream":true}`})
	if err == nil || !strings.Contains(err.Error(), "drop_stream drops abandoned sessions' streams") {
		t.Errorf("drop_stream without abandon: %v", err)
	}
}
