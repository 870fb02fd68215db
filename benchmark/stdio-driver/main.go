// stdio-driver: mcpbench's load generator for MCP servers on the stdio transport, which k6 cannot speak.
// It starts the server, opens one MCP session over its stdin/stdout (newline-delimited JSON-RPC), runs
// load.js's closed model over it with --vus concurrent calls, and writes the raw sample lines k6 writes,
// so the orchestrator's analysis applies unchanged (README.md).
//
// Exit codes: 0 the test ran (to its end or to SIGINT/SIGTERM), 2 bad arguments, 3 the server did not
// start (no initialize reply), 4 the server exited during the test, 1 anything else. A failure's reason
// is one line on stderr and the counts' "error".
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"
)

const (
	exitOK           = 0
	exitFailed       = 1
	exitUsage        = 2
	exitNoStart      = 3
	exitServerExited = 4
)

// maxDrain bounds how long calls in flight may finish after the load stops (and their own timeout does).
const maxDrain = 5 * time.Second

type options struct {
	vus         int
	duration    time.Duration
	think       time.Duration
	timeout     time.Duration
	initTimeout time.Duration
	checks      bool
	samplesPath string
	countsPath  string
	serverLog   string
	argv        []string
}

// counts is --counts: k6-counts.json's fields (iterations, http_reqs, dropped_iterations) plus the
// driver's own.
type counts struct {
	Iterations        int64    `json:"iterations"`
	HTTPReqs          int64    `json:"http_reqs"`
	DroppedIterations int64    `json:"dropped_iterations"`
	Calls             int64    `json:"calls"`
	DriverCPUS        float64  `json:"driver_cpu_s"`
	StartupS          *float64 `json:"startup_s"`
	GarbageLines      int64    `json:"garbage_lines"`
	ServerMessages    int64    `json:"server_messages"`
	LateReplies       int64    `json:"late_replies"`
	Error             *string  `json:"error"`
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func parseOptions(args []string) (options, error) {
	fs := flag.NewFlagSet("stdio-driver", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	var o options
	var duration, think, timeout, initTimeout float64
	var checks string
	fs.IntVar(&o.vus, "vus", 0, "concurrent VUs (closed model)")
	fs.Float64Var(&duration, "duration-s", 0, "how long the load runs after initialize, seconds")
	fs.Float64Var(&think, "think-time-s", 0.05, "pause after each iteration, seconds")
	fs.Float64Var(&timeout, "timeout-s", 30, "a call without a reply after this long is a timeout, seconds")
	fs.Float64Var(&initTimeout, "init-timeout-s", 60, "how long the server may take to answer initialize")
	fs.StringVar(&checks, "checks", "on", "check the tools' results (on|off)")
	fs.StringVar(&o.samplesPath, "samples", "", "the raw sample file to write")
	fs.StringVar(&o.countsPath, "counts", "", "the counts JSON to write")
	fs.StringVar(&o.serverLog, "server-log", "", "the server's stderr is appended here")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.argv = fs.Args() // what follows `--`
	switch {
	case o.vus < 1:
		return o, errors.New("--vus must be at least 1")
	case duration <= 0 || timeout <= 0 || initTimeout <= 0 || think < 0:
		return o, errors.New("--duration-s, --timeout-s and --init-timeout-s must be positive, --think-time-s not negative")
	case checks != "on" && checks != "off":
		return o, errors.New("--checks is on or off")
	case o.samplesPath == "" || o.countsPath == "" || o.serverLog == "":
		return o, errors.New("--samples, --counts and --server-log are required")
	case len(o.argv) == 0:
		return o, errors.New("the server's command goes after --")
	}
	toDuration := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	o.duration, o.think, o.timeout, o.initTimeout = toDuration(duration), toDuration(think), toDuration(timeout), toDuration(initTimeout)
	o.checks = checks == "on"
	return o, nil
}

func run(args []string) int {
	o, err := parseOptions(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitUsage
	}
	// The driver's own garbage collector: at Go's default it costs a noticeable share of the driver's CPU
	// per call; 400 trades heap for it, and the limit keeps the heap bounded. Set here, not through GOGC
	// in the environment, because the server inherits the driver's environment and must get the run's own.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(1 << 30)

	// Signals from here on are a graceful stop, also during start-up.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)

	c := counts{}
	code, reason := drive(o, &c, signals)
	if reason != "" {
		fmt.Fprintln(os.Stderr, reason)
		c.Error = &reason
	}
	var usage syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &usage) == nil { // the driver alone, not the server
		c.DriverCPUS = time.Duration(usage.Utime.Nano() + usage.Stime.Nano()).Seconds()
	}
	if err := writeCounts(o.countsPath, &c); err != nil {
		fmt.Fprintf(os.Stderr, "cannot write the counts: %v\n", err)
		if code == exitOK {
			code = exitFailed
		}
	}
	return code
}

// drive runs the whole test; the exit code and, for a failure, its one-line reason.
func drive(o options, c *counts, signals <-chan os.Signal) (int, string) {
	samples, err := createSamples(o.samplesPath)
	if err != nil {
		return exitFailed, fmt.Sprintf("cannot create the sample file: %v", err)
	}
	defer samples.close()
	logFile, err := os.OpenFile(o.serverLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return exitFailed, fmt.Sprintf("cannot open the server log: %v", err)
	}
	defer logFile.Close()

	spawned := time.Now()
	srv, err := startServer(o.argv, logFile, o.vus)
	if err != nil {
		return exitNoStart, fmt.Sprintf("cannot start the server: %v", err)
	}
	defer func() { // after the server stopped: every line it wrote has been read
		c.GarbageLines, c.ServerMessages, c.LateReplies = srv.garbage.Load(), srv.serverMessages.Load(), srv.lateReplies.Load()
	}()

	if code, reason := initialize(srv, o.initTimeout, signals); code != exitOK || reason != "" {
		srv.stop()
		return code, reason
	}
	startup := time.Since(spawned).Seconds()
	c.StartupS = &startup

	l := &load{srv: srv, samples: samples, timeout: o.timeout, think: o.think, checks: o.checks,
		stop: make(chan struct{})}
	samples.begin(time.Now())
	var vus sync.WaitGroup
	for id := 1; id <= o.vus; id++ {
		v := newVU(id)
		vus.Go(func() { v.run(l) })
	}

	serverGone := false
	select {
	case <-time.After(o.duration):
	case <-signals:
	case <-srv.eof:
		serverGone = true
	}
	l.stopping.Store(true)
	close(l.stop)
	drained := make(chan struct{})
	go func() {
		vus.Wait()
		close(drained)
	}()
	select { // calls in flight finish, within their timeout and maxDrain
	case <-drained:
	case <-time.After(min(o.timeout, maxDrain) + 100*time.Millisecond):
	}
	calls, iterations, err := samples.close()
	c.Calls, c.Iterations = calls, iterations

	state, selfExited := srv.stop()
	switch {
	case serverGone && selfExited:
		return exitServerExited, fmt.Sprintf("the server exited during the test (%s)", ended(state))
	case serverGone:
		return exitServerExited, "the server closed its stdout during the test"
	case err != nil:
		return exitFailed, fmt.Sprintf("cannot write the samples: %v", err)
	}
	return exitOK, ""
}

// initialize opens the session: initialize, its reply, then notifications/initialized. A signal ends it
// with exit 0 (the orchestrator stopped the test) and the reason recorded.
func initialize(srv *server, timeout time.Duration, signals <-chan os.Signal) (int, string) {
	id := srv.ids.Add(1)
	replies := make(chan answer, 1)
	if !srv.register(id, replies) { // stdout already closed: it exited at once
		replies <- answer{gone: true}
	}
	request := fmt.Sprintf(`{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-06-18",`+
		`"capabilities":{},"clientInfo":{"name":"mcpbench-stdio-driver","version":"1"}},"id":%d}`+"\n", id)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	srv.outbox <- []byte(request)
	var a answer
	select {
	case a = <-replies:
	case <-timer.C:
		return exitNoStart, fmt.Sprintf("the server did not answer initialize within %g s", timeout.Seconds())
	case <-signals:
		return exitOK, "stopped during start-up"
	}
	if a.gone {
		state, selfExited := srv.stop()
		if !selfExited {
			return exitNoStart, "the server closed its stdout during start-up"
		}
		return exitNoStart, fmt.Sprintf("the server exited during start-up (%s)", ended(state))
	}
	var r reply
	if err := json.Unmarshal(a.line, &r); err != nil && !errors.As(err, new(*json.UnmarshalTypeError)) {
		return exitNoStart, "the server's answer to initialize is no JSON"
	}
	if truthy(r.Error) {
		return exitNoStart, "the server answered initialize with JSON-RPC error " + errorCode(r.Error)
	}
	if r.Result == nil {
		return exitNoStart, "the server's answer to initialize has no result"
	}
	srv.outbox <- []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	return exitOK, ""
}

func writeCounts(path string, c *counts) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
