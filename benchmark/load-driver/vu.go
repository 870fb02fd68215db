package main

// One VU over the stdio transport: its calls go out on the one shared connection to the server, each
// waiting for the reply with its own id.

import (
	"time"
)

type stdioVU struct {
	srv      *server
	timeout  time.Duration
	checks   bool
	prefixes prefixes    // and the plan they were made from
	replies  chan answer // buffered: the reader never waits for this VU
	timer    *time.Timer // the call's timeout
}

func newStdioVU(srv *server, p *plan, global int, timeout time.Duration, checks bool) *stdioVU {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &stdioVU{srv: srv, timeout: timeout, checks: checks, prefixes: p.prefixes(global+1, ""),
		replies: make(chan answer, 1), timer: t}
}

// do sends one request and waits for its reply or its timeout; ok is false when the server's stdout had
// already closed (nothing is issued then). A call is one sample: its duration is the sample's.
func (v *stdioVU) do(call int, iteration int64) (outcome, bool) {
	id := v.srv.ids.Add(1)
	line := body(v.prefixes.of(call, iteration), id, '\n')
	if !v.srv.register(id, v.replies) {
		return outcome{}, false
	}
	sent := time.Now()
	v.timer.Reset(v.timeout)
	var a answer
	if !v.srv.send(line, v.timer.C) {
		return v.timedOut(id, sent), true
	}
	select {
	case a = <-v.replies:
		v.timer.Stop()
	case <-v.timer.C:
		return v.timedOut(id, sent), true
	}
	ms := float64(a.at.Sub(sent).Nanoseconds()) / 1e6
	if a.gone {
		return outcome{kind: "server_exited", callMs: ms, sessionMs: ms}, true
	}
	return outcome{kind: judge(v.prefixes.plan.Calls[call], a.line, v.checks), callMs: ms, sessionMs: ms}, true
}

func (v *stdioVU) timedOut(id uint64, sent time.Time) outcome {
	if !v.srv.forget(id) {
		<-v.replies // it arrived as the timer fired: drained, so the next call's channel is empty
	}
	ms := float64(time.Since(sent).Nanoseconds()) / 1e6
	return outcome{kind: "timeout", callMs: ms, sessionMs: ms}
}
