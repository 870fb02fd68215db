package main

// One VU over the stdio transport: its calls go out on the one shared connection to the server, each
// waiting for the reply with its own id.

import (
	"time"
)

type stdioVU struct {
	srv       *server
	timeout   time.Duration
	checks    bool
	prefixes  prefixes    // and the plan they were made from
	replies   chan answer // buffered: the reader never waits for this VU
	timer     *time.Timer // the call's timeout
	iteration int64       // the call's ({iteration} in its arguments)
}

func newStdioVU(srv *server, p *plan, global int, timeout time.Duration, checks bool) *stdioVU {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &stdioVU{srv: srv, timeout: timeout, checks: checks, prefixes: p.prefixes(global+1, ""),
		replies: make(chan answer, 1), timer: t}
}

// do makes one call and waits for its reply or its timeout; ok is false when the server's stdout had
// already closed (nothing is issued then). A call is one sample: its duration is the sample's. A tools/list
// that names a next page (result.nextCursor) is followed to its last, as over HTTP (httpVU.request).
func (v *stdioVU) do(call int, iteration int64) (outcome, bool) {
	c := v.prefixes.plan.Calls[call]
	v.iteration = iteration
	if v.prefixes.plan.Abandon {
		return v.unread(call, iteration), true
	}
	o, reply, ok := v.exchange(call, v.prefixes.of(call, iteration))
	for pages := 1; ok && o.kind == ""; pages++ {
		cursor := nextCursor(c, reply)
		if cursor == nil {
			break
		}
		if pages == maxListPages {
			o.kind = "pages_unending"
			break
		}
		var page outcome
		if page, reply, ok = v.exchange(call, v.prefixes.cursor(call, cursor)); !ok {
			return outcome{kind: "server_exited", callMs: o.callMs, sessionMs: o.sessionMs}, true
		}
		v.prefixes.plan.cursorPages.Add(1)
		page.callMs += o.callMs
		page.sessionMs += o.sessionMs
		o = page
	}
	return o, ok
}

// exchange sends one request and waits for its reply line (nil when there was none) or its timeout.
func (v *stdioVU) exchange(call int, prefix []byte) (outcome, []byte, bool) {
	id := v.srv.ids.Add(1)
	line := body(prefix, id, '\n')
	if !v.srv.register(id, v.replies) {
		return outcome{}, nil, false
	}
	sent := time.Now()
	v.timer.Reset(v.timeout)
	var a answer
	if !v.srv.send(line, v.timer.C) {
		return v.timedOut(id, sent), nil, true
	}
	var cancelAt <-chan time.Time
	c := v.prefixes.plan.Calls[call]
	if c.CancelAfterMs > 0 {
		t := time.NewTimer(time.Duration(c.CancelAfterMs) * time.Millisecond)
		defer t.Stop()
		cancelAt = t.C
	}
	select {
	case a = <-v.replies:
		v.timer.Stop()
	case <-v.timer.C:
		return v.timedOut(id, sent), nil, true
	case <-cancelAt:
		if v.srv.cancel(id) {
			return v.cancelled(c, id, sent), nil, true
		}
		a = <-v.replies // it arrived as the cancellation came: an ordinary call
		v.timer.Stop()
	}
	ms := float64(a.at.Sub(sent).Nanoseconds()) / 1e6
	if a.gone {
		return outcome{kind: "server_exited", callMs: ms, sessionMs: ms}, nil, true
	}
	return outcome{kind: judge(v.prefixes.plan.Calls[call], a.line, v.checks), callMs: ms, sessionMs: ms}, a.line, true
}

// unread sends the call to a server whose stdout the client no longer reads (an abandoning workload over stdio):
// nobody waits for its reply, which stays in the pipe or the server. A request the server did not take from its
// stdin within unreadSendWait (its input pipe full: the server stopped reading) is "stdin_full".
func (v *stdioVU) unread(call int, iteration int64) outcome {
	line := body(v.prefixes.of(call, iteration), v.srv.ids.Add(1), '\n')
	sent := time.Now()
	v.timer.Reset(min(v.timeout, unreadSendWait))
	taken := v.srv.send(line, v.timer.C)
	v.timer.Stop()
	ms := float64(time.Since(sent).Nanoseconds()) / 1e6
	if !taken {
		v.prefixes.plan.requestsNotTaken.Add(1)
		return outcome{kind: "stdin_full", callMs: ms, sessionMs: ms}
	}
	v.prefixes.plan.requestsUnread.Add(1)
	return outcome{kind: "unread", callMs: ms, sessionMs: ms}
}

// unreadSendWait: how long an unread request may wait for the server to take it. Short, so that a server that
// stops reading its input while its output is unread (back-pressure) shows as such within the load, as a steady
// count rather than as requests that wait out the request timeout after the load has ended.
const unreadSendWait = time.Second

func (v *stdioVU) timedOut(id uint64, sent time.Time) outcome {
	if !v.srv.forget(id) {
		<-v.replies // it arrived as the timer fired: drained, so the next call's channel is empty
	}
	ms := float64(time.Since(sent).Nanoseconds()) / 1e6
	return outcome{kind: "timeout", callMs: ms, sessionMs: ms}
}

// cancelled tells the server the call is cancelled (notifications/cancelled) and moves on, as a client that
// gave up does; the reply, if the server still sends one, is counted by the reader (server.dispatch).
func (v *stdioVU) cancelled(c *call, id uint64, sent time.Time) outcome {
	at := time.Now()
	v.srv.send(cancelNotice(id, '\n'), v.timer.C)
	v.timer.Stop()
	v.srv.cancels.noted(at, true, string(c.workList.render(nil, v.prefixes.vu, v.iteration)))
	ms := float64(at.Sub(sent).Nanoseconds()) / 1e6
	return outcome{kind: "cancelled", callMs: ms, sessionMs: ms}
}
