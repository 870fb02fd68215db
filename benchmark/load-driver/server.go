package main

// The server process and the one JSON-RPC connection to it over its stdin/stdout: requests from every VU
// go out through one writer goroutine, replies come back through one reader goroutine that hands each to
// the call waiting for its id.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// What a waiting call gets: the reply line, or gone when the server's stdout closed first.
type answer struct {
	line []byte
	at   time.Time // when the reader saw it
	gone bool
}

type server struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File

	outbox chan []byte // request lines for the writer goroutine

	mu      sync.Mutex
	pending map[uint64]chan answer
	// cancelledIDs are calls the client cancelled (notifications/cancelled) and forgot: a reply to one is
	// counted in cancels, not as a late reply.
	cancelledIDs map[uint64]bool
	cancels      *cancellations
	closed       bool // stdout closed: nothing more will be answered, nothing more is sent

	ids            atomic.Uint64
	garbage        atomic.Int64 // stdout lines that are no JSON-RPC message
	serverMessages atomic.Int64 // requests and notifications from the server (ignored)
	lateReplies    atomic.Int64 // replies to no waiting call (after its timeout) or with a null id

	// unread holds the reader while the client has stopped reading (an abandoning workload over stdio, stopUnread):
	// the server's stdout then fills the pipe, as under a client that hangs with the pipe still open.
	unread     sync.Mutex
	resumeOnce sync.Once

	eof    chan struct{} // closed when stdout reached its end
	waited chan struct{} // closed when the process was reaped; state then holds its end
	state  *os.ProcessState
}

// maxEchoed: the first garbage lines go to the driver's stderr, so a server that logs to stdout is seen.
const maxEchoed = 5

// startServer runs argv with the driver's environment and directory, its stderr appended to logFile. It
// stays in the driver's process group, so the orchestrator's group kill takes it down too; Pdeathsig
// takes it down if the driver is killed outright.
func startServer(argv []string, logFile *os.File, vus int) (*server, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	// *os.File ends are handed to the child as they are: no copying goroutines inside exec.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	s := &server{
		cmd: cmd, stdin: inW, stdout: outR,
		// Every VU has at most one request queued (a timed-out one may still wait in here), so this never
		// fills while the server reads its stdin.
		outbox:  make(chan []byte, 2*vus+8),
		pending: make(map[uint64]chan answer), cancelledIDs: make(map[uint64]bool),
		eof:    make(chan struct{}),
		waited: make(chan struct{}),
	}
	go s.write()
	go s.read()
	go func() {
		_ = cmd.Wait()
		s.state = cmd.ProcessState
		close(s.waited)
	}()
	return s, nil
}

// write sends queued requests, as many per write(2) as are waiting: under load one system call carries
// several requests (the server reads the same bytes either way).
func (s *server) write() {
	buf := make([]byte, 0, 64<<10)
	for line := range s.outbox {
		buf = append(buf[:0], line...)
	more:
		for len(buf) < 60<<10 {
			select {
			case next := <-s.outbox:
				buf = append(buf, next...)
			default:
				break more
			}
		}
		// A failed write (the server closed its stdin or exited) loses the requests: their calls time
		// out, or get `gone` when stdout closes.
		_, _ = s.stdin.Write(buf)
	}
}

// read demultiplexes stdout: each reply to the call waiting for its id; at the end, every call still
// waiting gets `gone`.
func (s *server) read() {
	r := bufio.NewReaderSize(s.stdout, 1<<20)
	var long []byte // a line longer than the buffer, assembled
	for {
		s.unread.Lock() // held by stopReading: no read(2) until resumeReading
		s.unread.Unlock()
		chunk, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		if len(line) > 0 {
			s.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	now := time.Now()
	s.mu.Lock()
	s.closed = true
	for id, ch := range s.pending {
		ch <- answer{at: now, gone: true}
		delete(s.pending, id)
	}
	s.mu.Unlock()
	close(s.eof)
}

func (s *server) dispatch(line []byte) {
	at := time.Now()
	id, kind := classify(line)
	switch kind {
	case blankLine:
	case garbageLine:
		if n := s.garbage.Add(1); n <= maxEchoed {
			fmt.Fprintf(os.Stderr, "the server wrote a line that is no JSON-RPC message to stdout: %.200q\n",
				bytes.TrimRight(line, "\r\n"))
		}
	case serverMessage:
		s.serverMessages.Add(1)
	case unmatchedReply:
		s.lateReplies.Add(1)
	case replyLine:
		s.mu.Lock()
		ch, ok := s.pending[id]
		delete(s.pending, id)
		wasCancelled := s.cancelledIDs[id]
		delete(s.cancelledIDs, id)
		s.mu.Unlock()
		if !ok && wasCancelled {
			s.cancels.replies.Add(1)
			return
		}
		if !ok {
			s.lateReplies.Add(1)
			return
		}
		ch <- answer{line: bytes.Clone(line), at: at} // buffered: the waiting call takes it
	}
}

// register makes ch the receiver of id's reply; false once stdout has closed (no more calls then).
func (s *server) register(id uint64, ch chan answer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.pending[id] = ch
	return true
}

// forget drops a timed-out call; false when its reply (or `gone`) is already on its way to ch.
func (s *server) forget(id uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.pending[id]
	delete(s.pending, id)
	return ok
}

// cancel drops a call the client cancels (its reply, if one still comes, is counted in cancels); false when
// its reply (or `gone`) is already on its way to its channel.
func (s *server) cancel(id uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.pending[id]
	delete(s.pending, id)
	if ok {
		s.cancelledIDs[id] = true
	}
	return ok
}

// stopReading stops reading the server's stdout, as a client that hangs with the pipe open does; the lines the
// reader has already buffered are still handed out. resumeReading, after it, reads on (once, however often called).
func (s *server) stopReading() { s.unread.Lock() }

func (s *server) resumeReading() { s.resumeOnce.Do(s.unread.Unlock) }

// ping asks the server whether it answers at all, within wait: true when its reply came.
func (s *server) ping(wait time.Duration) bool {
	id := s.ids.Add(1)
	reply := make(chan answer, 1)
	if !s.register(id, reply) {
		return false
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	if !s.send(body([]byte(`{"jsonrpc":"2.0","method":"ping","id":`), id, '\n'), timer.C) {
		s.forget(id)
		return false
	}
	select {
	case a := <-reply:
		return !a.gone
	case <-timer.C:
		s.forget(id)
		return false
	}
}

// send queues a request line; false when timer fired first.
func (s *server) send(line []byte, timer <-chan time.Time) bool {
	select {
	case s.outbox <- line:
		return true
	case <-timer:
		return false
	}
}

// stop ends the server: its stdin closed (a stdio server's cue to exit), then SIGTERM after 3 s, then
// SIGKILL after 2 s more. selfExited says whether it had ended before it was signalled.
func (s *server) stop() (state *os.ProcessState, selfExited bool) {
	_ = s.stdin.Close()
	select {
	case <-s.waited:
		return s.state, true
	case <-time.After(3 * time.Second):
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.waited:
		return s.state, false
	case <-time.After(2 * time.Second):
	}
	_ = s.cmd.Process.Kill()
	<-s.waited
	return s.state, false
}

// ended is how a finished process ended, for one-line reasons: "exit 3" or "signal killed".
func endedHow(state *os.ProcessState) string {
	if state == nil {
		return "unknown end"
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return "exit " + strconv.Itoa(state.ExitCode())
}
