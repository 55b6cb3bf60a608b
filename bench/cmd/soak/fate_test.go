package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

func testMix() mix {
	return mix{
		seed: 7, unavailable: 0.2, retryAfter: 0.1, retryAfterMax: 3, reset: 0.15,
		slow: 0.25, slowMax: time.Second, slowChunks: 4, outage: 0.1, outageSlot: time.Second, body: 64,
	}
}

func TestFateIsSeeded(t *testing.T) {
	m, same := testMix(), testMix()
	other := testMix()
	other.seed = 8
	differ := 0
	for n := range uint64(1000) {
		since := time.Duration(n) * 10 * time.Millisecond
		if m.fate(n, since) != same.fate(n, since) {
			t.Fatalf("request %d: two fates for one seed", n)
		}
		if m.fate(n, since) != other.fate(n, since) {
			differ++
		}
	}
	if differ < 100 {
		t.Errorf("seeds 7 and 8 give %d different fates of 1000: the seed hardly matters", differ)
	}
}

// TestFateMix draws many fates and finds each kind in the proportion the
// mix gives it. The draws are seeded, so the test is deterministic; the
// tolerance is about 5 standard deviations.
func TestFateMix(t *testing.T) {
	m := testMix()
	m.outage = 0
	const draws = 100000
	var kinds [numKinds]int
	slow, answered := 0, 0
	for n := range uint64(draws) {
		f := m.fate(n, 0)
		kinds[f.kind]++
		switch f.kind {
		case answerReset:
			if f.slow != 0 {
				t.Fatalf("request %d: a reset with a slow body", n)
			}
		case answerRetryAfter:
			if f.retryAfter < 0 || f.retryAfter > m.retryAfterMax {
				t.Fatalf("request %d: Retry-After %d outside [0, %d]", n, f.retryAfter, m.retryAfterMax)
			}
		}
		if f.kind != answerReset {
			answered++
			if f.slow > 0 {
				slow++
			}
		}
		if f.slow < 0 || f.slow > m.slowMax {
			t.Fatalf("request %d: slow %v outside [0, %v]", n, f.slow, m.slowMax)
		}
	}
	near := func(name string, got, total int, want float64) {
		t.Helper()
		tol := 5 * math.Sqrt(want*(1-want)/float64(total))
		if frac := float64(got) / float64(total); math.Abs(frac-want) > tol {
			t.Errorf("%s: %.4f of the draws, want %.4f ± %.4f", name, frac, want, tol)
		}
	}
	near("reset", kinds[answerReset], draws, m.reset)
	near("503", kinds[answerUnavailable], draws, m.unavailable)
	near("503 with Retry-After", kinds[answerRetryAfter], draws, m.retryAfter)
	near("200", kinds[answerOK], draws, 1-m.reset-m.unavailable-m.retryAfter)
	near("slow among the answered", slow, answered, m.slow)
	if kinds[answerOutage] != 0 {
		t.Errorf("%d outages with -outage 0", kinds[answerOutage])
	}
}

func TestOutageSlots(t *testing.T) {
	m := testMix()
	const slots = 20000
	outages := 0
	for i := range slots {
		start := time.Duration(i) * m.outageSlot
		in := m.inOutage(start)
		if m.inOutage(start+m.outageSlot-1) != in {
			t.Fatalf("slot %d: an outage for part of its time only", i)
		}
		if in {
			outages++
			if f := m.fate(uint64(i), start); f.kind != answerOutage || f.slow != 0 {
				t.Fatalf("slot %d: fate %+v during an outage", i, f)
			}
		}
	}
	tol := 5 * math.Sqrt(m.outage*(1-m.outage)/slots)
	if frac := float64(outages) / slots; math.Abs(frac-m.outage) > tol {
		t.Errorf("%.4f of the slots are outages, want %.4f ± %.4f", frac, m.outage, tol)
	}
	m.outage = 0
	for i := range 100 {
		if m.inOutage(time.Duration(i) * m.outageSlot) {
			t.Fatalf("slot %d is an outage with -outage 0", i)
		}
	}
}

func TestMixValidate(t *testing.T) {
	good := testMix()
	if err := good.validate(); err != nil {
		t.Fatalf("a good mix: %v", err)
	}
	tests := []struct {
		name string
		edit func(*mix)
		flag string
	}{
		{"503 above 1", func(m *mix) { m.unavailable = 1.5 }, "-p503"},
		{"negative reset", func(m *mix) { m.reset = -0.1 }, "-preset"},
		{"NaN slow", func(m *mix) { m.slow = math.NaN() }, "-pslow"},
		{"fates over 1", func(m *mix) { m.unavailable, m.retryAfter, m.reset = 0.5, 0.3, 0.3 }, "add up to more than 1"},
		{"negative Retry-After", func(m *mix) { m.retryAfterMax = -1 }, "-retry-after-max"},
		{"negative slow", func(m *mix) { m.slowMax = -time.Second }, "-slow-max"},
		{"no chunks", func(m *mix) { m.slowChunks = 0 }, "-slow-chunks"},
		{"no slot", func(m *mix) { m.outageSlot = 0 }, "-outage-slot"},
		{"outage above 1", func(m *mix) { m.outage = 2 }, "-outage"},
		{"negative body", func(m *mix) { m.body = -1 }, "-body"},
	}
	for _, tt := range tests {
		m := testMix()
		tt.edit(&m)
		err := m.validate()
		if err == nil || !strings.Contains(err.Error(), tt.flag) {
			t.Errorf("%s: validate() = %v, want an error naming %s", tt.name, err, tt.flag)
		}
	}
}
