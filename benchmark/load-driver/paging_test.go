package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// A tools/list of `pages` pages of three tools each (the lineup's check asks for three): page k (from 0)
// names the cursor "p<k+1>" of the next, the last none; endless: every page names one.
type pagedList struct {
	pages   int
	endless bool
	pause   time.Duration

	mu      sync.Mutex
	cursors []string          // every request's params.cursor ("" when none), in order
	params  []json.RawMessage // every request's params as sent
}

func (l *pagedList) reply(request []byte) []byte {
	var r struct {
		ID     json.RawMessage `json:"id"`
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(request, &r)
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(r.Params, &p)
	l.mu.Lock()
	l.cursors = append(l.cursors, p.Cursor)
	l.params = append(l.params, r.Params)
	l.mu.Unlock()
	time.Sleep(l.pause)
	page := 0
	fmt.Sscanf(p.Cursor, "p%d", &page)
	next := ""
	if l.endless || page+1 < l.pages {
		next = fmt.Sprintf(`,"nextCursor":"p%d"`, page+1)
	}
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"a%d"},{"name":"b%d"},{"name":"c%d"}]%s}}`,
		r.ID, page, page, page, next))
}

func (l *pagedList) serve() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		request, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(l.reply(request))
	}))
}

func listVU(t *testing.T, url, mode string) *httpVU {
	return newHTTPVU(&httpTarget{plan: lineup(t), url: url, mode: mode, timeout: 5 * time.Second, checks: true}, 0)
}

func TestAPagedToolsListIsFollowedToItsLastPageAsOneRequest(t *testing.T) {
	list := &pagedList{pages: 3, pause: 20 * time.Millisecond}
	srv := list.serve()
	defer srv.Close()
	v := listVU(t, srv.URL, "stateless")
	o, _ := v.do(toolsListCall, 0)
	if o.kind != "" {
		t.Fatalf("kind %q", o.kind)
	}
	if got := strings.Join(list.cursors, ","); got != ",p1,p2" {
		t.Errorf("cursors sent %q, want the first page, then p1 and p2", got)
	}
	if got := v.t.plan.cursorPages.Load(); got != 2 {
		t.Errorf("cursor pages counted %d, want 2", got)
	}
	if got := v.t.requests.Load(); got != 3 {
		t.Errorf("HTTP requests counted %d, want 3 (every page is sent)", got)
	}
	if len(o.httpMs) != 1 || o.httpMs[0] != o.callMs || o.callMs < 60 {
		t.Errorf("one duration for the whole list (3 pages of 20 ms): call %.1f ms, http %v", o.callMs, o.httpMs)
	}
}

func TestACursorRequestKeepsTheStateless2026Meta(t *testing.T) {
	list := &pagedList{pages: 2}
	srv := list.serve()
	defer srv.Close()
	if o, _ := listVU(t, srv.URL, "stateless-2026").do(toolsListCall, 0); o.kind != "" {
		t.Fatalf("kind %q", o.kind)
	}
	want := `{"cursor":"p1",` + meta2026 + `}`
	if len(list.params) != 2 || string(list.params[1]) != want {
		t.Errorf("the second page's params %s; want %s", list.params[len(list.params)-1], want)
	}
}

func TestAListWithoutACursorIsOneRequest(t *testing.T) {
	list := &pagedList{pages: 1}
	srv := list.serve()
	defer srv.Close()
	v := listVU(t, srv.URL, "stateless")
	if o, _ := v.do(toolsListCall, 0); o.kind != "" || len(list.cursors) != 1 || v.t.plan.cursorPages.Load() != 0 {
		t.Errorf("kind %q, %d requests, %d cursor pages", o.kind, len(list.cursors), v.t.plan.cursorPages.Load())
	}
}

func TestCursorsThatNeverEndFailTheCall(t *testing.T) {
	list := &pagedList{endless: true}
	srv := list.serve()
	defer srv.Close()
	if o, _ := listVU(t, srv.URL, "stateless").do(toolsListCall, 0); o.kind != "pages_unending" || len(list.cursors) != maxListPages {
		t.Errorf("kind %q after %d requests; want pages_unending after %d", o.kind, len(list.cursors), maxListPages)
	}
}

func TestNextCursorIsReadFromTheResultOnly(t *testing.T) {
	c := &call{Method: toolsList}
	for line, want := range map[string]string{
		`{"id":1,"result":{"tools":[],"nextCursor":"abc"}}`:                             `"abc"`,
		`{"id":1,"result":{"tools":[{"name":"x","description":"see \"nextCursor\""}]}}`: "",
		`{"id":1,"result":{"tools":[],"nextCursor":""}}`:                                "",
		`{"id":1,"result":{"tools":[],"nextCursor":null}}`:                              "",
		`{"id":1,"result":{"tools":[{"nextCursor":"inner"}]}}`:                          "",
	} {
		if got := string(nextCursor(c, []byte(line))); got != want {
			t.Errorf("nextCursor(%s) = %q, want %q", line, got, want)
		}
	}
	for _, method := range []string{"resources/list", "resources/templates/list", "prompts/list"} {
		if got := string(nextCursor(&call{Method: method}, []byte(`{"id":1,"result":{"nextCursor":"abc"}}`))); got != `"abc"` {
			t.Errorf("%s is paged as tools/list is: %q", method, got)
		}
	}
	if got := nextCursor(&call{Method: toolsCall}, []byte(`{"id":1,"result":{"nextCursor":"abc"}}`)); got != nil {
		t.Errorf("a tool call's reply is never paged: %q", got)
	}
}

// The stdio server of TestAPagedToolsListIsFollowedOverStdio: this test binary run again with
// PAGED_STDIO_SERVER set, answering every line with pagedList's page (2 pages).
// TestMain makes this test binary one of the tests' stdio servers when its environment asks for one.
func TestMain(m *testing.M) {
	if os.Getenv(echoServerEnv) == "1" {
		serveStdio()
		os.Exit(0)
	}
	if os.Getenv("PAGED_STDIO_SERVER") != "" {
		list := &pagedList{pages: 2}
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			os.Stdout.Write(append(list.reply(in.Bytes()), '\n'))
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestAPagedToolsListIsFollowedOverStdio(t *testing.T) {
	t.Setenv("PAGED_STDIO_SERVER", "1")
	log, err := os.CreateTemp(t.TempDir(), "server.log")
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	srv, err := startServer([]string{os.Args[0]}, log, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	p := lineup(t)
	o, ok := newStdioVU(srv, p, 0, 5*time.Second, true).do(toolsListCall, 0)
	if !ok || o.kind != "" || p.cursorPages.Load() != 1 {
		t.Errorf("ok %v, kind %q, cursor pages %d (want 1)", ok, o.kind, p.cursorPages.Load())
	}
}
