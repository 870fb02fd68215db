package main

import (
	"math"
	"testing"
	"time"
)

func TestClosedVUsFollowTheRamps(t *testing.T) {
	s := stages{rampUp: 10 * time.Second, hold: 20 * time.Second, rampDown: 10 * time.Second}
	for _, c := range []struct {
		at   time.Duration
		want int
	}{{0, 0}, {5 * time.Second, 25}, {10 * time.Second, 50}, {29 * time.Second, 50}, {35 * time.Second, 25},
		{40 * time.Second, 0}, {41 * time.Second, 0}} {
		if got := s.activeVUs(50, c.at); got != c.want {
			t.Errorf("activeVUs(50, %v) = %d; want %d", c.at, got, c.want)
		}
	}
}

func TestArrivalsOverTheRampsAreTheRatesIntegral(t *testing.T) {
	s := stages{rampUp: 4 * time.Second, hold: 10 * time.Second, rampDown: 2 * time.Second}
	const rate = 100.0
	count, last := int64(0), time.Duration(-1)
	for k := int64(0); ; k++ {
		at, ok := s.arrivalAt(rate, k)
		if !ok {
			break
		}
		if at < last {
			t.Fatalf("arrival %d at %v comes before the one before it (%v)", k, at, last)
		}
		last = at
		count++
	}
	want := rate * (4.0/2 + 10 + 2.0/2) // the area under the rate
	if math.Abs(float64(count)-want) > 1 {
		t.Errorf("%d arrivals; want the integral %g", count, want)
	}
	// at full rate, arrivals are 1/rate apart
	a, _ := s.arrivalAt(rate, 500)
	b, _ := s.arrivalAt(rate, 501)
	if gap := b - a; gap < 9900*time.Microsecond || gap > 10100*time.Microsecond {
		t.Errorf("arrivals at full rate %v apart; want 10ms", gap)
	}
	// half-way up the ramp-up the rate is half: arrivals twice as far apart
	first, _ := s.arrivalAt(rate, 49)
	second, _ := s.arrivalAt(rate, 50)
	if gap := second - first; gap < 19*time.Millisecond || gap > 21*time.Millisecond {
		t.Errorf("arrivals at half rate %v apart; want 20ms", gap)
	}
}

func TestSegmentsSplitVUsAndArrivalsExactly(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4} {
		for _, vus := range []int{0, 1, 5, 50, 51} {
			total, seen := 0, map[int]bool{}
			for i := range n {
				sg := segment{index: i, count: n}
				local := sg.localVUs(vus)
				total += local
				for j := range local {
					g := sg.globalVU(j)
					if g >= vus || seen[g] {
						t.Fatalf("n=%d vus=%d: VU %d given twice or out of range", n, vus, g)
					}
					seen[g] = true
				}
			}
			if total != vus {
				t.Errorf("n=%d: the segments run %d of %d VUs", n, total, vus)
			}
		}
		owners := 0
		for i := range n {
			if (segment{index: i, count: n}).owns(7) {
				owners++
			}
		}
		if owners != 1 {
			t.Errorf("n=%d: arrival 7 belongs to %d instances", n, owners)
		}
	}
}
