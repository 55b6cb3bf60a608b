package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func samplesOf(values ...uint64) []sample {
	s := make([]sample, len(values))
	for i, v := range values {
		s[i] = sample{at: time.Duration(i) * time.Second, inUse: v}
	}
	return s
}

func inUse(x sample) uint64 { return x.inUse }

func TestSlope(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name   string
		values []uint64
		perMin float64 // bytes a minute
	}{
		{"flat", []uint64{5 * mib, 5 * mib, 5 * mib, 5 * mib}, 0},
		{"1 MiB a second", []uint64{1 * mib, 2 * mib, 3 * mib, 4 * mib}, 60 * mib},
		{"falling", []uint64{4 * mib, 3 * mib, 2 * mib, 1 * mib}, -60 * mib},
		{"zigzag", []uint64{10 * mib, 12 * mib, 10 * mib, 12 * mib}, 24 * mib}, // 0.4 MiB/s by least squares
		{"one sample", []uint64{mib}, 0},
	}
	for _, tt := range tests {
		got := slope(samplesOf(tt.values...), inUse) * float64(time.Minute)
		if math.Abs(got-tt.perMin) > 1 {
			t.Errorf("%s: slope %.0f B/min, want %.0f", tt.name, got, tt.perMin)
		}
	}
	same := []sample{{at: time.Second, inUse: 1}, {at: time.Second, inUse: 9}}
	if got := slope(same, inUse); got != 0 {
		t.Errorf("samples at one instant: slope %v, want 0", got)
	}
}

func TestSummarize(t *testing.T) {
	// The first sample is before the load; the load ends at 8 s, so the
	// last is the drained one; of the 8 samples of the load, the first 2
	// are the warm-up.
	samples := samplesOf(1, 50, 90, 30, 31, 32, 33, 34, 35, 20)
	for i := range samples {
		samples[i].inFlight = int64(100 + i)
	}
	samples[5].at = 6 * time.Second // the sixth sample came a second late
	samples[6].at = 7 * time.Second
	s := summarize(samples, 8*time.Second, inUse)
	if s.Before != 1 || s.Drained != 20 {
		t.Errorf("before %d, drained %d; want 1, 20", s.Before, s.Drained)
	}
	if s.WarmUp != 2 || s.N != 6 {
		t.Errorf("warm-up %d, steady %d samples; want 2, 6", s.WarmUp, s.N)
	}
	if s.Min != 30 || s.Max != 35 || s.Last != 35 {
		t.Errorf("min %d, max %d, last %d; want 30, 35, 35", s.Min, s.Max, s.Last)
	}
	if s.MinInFlight != 103 || s.MaxInFlight != 108 {
		t.Errorf("in flight %d to %d, want 103 to 108", s.MinInFlight, s.MaxInFlight)
	}
	if s.MaxGap != 2*time.Second {
		t.Errorf("the largest gap %v, want 2s", s.MaxGap)
	}
	want := slope(samples[3:9], inUse) * float64(time.Minute)
	if math.Abs(s.SlopePerMin-want) > 1e-9 || s.SlopePerMin <= 0 {
		t.Errorf("slope %v B/min, want %v, rising", s.SlopePerMin, want)
	}
	if s := summarize(nil, time.Second, inUse); s.N != 0 || s.Max != 0 {
		t.Errorf("no samples: %+v", s)
	}
	if s := summarize(samplesOf(3), time.Second, inUse); s.N != 0 || s.Before != 3 {
		t.Errorf("one sample: %+v", s)
	}
}

func TestReadHeap(t *testing.T) {
	x := readHeap(time.Second)
	if x.at != time.Second || x.inUse == 0 || x.live == 0 || x.goroutines < 1 {
		t.Errorf("readHeap: %+v", x)
	}
	if x.live > x.inUse {
		t.Errorf("live %d above in use %d", x.live, x.inUse)
	}
}

func TestWriteHeapProfile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "heap.prof")
	if err := writeHeapProfile(name); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(name); err != nil || fi.Size() == 0 {
		t.Errorf("the profile: %v, %v", fi, err)
	}
	if err := writeHeapProfile(filepath.Join(t.TempDir(), "no", "such", "dir")); err == nil {
		t.Error("a profile in a missing directory: no error")
	}
}
