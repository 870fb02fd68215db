package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// echoServerEnv makes this test binary a stdio MCP server (TestMain): it answers every request with a 1 KiB result,
// one blocking write per reply, so it stops reading its stdin while its stdout is full, as most SDKs' loops do.
const echoServerEnv = "LOAD_DRIVER_TEST_STDIO_SERVER"

// echoServerDiesEnv makes that server exit on its tenth line, in the middle of the load.
const echoServerDiesEnv = "LOAD_DRIVER_TEST_STDIO_SERVER_DIES"

func serveStdio() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	padding := strings.Repeat("x", 1024)
	dies := os.Getenv(echoServerDiesEnv) == "1"
	for requests := 0; in.Scan(); requests++ {
		if dies && requests == 10 { // initialize, notifications/initialized, then 8 calls: a crash
			os.Exit(3)
		}
		var request struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &request) != nil || request.ID == nil {
			continue // a notification
		}
		result := `{"content":[{"type":"text","text":"{\"pad\":\"` + padding + `\"}"}]}`
		if request.Method == "initialize" {
			result = `{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"t","version":"1"}}`
		}
		os.Stdout.WriteString(`{"jsonrpc":"2.0","id":` + string(request.ID) + `,"result":` + result + "}\n")
	}
}

// An abandoning client over stdio stops reading the server's replies for the load and reads them again at its
// watch: its requests are counted unread, the server's stdout fills and it stops taking requests (stdin_full),
// the backlog arrives as late replies once the client reads again, and the server then answers a ping.
func TestAnAbandoningStdioClientStopsReadingUntilItsWatch(t *testing.T) {
	c, code := abandonStdio(t)
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if c.RequestsUnread == nil || *c.RequestsUnread < 60 {
		t.Fatalf("requests unread %v; want the server's pipes' worth at least", c.RequestsUnread)
	}
	// 1 KiB requests: the server's stdin pipe (64 KiB) is full within the load, so it takes no more of them.
	if c.RequestsNotTaken == nil || *c.RequestsNotTaken < 1 {
		t.Errorf("requests not taken %v; want some once the server stopped reading its stdin", c.RequestsNotTaken)
	}
	t.Logf("unread %d, not taken %d, late replies %d", *c.RequestsUnread, *c.RequestsNotTaken, c.LateReplies)
	// The pipe (64 KiB) and the driver's buffer hold far fewer than the requests sent: the server blocked.
	if c.LateReplies < *c.RequestsUnread/2 || c.LateReplies > *c.RequestsUnread {
		t.Errorf("late replies %d of %d unread requests; want the backlog read after the watch", c.LateReplies, *c.RequestsUnread)
	}
	if c.AnsweredAfterWatch == nil || !*c.AnsweredAfterWatch {
		t.Errorf("answered after the watch: %v; want true", c.AnsweredAfterWatch)
	}
}

// A server that dies while its client is not reading is found dead once the client reads again (its stdout's
// end): the test ends as a server that exited, named so, and the counts say what was sent before.
func TestAStdioServerThatDiesWhileUnreadIsNamedSo(t *testing.T) {
	t.Setenv(echoServerDiesEnv, "1")
	c, code := abandonStdio(t)
	if code != exitServerExited || c.Error == nil || !strings.Contains(*c.Error, "the server exited during the test (exit 3)") {
		t.Fatalf("exit %d, error %v; want the server named as exited", code, c.Error)
	}
	if c.RequestsUnread == nil || *c.RequestsUnread < 8 {
		t.Errorf("requests unread %v; want the ones sent before it died", c.RequestsUnread)
	}
}

// abandonStdio runs an abandoning load over stdio against this binary as the server; the counts and exit code.
func abandonStdio(t *testing.T) (counts, int) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(echoServerEnv, "1")
	dir := t.TempDir()
	countsPath := filepath.Join(dir, "counts.json")
	code := run([]string{"--mode", "stdio", "--stages", "1.5s:4,0.1s:0,1s:0", "--think-time-s", "0.005",
		"--timeout-s", "0.5", "--samples", filepath.Join(dir, "samples.bin"), "--counts", countsPath,
		"--server-log", filepath.Join(dir, "server.log"), "--workload",
		`{"calls":[{"name":"t","method":"tools/call","tool":"t","params":"\"name\":\"t\",\"arguments\":{\"pad\":\"` +
			strings.Repeat("y", 1024) + `\"}","weight":1,"checks":[]}],"abandon":true}`,
		"--", self})
	raw, err := os.ReadFile(countsPath)
	if err != nil {
		t.Fatal(err)
	}
	var c counts
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c, code
}
