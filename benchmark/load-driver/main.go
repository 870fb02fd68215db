// load-driver: mcpbench's load generator (README.md). It runs load.js's closed model (VUs, think time) or
// its open model (an arrival rate with pre-allocated VUs), each following a list of stages (--stages), against
// an MCP server over Streamable HTTP (modes session, stateless, persistent, stateless-2026) or over stdio (it
// then starts the server and opens one session on its stdin/stdout), checks every reply as load.js does and
// writes the raw sample lines k6 writes, so the orchestrator's analysis applies whatever generated the load.
//
// Exit codes: 0 the test ran (to its end or to SIGINT/SIGTERM), 2 bad arguments, 3 a stdio server did not
// start (no initialize reply), 4 a stdio server exited during the test, 1 anything else. A failure's
// reason is one line on stderr and the counts' "error".
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
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

// maxDrain bounds how long the open model waits for its VUs to come back once its arrivals end (k6's
// gracefulRampDown); the stages' own end waits this long for VUs to finish their iterations by themselves.
const maxDrain = 5 * time.Second

// pingWait: how long an abandoning stdio load waits for the server to answer once it reads again.
const pingWait = 5 * time.Second

var modes = map[string]bool{"session": true, "stateless": true, "persistent": true, "stateless-2026": true, "stdio": true}

