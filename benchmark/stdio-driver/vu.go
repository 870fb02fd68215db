package main

// One virtual user: load.js's closedIteration over the shared stdio connection (the three tools, then
// tools/list, then the think time), each call waiting for its own reply.

import (
	"sync/atomic"
	"time"
)

type vu struct {
	id       int
	prefixes [len(calls)][]byte
	replies  chan answer // buffered: the reader never waits for this VU
	timer    *time.Timer // the call timeout, then the think time
	scratch  []byte      // the sample line being formatted
}

type load struct {
	srv      *server
	samples  *sampleFile
	timeout  time.Duration
	think    time.Duration
	checks   bool
	stop     chan struct{} // closed: start no more calls
	stopping atomic.Bool
}

func newVU(id int) *vu {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &vu{id: id, prefixes: requestPrefixes(id), replies: make(chan answer, 1), timer: t,
		scratch: make([]byte, 0, 128)}
}

// run iterates until the load stops or the server's stdout closes.
func (v *vu) run(l *load) {
	for {
		for call := range calls {
			if l.stopping.Load() {
				return
			}
			kind, ms, issued := v.call(l, call)
			if !issued {
				return // the server is gone: issue nothing more
			}
			v.scratch = l.samples.record(v.scratch, v.id, call, kind, ms)
		}
		v.timer.Reset(l.think)
		select {
		case <-v.timer.C:
		case <-l.stop:
			v.timer.Stop()
			return
		}
	}
}

// call sends one request and waits for its reply or its timeout: the error kind ("" when it passed) and
// the time from sending to the reply. issued is false when the server's stdout had already closed.
func (v *vu) call(l *load, call int) (kind string, ms float64, issued bool) {
	id := l.srv.ids.Add(1)
	line := body(v.prefixes[call], id)
	if !l.srv.register(id, v.replies) {
		return "", 0, false
	}
	sent := time.Now()
	v.timer.Reset(l.timeout)
	var a answer
	if !l.srv.send(line, v.timer.C) {
		return v.timedOut(l, id, sent)
	}
	select {
	case a = <-v.replies:
		v.timer.Stop()
	case <-v.timer.C:
		return v.timedOut(l, id, sent)
	}
	ms = float64(a.at.Sub(sent).Nanoseconds()) / 1e6
	if a.gone {
		return "server_exited", ms, true
	}
	return judge(call, a.line, l.checks), ms, true
}

func (v *vu) timedOut(l *load, id uint64, sent time.Time) (string, float64, bool) {
	if !l.srv.forget(id) {
		<-v.replies // it arrived as the timer fired: drained, so the next call's channel is empty
	}
	return "timeout", float64(time.Since(sent).Nanoseconds()) / 1e6, true
}
