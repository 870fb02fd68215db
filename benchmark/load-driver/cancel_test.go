package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const cancelledPlan = `{"calls":[{"name":"w","method":"tools/call","tool":"w","params":"\"name\":\"w\",\"arguments\":{}",` +
	`"weight":1,"checks":[],"cancel_after_ms":100,"work_list":"bench:steps:w-{vu}-{iteration}"}],"work_redis":"%s"}`

// A server whose tool call writes a step to its work list every 20 ms, 20 steps, and answers at the end; with
// `honour`, it stops when its request's context ends (the stream closed) or its call is cancelled by
// notification. It issues session "s1" on initialize when `sessions`.
type stepServer struct {
	redis    *redis.Client
	honour   bool
	sessions bool
	notices  atomic.Int64
	noticeID atomic.Value
	stop     chan struct{}
}

func (s *stepServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	request, _ := io.ReadAll(r.Body)
	switch {
	case strings.Contains(string(request), `"initialize"`):
		if s.sessions {
			w.Header().Set("Mcp-Session-Id", "s1")
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}`))
	case strings.Contains(string(request), `"notifications/cancelled"`):
		s.notices.Add(1)
		s.noticeID.Store(string(request))
		if s.honour {
			close(s.stop)
		}
		w.WriteHeader(http.StatusAccepted)
	case strings.Contains(string(request), `"notifications/`):
		w.WriteHeader(http.StatusAccepted)
	default:
		const key = "bench:steps:w-1-0" // the work list of VU 1's first call
		for range 20 {
			if s.honour {
				select {
				case <-r.Context().Done():
					return
				case <-s.stop:
					return
				default:
				}
			}
			s.redis.RPush(context.Background(), key, strconv.FormatInt(time.Now().UnixMilli(), 10))
			time.Sleep(20 * time.Millisecond)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{}"}]}}`))
	}
}

// redisForTest is a Redis of the test's own on a unix socket (no port taken), stopped at the test's end.
func redisForTest(t *testing.T) string {
	binary, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (scripts/setup.sh installs it)")
	}
	socket := filepath.Join(t.TempDir(), "redis.sock")
	cmd := exec.Command(binary, "--port", "0", "--unixsocket", socket, "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for range 100 {
		if _, err := os.Stat(socket); err == nil {
			return "unix://" + socket
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("redis-server did not open its socket")
	return ""
}

// Over HTTP a stateless call is cancelled by closing its stream, a session's by notifications/cancelled naming
// its id; the work lists then say whether the server stopped, and a reply after the notice is counted.
func TestCancelledCallsCountTheWorkAfterTheCancellation(t *testing.T) {
	defer func(was time.Duration) { cancelWatch = was }(cancelWatch)
	cancelWatch = 700 * time.Millisecond // the test server's whole call takes 400 ms
	url := redisForTest(t)
	options, _ := redis.ParseURL(url)
	client := redis.NewClient(options)
	defer client.Close()
	for _, mode := range []string{"stateless", "persistent"} {
		for _, honour := range []bool{true, false} {
			s := &stepServer{redis: client, honour: honour, sessions: mode == "persistent", stop: make(chan struct{})}
			srv := httptest.NewServer(s)
			p, err := parsePlan(strings.Replace(cancelledPlan, "%s", url, 1))
			if err != nil {
				t.Fatal(err)
			}
			v := newHTTPVU(&httpTarget{plan: p, url: srv.URL, mode: mode, timeout: 5 * time.Second, checks: true}, 0)
			if mode == "persistent" { // the session open first (initialize is id 1), so that the call is id 2
				v.openPersistent()
			}
			o, _ := v.do(0, 0)
			if o.kind != "cancelled" || o.callMs < 90 || o.callMs > 400 {
				t.Fatalf("%s honour=%v: outcome %q after %.0f ms; want cancelled after about 100 ms", mode, honour, o.kind, o.callMs)
			}
			var c counts
			p.countCancels(&c)
			srv.Close()
			what := mode + map[bool]string{true: " honoured", false: " ignored"}[honour]
			if mode == "stateless" && (*c.CancelledByClose != 1 || *c.CancelledByNotice != 0 || c.CancelReplies != nil) {
				t.Errorf("%s: by close %d, by notice %d, replies %v; want 1, 0, none", what, *c.CancelledByClose, *c.CancelledByNotice, c.CancelReplies)
			}
			if mode == "persistent" {
				if *c.CancelledByNotice != 1 || s.notices.Load() != 1 || !strings.Contains(s.noticeID.Load().(string), `"requestId":2`) {
					t.Errorf("%s: by notice %d, notices received %d (%v); want 1 naming request 2", what, *c.CancelledByNotice, s.notices.Load(), s.noticeID.Load())
				}
				if want := map[bool]int64{true: 0, false: 1}[honour]; *c.CancelReplies != want {
					t.Errorf("%s: %d replies after the cancellation; want %d", what, *c.CancelReplies, want)
				}
			}
			if c.WorkUnread != nil || c.StepsBeforeCancel == nil {
				t.Fatalf("%s: work unread: %v", what, c.WorkUnread)
			}
			before, after := *c.StepsBeforeCancel, *c.StepsAfterCancel
			if before < 3 || before > 7 {
				t.Errorf("%s: %d steps before the cancellation; want about 5 (100 ms of 20 ms steps)", what, before)
			}
			if honour && after > 1 || !honour && (after < 10 || *c.CancelledWorkedOn != 1) {
				t.Errorf("%s: %d steps after the cancellation (%d calls worked on)", what, after, *c.CancelledWorkedOn)
			}
			if n, _ := client.Exists(t.Context(), "bench:steps:w-1-0").Result(); n != 0 {
				t.Errorf("%s: the work list was left in Redis", what)
			}
		}
	}
}

func TestAWorkListNeedsACancelledCall(t *testing.T) {
	_, err := parsePlan(`{"calls":[{"name":"w","method":"tools/call","tool":"w","params":"","weight":1,"checks":[],"work_list":"x"}]}`)
	if err == nil || !strings.Contains(err.Error(), "cancelled call only") {
		t.Errorf("a work_list without cancel_after_ms: %v", err)
	}
}