type options struct {
	mode        string
	model       string
	target      string
	vus         int
	maxVUs      int
	stages      stages
	think       time.Duration
	timeout     time.Duration
	initTimeout time.Duration
	checks      bool
	plan        *plan
	protocol    string
	seg         segment
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
	StartLagP99Ms     *float64 `json:"start_lag_p99_ms"`
	StartLagMaxMs     *float64 `json:"start_lag_max_ms"`
	MaxVUsUsed        int64    `json:"max_vus_used"`
	StartupS          *float64 `json:"startup_s"`
	GarbageLines      int64    `json:"garbage_lines"`
	ServerMessages    int64    `json:"server_messages"`
	LateReplies       int64    `json:"late_replies"`
	// CursorPages: tools/list pages fetched after a first (result.nextCursor). Over HTTP they are in
	// http_reqs too; a sample holds its whole list as one request's duration, so the samples' count leaves
	// them out.
	CursorPages int64 `json:"cursor_pages"`
	// SessionsLeftOpen: an abandoning workload's sessions the server issued an id for, never DELETEd (0: the
	// server issued none, so it had none to keep).
	SessionsLeftOpen int64 `json:"sessions_left_open"`
	// OldestSessionStatus: an abandoning workload's first session left open, pinged under its id once the load
	// and its watch were over: 200, still held; 404, let go (absent: no session left, or no answer).
	OldestSessionStatus *int `json:"oldest_session_status,omitempty"`
	// StreamsDropped: the GET streams a drop_stream workload's clients dropped unread while the server had them
	// open (200, or held unanswered for a second; absent without drop_stream).
	StreamsDropped *int64 `json:"streams_dropped,omitempty"`
	// RequestsUnread: an abandoning workload's requests over stdio, sent while the client read nothing back (from
	// the load's start until its watch began). AnsweredAfterWatch: once the client read again and the watch was
	// over, whether the server answered a ping within 5 s (absent: not an abandoning stdio load). The replies it
	// had queued meanwhile, read after the watch began, are late_replies.
	// RequestsNotTaken: those not taken from the driver within 1 s (unreadSendWait), the server's stdin full (it had
	// stopped reading its input while its output was unread: back-pressure).
	RequestsUnread     *int64 `json:"requests_unread,omitempty"`
	RequestsNotTaken   *int64 `json:"requests_not_taken,omitempty"`
	AnsweredAfterWatch *bool  `json:"answered_after_watch,omitempty"`
	// StallsS: the spans (seconds from the scenario start) in which the driver itself did not run for longer
	// than stallAfter: stopped (SIGSTOP), or starved of CPU. The orchestrator's analysis reads them as the
	// generator's liveness, apart from a server that is slow or stopped answering.
	// Cancelled: the calls the client cancelled part-way (a call's cancel_after_ms), by notifications/cancelled
	// and by closing the response stream; CancelReplies: the replies that still came to them (listened for
	// only after a notification: a closed stream can bring none). Absent without a cancelled call.
	CancelledByNotice *int64 `json:"cancelled_by_notice,omitempty"`
	CancelledByClose  *int64 `json:"cancelled_by_close,omitempty"`
	CancelReplies     *int64 `json:"cancel_replies,omitempty"`
	// StepsBeforeCancel, StepsAfterCancel: the steps the cancelled calls' work lists hold from before and from
	// after each cancellation, read cancelWatch after the last; CancelledWorkedOn: the calls with any after it.
	// WorkUnread: why the work lists could not be read.
	StepsBeforeCancel *int64       `json:"steps_before_cancel,omitempty"`
	StepsAfterCancel  *int64       `json:"steps_after_cancel,omitempty"`
	CancelledWorkedOn *int64       `json:"cancelled_worked_on,omitempty"`
	WorkUnread        *string      `json:"work_unread,omitempty"`
	StallsS           [][2]float64 `json:"stalls_s"`
	Error             *string      `json:"error"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "node-agent" { // a swarm node's CPUs (node.go)
		os.Exit(nodeAgent())
	}
	if len(os.Args) > 1 && os.Args[1] == "rtt" { // a round trip to a node agent (node.go)
		os.Exit(rtt(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:]))
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func parseSegment(text string) (segment, error) {
	index, count, ok := strings.Cut(text, "/")
	i, err1 := strconv.Atoi(index)
	n, err2 := strconv.Atoi(count)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return segment{}, fmt.Errorf("--segment %q: give i/n with 0 <= i < n", text)
	}
	return segment{index: i, count: n}, nil
}

func parseOptions(args []string) (options, error) {
	fs := flag.NewFlagSet("load-driver", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	var o options
	var think, timeout, initTimeout float64
	var checks, seg, workload, schedule string
	fs.StringVar(&o.mode, "mode", "", "session | stateless | persistent | stateless-2026 | stdio")
	fs.StringVar(&o.model, "model", "closed", "closed (the stages' targets are VUs) | open (arrival rates, calls/s)")
	fs.StringVar(&o.target, "target", "", "the MCP endpoint's URL (HTTP modes)")
	fs.StringVar(&schedule, "stages", "", "duration:target,...: each stage moves linearly from the last target (0 first) to its own")
	fs.IntVar(&o.vus, "vus", 0, "open: pre-allocated VUs (closed: the stages' largest target)")
	fs.IntVar(&o.maxVUs, "max-vus", 0, "open: VUs may grow to this (default 4 x --vus)")
	fs.Float64Var(&think, "think-time-s", 0.05, "closed: pause after each iteration, seconds")
	fs.Float64Var(&timeout, "timeout-s", 30, "a request without a reply after this long is a timeout, seconds")
	fs.Float64Var(&initTimeout, "init-timeout-s", 60, "stdio: how long the server may take to answer initialize")
	fs.StringVar(&checks, "checks", "on", "check the tools' results (on|off)")
	fs.StringVar(&workload, "workload", "", "the calls, their arguments and checks: the compiled workload's JSON")
	fs.StringVar(&o.protocol, "protocol", "2024-11-05", "initialize's protocolVersion")
	fs.StringVar(&seg, "segment", "0/1", "this instance's share of a test split over n: i/n")
	fs.StringVar(&o.samplesPath, "samples", "", "the raw sample file to write")
	fs.StringVar(&o.countsPath, "counts", "", "the counts JSON to write")
	fs.StringVar(&o.serverLog, "server-log", "", "stdio: the server's stderr is appended here")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.argv = fs.Args() // what follows `--`
	var err error
	if o.seg, err = parseSegment(seg); err != nil {
		return o, err
	}
	if !modes[o.mode] {
		return o, fmt.Errorf("--mode %q: choose session, stateless, persistent, stateless-2026 or stdio", o.mode)
	}
	if o.model != "closed" && o.model != "open" {
		return o, fmt.Errorf("--model %q: choose closed or open", o.model)
	}
	if o.stages, err = parseStages(schedule); err != nil {
		return o, err
	}
	if o.model == "closed" {
		// A VU count is whole: the closed model's VUs are its stages' largest target.
		for i, st := range o.stages {
			if st.target != math.Trunc(st.target) {
				return o, fmt.Errorf("--stages: stage %d's target %g is a VU count in the closed model: give a whole number", i+1, st.target)
			}
		}
		o.vus = int(o.stages.peak())
		o.maxVUs = o.vus
	} else if o.maxVUs == 0 {
		o.maxVUs = 4 * o.vus
	}
	switch {
	case o.model == "closed" && o.vus < 1:
		return o, errors.New("--stages: the closed model needs a stage with at least 1 VU")
	case o.model == "open" && (o.vus < 1 || o.maxVUs < o.vus || o.stages.peak() <= 0):
		return o, errors.New("the open model needs --vus >= 1, --max-vus >= --vus and a stage with a rate > 0")
	case timeout <= 0 || initTimeout <= 0 || think < 0:
		return o, errors.New("--timeout-s and --init-timeout-s must be positive, --think-time-s not negative")
	case checks != "on" && checks != "off":
		return o, errors.New("--checks is on or off")
	case o.samplesPath == "" || o.countsPath == "":
		return o, errors.New("--samples and --counts are required")
	case o.mode == "stdio" && (o.serverLog == "" || len(o.argv) == 0):
		return o, errors.New("mode stdio needs --server-log and the server's command after --")
	case o.mode == "stdio" && o.seg.count > 1:
		return o, errors.New("mode stdio runs as one instance: a stdio server has one client")
	case o.mode != "stdio" && (o.target == "" || len(o.argv) > 0):
		return o, errors.New("the HTTP modes need --target URL and no command")
	case workload == "":
		return o, errors.New("--workload is required (the orchestrator compiles it from a workload file)")
	}
	if o.plan, err = parsePlan(workload); err != nil {
		return o, err
	}
	if o.plan.DropStream && !o.plan.Abandon {
		return o, fmt.Errorf("--workload: drop_stream drops abandoned sessions' streams; abandon is false")
	}
	if o.plan.Abandon && o.mode != "session" && o.mode != "stdio" {
		return o, fmt.Errorf("--workload: abandon leaves session mode's sessions open, or stops reading a stdio "+
			"server's replies; --mode is %s", o.mode)
	}
	if o.plan.DropStream && o.mode == "stdio" {
		return o, fmt.Errorf("--workload: drop_stream drops HTTP streams; --mode is stdio")
	}
	o.think, o.timeout, o.initTimeout = seconds(think), seconds(timeout), seconds(initTimeout)
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
	// in the environment, because a stdio server inherits the driver's environment and must get its own.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(1 << 30)

	// Signals from here on are a graceful stop, also during a stdio server's start-up.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)

	c := counts{}
	code, reason := drive(o, &c, signals)
	if reason != "" {
		fmt.Fprintln(os.Stderr, reason)
		c.Error = &reason
	}
	var usage syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &usage) == nil { // the driver alone, not a stdio server
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
	l := &load{plan: o.plan, samples: samples, stages: o.stages, seg: o.seg, think: o.think, stop: make(chan struct{})}
	var srv *server
	var targetGone <-chan struct{}
	if o.mode == "stdio" {
		logFile, err := os.OpenFile(o.serverLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return exitFailed, fmt.Sprintf("cannot open the server log: %v", err)
		}
		defer logFile.Close()
		spawned := time.Now()
		srv, err = startServer(o.argv, logFile, o.maxVUs)
		if err != nil {
			return exitNoStart, fmt.Sprintf("cannot start the server: %v", err)
		}
		defer func() { // after the server stopped: every line it wrote has been read
			c.GarbageLines, c.ServerMessages, c.LateReplies = srv.garbage.Load(), srv.serverMessages.Load(), srv.lateReplies.Load()
		}()
		if code, reason := initialize(srv, o.initTimeout, o.protocol, signals); code != exitOK || reason != "" {
			srv.stop()
			return code, reason
		}
		startup := time.Since(spawned).Seconds()
		c.StartupS = &startup
		srv.cancels = &o.plan.cancels
		l.newVU = func(global int) caller { return newStdioVU(srv, o.plan, global, o.timeout, o.checks) }
		targetGone = srv.eof
		if o.plan.Abandon { // a client that stops reading: until the watch, then it reads the backlog and pings
			srv.stopReading()
			l.watching = srv.resumeReading
		}
	} else {
		target := &httpTarget{plan: o.plan, url: o.target, mode: o.mode, protocol: o.protocol, timeout: o.timeout, checks: o.checks}
		l.newVU = func(global int) caller { return newHTTPVU(target, global) }
		defer func() { c.HTTPReqs = target.requests.Load() }()
		if o.plan.Abandon { // after the load and its watch, before the counts are written (deferred: runs first)
			defer func() { c.OldestSessionStatus = target.oldestSession() }()
		}
	}

	start := time.Now()
	samples.begin(start)
	watch := watchLiveness(start)
	defer func() { c.StallsS = watch.stop() }()
	var vus sync.WaitGroup
	scheduled := make(chan struct{})
	go func() {
		defer close(scheduled)
		if o.model == "open" {
			l.open(o.vus, o.maxVUs, start, &vus)
		} else {
			l.closed(start, &vus)
		}
	}()
	ended := make(chan struct{}) // the stages are over and every VU has finished by itself
	go func() {
		<-scheduled
		vus.Wait()
		close(ended)
	}()
	serverGone := false
	select {
	case <-ended:
	case <-time.After(o.stages.total() + maxDrain): // k6's gracefulStop: iterations still running are cut
	case <-signals:
	case <-targetGone:
		serverGone = true
	}
	l.halt()
	// Calls in flight finish: answered, or recorded as timeouts at the request timeout (k6's gracefulStop is
	// 30 s by default, as the timeout is). Cutting them off sooner would hide a server that stopped answering:
	// its calls would leave no sample at all, and an empty stretch of samples reads as the generator's fault.
	select {
	case <-ended:
	case <-time.After(o.timeout + 500*time.Millisecond):
	}
	c.Calls, err = samples.close()
	c.Iterations, c.DroppedIterations, c.MaxVUsUsed = l.iterations.Load(), l.dropped.Load(), l.vusUsed.Load()
	c.StartLagP99Ms, c.StartLagMaxMs = l.startLag()
	c.CursorPages = o.plan.cursorPages.Load()
	c.SessionsLeftOpen = o.plan.sessionsLeftOpen.Load()
	if o.plan.DropStream {
		dropped := o.plan.streamsDropped.Load()
		c.StreamsDropped = &dropped
	}
	o.plan.countCancels(c)
	if srv != nil && o.plan.Abandon {
		srv.resumeReading() // a load cut short never reached its watch
		answered := srv.ping(pingWait)
		unread, notTaken := o.plan.requestsUnread.Load(), o.plan.requestsNotTaken.Load()
		c.AnsweredAfterWatch, c.RequestsUnread, c.RequestsNotTaken = &answered, &unread, &notTaken
	}
	if srv != nil {
		state, selfExited := srv.stop()
		switch {
		case (serverGone || l.gone.Load()) && selfExited:
			return exitServerExited, fmt.Sprintf("the server exited during the test (%s)", endedHow(state))
		case serverGone || l.gone.Load():
			return exitServerExited, "the server closed its stdout during the test"
		}
	}
	if err != nil {
		return exitFailed, fmt.Sprintf("cannot write the samples: %v", err)
	}
	return exitOK, ""
}

// initialize opens a stdio server's session: initialize, its reply, then notifications/initialized. A
// signal ends it with exit 0 (the orchestrator stopped the test) and the reason recorded.
func initialize(srv *server, timeout time.Duration, protocol string, signals <-chan os.Signal) (int, string) {
	id := srv.ids.Add(1)
	replies := make(chan answer, 1)
	if !srv.register(id, replies) { // stdout already closed: it exited at once
		replies <- answer{gone: true}
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	srv.outbox <- body(initializePrefix(protocol), id, '\n')
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
		return exitNoStart, fmt.Sprintf("the server exited during start-up (%s)", endedHow(state))
	}
	if kind := judgeInitialize(a.line); kind != "" {
		switch {
		case strings.HasPrefix(kind, "jsonrpc_"):
			return exitNoStart, "the server answered initialize with JSON-RPC error " + strings.TrimPrefix(kind, "jsonrpc_")
		case !json.Valid(a.line):
			return exitNoStart, "the server's answer to initialize is no JSON"
		}
		return exitNoStart, "the server's answer to initialize has no result"
	}
	srv.outbox <- []byte(initializedBody + "\n")
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

// The driver's own liveness: a ticker every livenessTick; a tick that comes more than stallAfter after the one
// before means nothing of the driver ran meanwhile (its process was stopped, or the machine starved it), so its
// calls' durations and the silence of its samples then say nothing about the server.
const (
	livenessTick = 100 * time.Millisecond
	stallAfter   = time.Second
)

type liveness struct {
	done   chan struct{}
	ended  chan struct{}
	stalls [][2]float64
}

func watchLiveness(start time.Time) *liveness {
	w := &liveness{done: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(w.ended)
		ticker := time.NewTicker(livenessTick)
		defer ticker.Stop()
		last := time.Now()
		for {
			select {
			case <-w.done:
				return
			case now := <-ticker.C:
				now = time.Now() // the ticker's stamp is when it fired, not when this ran
				if now.Sub(last) > stallAfter {
					w.stalls = append(w.stalls, [2]float64{last.Sub(start).Seconds(), now.Sub(start).Seconds()})
				}
				last = now
			}
		}
	}()
	return w
}

// stop ends the watch; the stalls it saw.
func (w *liveness) stop() [][2]float64 {
	close(w.done)
	<-w.ended
	return w.stalls
}
