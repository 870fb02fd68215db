package main

import (
	"math"
	"testing"
	"time"
)

func mustStages(t *testing.T, text string) stages {
	t.Helper()
	s, err := parseStages(text)
	if err != nil {
		t.Fatalf("parseStages(%q): %v", text, err)
	}
	return s
}

func TestParseStagesReadsTheSeedProfile(t *testing.T) {
	s := mustStages(t, "2m:10,3m:25,10m:50,2m:0")
	want := stages{{2 * time.Minute, 10}, {3 * time.Minute, 25}, {10 * time.Minute, 50}, {2 * time.Minute, 0}}
	if len(s) != len(want) {
		t.Fatalf("%d stages; want %d", len(s), len(want))
	}
	for i := range want {
		if s[i] != want[i] {
			t.Errorf("stage %d = %+v; want %+v", i+1, s[i], want[i])
		}
	}
	if s.total() != 17*time.Minute || s.peak() != 50 {
		t.Errorf("total %v, peak %g; want 17m0s, 50", s.total(), s.peak())
	}
}

func TestParseStagesRefusesMalformedInput(t *testing.T) {
	for _, text := range []string{"", "30s", "30:10", "30s:x", "30s:10,", "-1s:5", "5s:-1", "0s:5", "30s:NaN"} {
		if _, err := parseStages(text); err == nil {
			t.Errorf("parseStages(%q) accepted it", text)
		}
	}
}

func TestLevelIsLinearWithinAStageAndStepsAtAZeroDuration(t *testing.T) {
	// 10 s up to 10, 10 s held, a step to 40, 5 s held, a step back to 10, 10 s down to 0
	s := mustStages(t, "10s:10,10s:10,0s:40,5s:40,0s:10,10s:0")
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{-time.Second, 0}, {0, 0}, {5 * time.Second, 5}, {10 * time.Second, 10}, {19 * time.Second, 10},
		{20 * time.Second, 40}, {24 * time.Second, 40}, {25 * time.Second, 10}, {30 * time.Second, 5},
		{35 * time.Second, 0}, {36 * time.Second, 0}} {
		if got := s.level(c.at); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("level(%v) = %g; want %g", c.at, got, c.want)
		}
	}
}

func TestClosedVUsFollowTheStages(t *testing.T) {
	s := mustStages(t, "10s:50,19s:50,0s:100,1s:100,10s:0")
	for _, c := range []struct {
		at   time.Duration
		want int
	}{{0, 0}, {5 * time.Second, 25}, {10 * time.Second, 50}, {28 * time.Second, 50}, {29 * time.Second, 100},
		{30 * time.Second, 100}, {35 * time.Second, 50}, {40 * time.Second, 0}, {41 * time.Second, 0}} {
		if got := s.activeVUs(c.at); got != c.want {
			t.Errorf("activeVUs(%v) = %d; want %d", c.at, got, c.want)
		}
	}
}

// arrivals lists every arrival's time until the test ends, checking that they come in order.
func arrivals(t *testing.T, s stages) []time.Duration {
	t.Helper()
	var at []time.Duration
	for k := int64(0); ; k++ {
		a, ok := s.arrivalAt(k)
		if !ok {
			return at
		}
		if len(at) > 0 && a < at[len(at)-1] {
			t.Fatalf("arrival %d at %v comes before the one before it (%v)", k, a, at[len(at)-1])
		}
		at = append(at, a)
	}
}

func countIn(at []time.Duration, from, to time.Duration) int {
	n := 0
	for _, a := range at {
		if a >= from && a < to {
			n++
		}
	}
	return n
}

func TestArrivalsOverTheRampsAreTheRatesIntegral(t *testing.T) {
	// today's ramp-up, hold, ramp-down as a list of stages
	s := mustStages(t, "4s:100,10s:100,2s:0")
	at := arrivals(t, s)
	want := 100 * (4.0/2 + 10 + 2.0/2) // the area under the rate
	if math.Abs(float64(len(at))-want) > 1 {
		t.Errorf("%d arrivals; want the integral %g", len(at), want)
	}
	// at full rate, arrivals are 1/rate apart
	if gap := at[501] - at[500]; gap < 9900*time.Microsecond || gap > 10100*time.Microsecond {
		t.Errorf("arrivals at full rate %v apart; want 10ms", gap)
	}
	// half-way up the ramp-up the rate is half: arrivals twice as far apart
	if gap := at[50] - at[49]; gap < 19*time.Millisecond || gap > 21*time.Millisecond {
		t.Errorf("arrivals at half rate %v apart; want 20ms", gap)
	}
}

func TestArrivalsOverSeveralStagesWithAStep(t *testing.T) {
	// up to 20/s over 2 s (20 arrivals), 20/s for 3 s (60), a step to 80/s for 1 s (80), a step back to
	// 20/s for 2 s (40), a ramp 20 -> 60/s over 2 s (80), down to 0 over 1 s (30)
	s := mustStages(t, "2s:20,3s:20,0s:80,1s:80,0s:20,2s:20,2s:60,1s:0")
	at := arrivals(t, s)
	sec := time.Second
	for _, c := range []struct {
		from, to time.Duration
		want     int
	}{{0, 2 * sec, 20}, {2 * sec, 5 * sec, 60}, {5 * sec, 6 * sec, 80}, {6 * sec, 8 * sec, 40},
		{8 * sec, 10 * sec, 80}, {10 * sec, 11 * sec, 30}} {
		if got := countIn(at, c.from, c.to); got < c.want-1 || got > c.want+1 {
			t.Errorf("%d arrivals in [%v, %v); want %d", got, c.from, c.to, c.want)
		}
	}
	if len(at) < 309 || len(at) > 310 {
		t.Errorf("%d arrivals in all; want the integral 310", len(at))
	}
	// the step is exact: 20/s up to 5 s, 80/s right after it
	first := countIn(at, 0, 5*sec)
	if gap := at[first] - at[first-1]; gap < 49*time.Millisecond || gap > 51*time.Millisecond {
		t.Errorf("the last arrival before the step and the first after it %v apart; want 50ms (20/s)", gap)
	}
	if gap := at[first+2] - at[first+1]; gap < 12400*time.Microsecond || gap > 12600*time.Microsecond {
		t.Errorf("arrivals after the step %v apart; want 12.5ms (80/s)", gap)
	}
	// a falling ramp's arrivals spread out: 60/s -> 0 over 1 s puts half its 30 in the first 0.29 s
	if got := countIn(at, 10*sec, 10*sec+293*time.Millisecond); got < 14 || got > 16 {
		t.Errorf("%d arrivals in the falling ramp's first 0.29 s; want 15", got)
	}
}

func TestNoArrivalsWhileTheRateIsZero(t *testing.T) {
	s := mustStages(t, "0s:10,1s:10,0s:0,2s:0,0s:10,1s:10")
	at := arrivals(t, s)
	// the 10th arrival is due at 1 s exactly, where the first stage's area reaches 10
	if n := countIn(at, time.Second+time.Millisecond, 3*time.Second); n != 0 {
		t.Errorf("%d arrivals while the rate is 0", n)
	}
	if len(at) != 20 {
		t.Errorf("%d arrivals; want 20", len(at))
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
