package main

// The load's stages over time, as scenarios/base.py's ramp() gives them to k6: 0 -> the target over the
// ramp-up, the target held, the target -> 0 over the ramp-down. The closed model reads it as a VU count,
// the open model as an arrival rate whose integral places each arrival.

import (
	"math"
	"time"
)

type stages struct {
	rampUp, hold, rampDown time.Duration
}

func (s stages) total() time.Duration { return s.rampUp + s.hold + s.rampDown }

// level is the share of the target (0..1) in force at t: linear on the ramps, 1 while held.
func (s stages) level(t time.Duration) float64 {
	switch {
	case t < 0:
		return 0
	case t < s.rampUp:
		return float64(t) / float64(s.rampUp)
	case t < s.rampUp+s.hold:
		return 1
	case t < s.total():
		return 1 - float64(t-s.rampUp-s.hold)/float64(s.rampDown)
	}
	return 0
}

// activeVUs is how many of the test's `vus` VUs run at t (k6's ramping-vus rounds the interpolated target
// down; a VU above it finishes its iteration and stops).
func (s stages) activeVUs(vus int, t time.Duration) int {
	return int(math.Floor(float64(vus)*s.level(t) + 1e-9))
}

// arrivalAt is when the open model's arrival k (0-based, over the whole test) is due: where the integral of
// the rate, rate x level, reaches k+1. ok is false when the test ends first.
func (s stages) arrivalAt(rate float64, k int64) (time.Duration, bool) {
	if rate <= 0 {
		return 0, false
	}
	c := float64(k+1) / rate // the arrival's place in seconds of full rate
	up, hold, down := s.rampUp.Seconds(), s.hold.Seconds(), s.rampDown.Seconds()
	var at float64
	switch {
	case c <= up/2: // the ramp-up's area: t^2 / (2 up)
		at = math.Sqrt(2 * up * c)
	case c <= up/2+hold:
		at = up + (c - up/2)
	case c <= up/2+hold+down/2: // the ramp-down's area: u - u^2 / (2 down)
		rest := c - up/2 - hold
		at = up + hold + down*(1-math.Sqrt(math.Max(0, 1-2*rest/down)))
	default:
		return 0, false
	}
	return time.Duration(at * float64(time.Second)), true
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
