package main

// The raw sample file, in load.js's console format so that mcpbench.loadgen.k6.parse_samples and the
// orchestrator's live warm-up reader (mcpbench.warmup.LiveSamples) read it unchanged:
//   T,<scenario start, epoch ms>
//   S,t_s,vu,tool,ok,error_kind,call_ms,session_ms,http_ms[,first_ms]
// first_ms only on a call that streamed progress (the workload's `progress`): its first notification's arrival.
// The calls count the cross-check compares with the samples is kept here, from exactly the lines written.

import (
	"bufio"
	"os"
	"strconv"
	"sync"
	"time"
)

// flushEvery: the orchestrator tails the file about once a second for its warm-up decision.
const flushEvery = 100 * time.Millisecond

type sampleFile struct {
	mu     sync.Mutex
	file   *os.File
	w      *bufio.Writer
	start  time.Time
	closed bool
	calls  int64
	done   chan struct{}
}

func createSamples(path string) (*sampleFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &sampleFile{file: f, w: bufio.NewWriterSize(f, 256<<10), done: make(chan struct{})}, nil
}

// begin writes the scenario start and starts the periodic flush.
func (s *sampleFile) begin(start time.Time) {
	s.mu.Lock()
	s.start = start
	s.w.WriteString("T," + strconv.FormatInt(start.UnixMilli(), 10) + "\n")
	s.w.Flush()
	s.mu.Unlock()
	go func() {
		ticker := time.NewTicker(flushEvery)
		defer ticker.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-ticker.C:
				s.mu.Lock()
				if !s.closed && s.w.Buffered() > 0 {
					s.w.Flush()
				}
				s.mu.Unlock()
			}
		}
	}()
}

// record formats one sample into scratch (the VU's own buffer, returned for reuse) and writes it, as
// load.js's record(): t_s with 3 decimals, ok 1/0, call_ms empty when the call was never sent, session_ms,
// and http_ms joined by ';' (empty over stdio).
func (s *sampleFile) record(scratch []byte, vu int, call string, o outcome) []byte {
	b := append(scratch[:0], 'S', ',')
	at := time.Since(s.start).Seconds()
	b = strconv.AppendFloat(b, at, 'f', 3, 64)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(vu), 10)
	b = append(b, ',')
	b = append(b, call...)
	if o.kind == "" {
		b = append(b, ",1,,"...)
	} else {
		b = append(b, ",0,"...)
		b = append(b, o.kind...)
		b = append(b, ',')
	}
	if o.callMs >= 0 {
		b = strconv.AppendFloat(b, o.callMs, 'f', 3, 64)
	}
	b = append(b, ',')
	b = strconv.AppendFloat(b, o.sessionMs, 'f', 3, 64)
	b = append(b, ',')
	for i, ms := range o.httpMs {
		if i > 0 {
			b = append(b, ';')
		}
		b = strconv.AppendFloat(b, ms, 'f', 3, 64)
	}
	if o.first {
		b = append(b, ',')
		b = strconv.AppendFloat(b, o.firstMs, 'f', 3, 64)
	}
	b = append(b, '\n')
	s.mu.Lock()
	if !s.closed { // a call still in flight when the drain ended is dropped, as k6 drops a cut-short one
		s.w.Write(b)
		s.calls++
	}
	s.mu.Unlock()
	return b
}

// close flushes and ends the file; later samples are dropped. It returns the counts of what was written.
func (s *sampleFile) close() (calls int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.done)
		err = s.w.Flush()
		if cerr := s.file.Close(); err == nil {
			err = cerr
		}
	}
	return s.calls, err
}
