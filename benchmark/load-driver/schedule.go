package main

// The load's schedule: a list of stages, as k6's `stages` are (and as loadgen/driver.py gives them from a
// Load's stages). Each stage moves the target linearly from the previous stage's target (0 before the
// first) to its own over its duration; a stage of zero duration is a step. The closed model reads the
// target as a VU count, the open model as an arrival rate (calls/s) whose integral places each arrival.

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

type stage struct {
	duration time.Duration
	target   float64
}

type stages []stage

// parseStages reads --stages: `duration:target` pairs, comma-separated (30s:10,60s:10,10s:0), a duration
// as Go writes one (90s, 2m, 1m30s, 0s).
func parseStages(text string) (stages, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("--stages is required: duration:target pairs, e.g. 30s:10,60s:10,10s:0")
	}
	var s stages
	for i, part := range strings.Split(text, ",") {
		dur, target, ok := strings.Cut(strings.TrimSpace(part), ":")
		d, errD := time.ParseDuration(dur)
		v, errV := strconv.ParseFloat(target, 64)
		switch {
		case !ok || errD != nil || errV != nil:
			return nil, fmt.Errorf("--stages: stage %d %q is not duration:target (e.g. 30s:10)", i+1, part)
		case d < 0 || v < 0 || math.IsInf(v, 0) || math.IsNaN(v):
			return nil, fmt.Errorf("--stages: stage %d %q: the duration and the target cannot be negative", i+1, part)
		}
		s = append(s, stage{duration: d, target: v})
	}
	if s.total() <= 0 {
		return nil, errors.New("--stages: the test must last (the stages' durations sum to 0)")
	}
	return s, nil
}

func (s stages) total() time.Duration {
	var t time.Duration
	for _, st := range s {
		t += st.duration
	}
	return t
}

// peak is the largest target of any stage.
func (s stages) peak() float64 {
	p := 0.0
	for _, st := range s {
		p = max(p, st.target)
	}
	return p
}

// level is the target in force at t: linear within a stage, the later stage's at a step; 0 outside the test.
func (s stages) level(t time.Duration) float64 {
	if t < 0 || t >= s.total() {
		return 0
	}
	from := 0.0
	for _, st := range s {
		if t < st.duration {
			return from + (st.target-from)*float64(t)/float64(st.duration)
		}
		t -= st.duration
		from = st.target
	}
	return 0
}

// activeVUs is how many VUs run at t (k6's ramping-vus rounds the interpolated target down; a VU above it
// finishes its iteration and stops).
func (s stages) activeVUs(t time.Duration) int {
	return int(math.Floor(s.level(t) + 1e-9))
}

// arrivalAt is when the open model's arrival k (0-based, over the whole test) is due: where the integral of
// the rate reaches k+1. Within a stage the rate is r0 + (r1-r0) u/d, so the area up to u is r0 u + a u^2 with
// a = (r1-r0)/(2d), solved for u in the form that is stable for rising, falling and flat rates alike. A step
// adds no area. ok is false when the test ends first.
func (s stages) arrivalAt(k int64) (time.Duration, bool) {
	c := float64(k + 1) // the area still to cover, in arrivals
	var at time.Duration
	from := 0.0
	for _, st := range s {
		d := st.duration.Seconds()
		area := (from + st.target) / 2 * d
		if d > 0 && c <= area {
			a := (st.target - from) / (2 * d)
			u := 2 * c / (from + math.Sqrt(math.Max(0, from*from+4*a*c)))
			return at + time.Duration(math.Min(u, d)*float64(time.Second)), true
		}
		c -= area
		at += st.duration
		from = st.target
	}
	return 0, false
}

// segment is this instance's share of a test split over several (k6's execution segments): VU number g
// (0-based, over the whole test) and arrival k belong to instance g % n (k % n), so the instances
// together run exactly the whole test and every VU id and arrival number is global.
type segment struct {
	index, count int
}

func (sg segment) owns(global int64) bool { return global%int64(sg.count) == int64(sg.index) }

// globalVU is the test-wide VU number of this instance's local VU j (0-based).
func (sg segment) globalVU(j int) int { return j*sg.count + sg.index }

// localVUs is how many of the test's first `vus` VUs are this instance's.
func (sg segment) localVUs(vus int) int {
	if vus <= sg.index {
		return 0
	}
	return (vus-sg.index-1)/sg.count + 1
}
