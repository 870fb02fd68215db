package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A server streaming `sent` progress notifications, the first after a pause, then the result: the driver
// counts them on the reply before the result and times the first one's arrival, not the whole reply's.
func progressServer(sent int, pause time.Duration) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		flusher := w.(http.Flusher)
		for i := 1; i <= sent; i++ {
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","+
				"\"params\":{\"progressToken\":\"mcpbench-1\",\"progress\":%d,\"total\":3}}\n\n", i)
			flusher.Flush()
			if i == 1 {
				time.Sleep(pause)
			}
		}
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","+
			"\"text\":\"{\\\"count\\\":3,\\\"sent\\\":3}\"}]}}\n\n")
	}))
}

func progressVU(t *testing.T, url string) *httpVU {
	p, err := parsePlan(`{"calls":[{"name":"stream_progress","method":"tools/call","tool":"stream_progress",` +
		`"params":"\"name\":\"stream_progress\",\"arguments\":{\"count\":3},\"_meta\":{\"progressToken\":\"mcpbench-{vu}\"}",` +
		`"weight":1,"checks":[{"pointer":"/sent","equals":3}],"progress":3}]}`)
	if err != nil {
		t.Fatal(err)
	}
	return newHTTPVU(&httpTarget{plan: p, url: url, mode: "stateless", timeout: 5 * time.Second, checks: true}, 0)
}

func TestStreamedProgressIsCountedAndItsFirstNotificationTimed(t *testing.T) {
	srv := progressServer(3, 60*time.Millisecond)
	defer srv.Close()
	v := progressVU(t, srv.URL)
	if got := string(v.prefixes.of(0, 0)); !strings.Contains(got, `"_meta":{"progressToken":"mcpbench-1"}`) {
		t.Fatalf("the call carries no progress token: %s", got)
	}
	o, _ := v.do(0, 0)
	if o.kind != "" || !o.first {
		t.Fatalf("kind %q, first %v", o.kind, o.first)
	}
	if o.firstMs <= 0 || o.firstMs > o.callMs-50 {
		t.Errorf("first notification at %.1f ms of a %.1f ms call: timed by the whole reply, not its arrival", o.firstMs, o.callMs)
	}
}

func TestAMissingNotificationFailsTheCall(t *testing.T) {
	srv := progressServer(2, 0)
	defer srv.Close()
	if o, _ := progressVU(t, srv.URL).do(0, 0); o.kind != "progress_missing" {
		t.Errorf("2 of 3 notifications: kind %q, want progress_missing", o.kind)
	}
}

func TestASampleOfAStreamedCallHasFirstMs(t *testing.T) {
	s, err := createSamples(t.TempDir() + "/samples.log")
	if err != nil {
		t.Fatal(err)
	}
	s.begin(time.Now())
	defer s.close()
	line := string(s.record(nil, 1, "stream_progress", outcome{callMs: 9, sessionMs: 9, httpMs: []float64{9}, firstMs: 2.5, first: true}))
	if fields := strings.Split(strings.TrimSpace(line), ","); len(fields) != 10 || fields[9] != "2.500" {
		t.Errorf("sample %q: want a tenth field first_ms 2.500", line)
	}
	line = string(s.record(nil, 1, "get_user_cart", outcome{callMs: 9, sessionMs: 9, httpMs: []float64{9}}))
	if fields := strings.Split(strings.TrimSpace(line), ","); len(fields) != 9 {
		t.Errorf("sample %q: a call that streamed nothing keeps load.js's nine fields", line)
	}
}
