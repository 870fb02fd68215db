package main

// The two kinds of load over any transport: the closed model (k6's ramping-vus: VUs that each run the
// iteration, think, and run it again) and the open model (k6's ramping-arrival-rate: one call per arrival,
// started by a free VU at its scheduled time whatever the server does; no free VU and no room for another
// means the arrival is dropped and counted). A transport only has to make one call (caller.do).

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// outcome is one sample: the error kind ("" passed), the call's own duration (negative: never sent), the
// whole sample's, and each request's (HTTP; empty over stdio).
type outcome struct {
	kind      string
	callMs    float64
	sessionMs float64
	httpMs    []float64
	firstMs   float64 // a streamed call's first progress notification, from the call's start (when first)
	first     bool
}

// caller is one VU's connection to the target; do makes one call (an index into the plan's calls) at an
// iteration ({iteration} in its arguments). ok is false when the target is gone and nothing more may be
// issued.
type caller interface {
	do(call int, iteration int64) (o outcome, ok bool)
}

type load struct {
	plan     *plan
	samples  *sampleFile
	newVU    func(globalVU int) caller // VU numbers are 0-based; the id written (and users) is number + 1
	stages   stages
	seg      segment
	think    time.Duration
	stop     chan struct{} // closed: start nothing new
	stopping atomic.Bool
	gone     atomic.Bool // the target is gone (stdio): nothing more is issued
	// watching runs once when the stages first fall to no VU after some ran: the watch of an abandoning load
	// begins (nil: nothing to do then).
	watching func()

	iterations atomic.Int64
	dropped    atomic.Int64
	vusUsed    atomic.Int64
	lagMu      sync.Mutex
	lagsMs     []float64 // open model: how late each iteration started against its schedule
}

func (l *load) halt() {
	if l.stopping.CompareAndSwap(false, true) {
		close(l.stop)
	}
}

// record writes one sample; false once the target is gone.
func (l *load) record(scratch []byte, vu, call int, o outcome, ok bool) ([]byte, bool) {
	if !ok {
		l.gone.Store(true)
		return scratch, false
	}
	return l.samples.record(scratch, vu+1, l.plan.Calls[call].Name, o), true
}

// closed runs the closed model until the stages end or the load is stopped; wg counts its VUs.
func (l *load) closed(start time.Time, wg *sync.WaitGroup) {
	started := 0 // local VUs started so far, in order
	ticker := time.NewTicker(20 * time.Millisecond)
	defer ticker.Stop()
	for {
		elapsed := time.Since(start)
		want := l.seg.localVUs(l.stages.activeVUs(elapsed))
		if want == 0 && started > 0 && l.watching != nil {
			l.watching()
			l.watching = nil
		}
		for ; started < want; started++ {
			global := l.seg.globalVU(started)
			l.vusUsed.Add(1)
			wg.Go(func() { l.closedVU(global, start) })
		}
		if elapsed >= l.stages.total() {
			return
		}
		select {
		case <-l.stop:
			return
		case <-ticker.C:
		}
	}
}

// closedVU is load.js's closedIteration, again and again, while the stages keep this VU running: the
// plan's calls in order (the lineup's: the three tools, tools/list), the think time. A VU a falling stage
// leaves out finishes its iteration first.
func (l *load) closedVU(global int, start time.Time) {
	c := l.newVU(global)
	scratch := make([]byte, 0, 160)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for iteration := int64(0); l.stages.activeVUs(time.Since(start)) > global && !l.stopping.Load(); iteration++ {
		for _, call := range l.plan.closed {
			if l.stopping.Load() {
				return
			}
			o, ok := c.do(call, iteration)
			var alive bool
			if scratch, alive = l.record(scratch, global, call, o, ok); !alive {
				return
			}
		}
		l.iterations.Add(1)
		// A think time past the stages' end is cut there: a VU that holds its session with a long wait (the
		// sessions dimension's) would otherwise keep the test running that much longer for nothing.
		timer.Reset(min(l.think, max(0, l.stages.total()-time.Since(start))))
		select {
		case <-timer.C:
		case <-l.stop:
			timer.Stop()
			return
		}
	}
}

// job is one arrival for a VU of the open model.
type job struct {
	iteration int64     // the arrival's number over the whole test (k6's iterationInTest)
	due       time.Time // when it was scheduled
}

type openVU struct {
	global int
	c      caller
	jobs   chan job
}

// open runs the open model: arrivals at the staged rate (this instance's share: arrival k is instance
// k % n's), each one call, load.js's openIteration (the tools in turn by arrival number).
func (l *load) open(vus, maxVUs int, start time.Time, wg *sync.WaitGroup) {
	idle := make(chan *openVU, maxVUs)
	made := 0
	spawn := func() {
		v := &openVU{global: l.seg.globalVU(made), c: l.newVU(l.seg.globalVU(made)), jobs: make(chan job, 1)}
		made++
		l.vusUsed.Add(1)
		wg.Go(func() { l.openVU(v, idle) })
		idle <- v
	}
	for range vus {
		spawn()
	}
	defer func() {
		for range made { // every VU back and told to end: the drain waits for the busy ones
			select {
			case v := <-idle:
				close(v.jobs)
			case <-time.After(maxDrain):
				return
			}
		}
	}()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for k := int64(l.seg.index); ; k += int64(l.seg.count) {
		at, ok := l.stages.arrivalAt(k)
		if !ok || l.gone.Load() {
			return
		}
		due := start.Add(at)
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-l.stop:
				return
			}
		} else if l.stopping.Load() {
			return
		}
		var v *openVU
		select {
		case v = <-idle:
		default:
			if made < maxVUs {
				spawn()
				v = <-idle
			}
		}
		if v == nil {
			l.dropped.Add(1) // no free VU and no room for another: the arrival never starts
			continue
		}
		v.jobs <- job{iteration: k, due: due}
	}
}

func (l *load) openVU(v *openVU, idle chan<- *openVU) {
	scratch := make([]byte, 0, 160)
	for j := range v.jobs {
		lag := float64(time.Since(j.due).Nanoseconds()) / 1e6
		call := l.plan.open[j.iteration%int64(len(l.plan.open))] // the arrivals in turn: tool calls, and methods made arrivals
		o, ok := v.c.do(call, j.iteration)
		var alive bool
		scratch, alive = l.record(scratch, v.global, call, o, ok)
		if alive {
			l.iterations.Add(1)
			l.lagMu.Lock()
			l.lagsMs = append(l.lagsMs, lag)
			l.lagMu.Unlock()
		}
		idle <- v
	}
}

// startLag is the p99 and the largest of how late iterations started (nil without any).
func (l *load) startLag() (p99, largest *float64) {
	l.lagMu.Lock()
	defer l.lagMu.Unlock()
	if len(l.lagsMs) == 0 {
		return nil, nil
	}
	sorted := slices.Clone(l.lagsMs)
	slices.Sort(sorted)
	p := sorted[min(len(sorted)-1, int(float64(len(sorted))*0.99))]
	m := sorted[len(sorted)-1]
	return &p, &m
}
