package backoff

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// constRandom is a random source that always returns v.
func constRandom(v float64) func() float64 { return func() float64 { return v } }

func seconds(d time.Duration) float64 { return d.Seconds() }

// within reports whether got is within a relative tolerance tol of want.
func within(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Abs(want)
}

type goldenRow struct {
	n               int
	nominal, lo, hi float64
}

func readGolden(t *testing.T) []goldenRow {
	t.Helper()
	f, err := os.Open("testdata/default_intervals.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []goldenRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 4 {
			t.Fatalf("golden line %q: want 4 fields", line)
		}
		var v [4]float64
		for i, s := range fields {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatalf("golden line %q: %v", line, err)
			}
		}
		rows = append(rows, goldenRow{int(v[0]), v[1], v[2], v[3]})
	}
	if len(rows) != 9 {
		t.Fatalf("golden file has %d rows, want 9", len(rows))
	}
	return rows
}

// The default BackOff follows the documented table: the lowest random draw
// gives the bottom of each range, the highest its top, and FullJitter with a
// draw of 1 the nominal interval.
func TestDefaultIntervalsMatchGoldenTable(t *testing.T) {
	rows := readGolden(t)
	lo := NewExponentialBackOff(withRandom(constRandom(0)))
	hi := NewExponentialBackOff(withRandom(constRandom(1)))
	nominal := NewExponentialBackOff(withRandom(constRandom(1)), withJitter(FullJitter))
	for _, r := range rows {
		gotLo, gotHi, gotNominal := seconds(lo.NextBackOff()), seconds(hi.NextBackOff()), seconds(nominal.NextBackOff())
		if !within(gotNominal, r.nominal, 0.001) {
			t.Errorf("request %d: nominal interval %.4fs, table says %.4fs", r.n, gotNominal, r.nominal)
		}
		if !within(gotLo, r.lo, 0.001) || !within(gotHi, r.hi, 0.001) {
			t.Errorf("request %d: randomized range [%.4f, %.4f]s, table says [%.4f, %.4f]s", r.n, gotLo, gotHi, r.lo, r.hi)
		}
	}
}

func TestDefaults(t *testing.T) {
	b := NewExponentialBackOff()
	if b.InitialInterval != 500*time.Millisecond || b.MaxInterval != 60*time.Second ||
		b.Multiplier != 1.5 || b.RandomizationFactor != 0.5 || b.Jitter != RandomizationJitter {
		t.Fatalf("defaults = %+v", b)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
}

// MaxInterval caps the nominal interval, not the randomized one.
func TestMaxIntervalCapsTheIntervalNotTheRandomizedValue(t *testing.T) {
	b := NewExponentialBackOff(WithInitialInterval(time.Second), WithMaxInterval(4*time.Second),
		WithMultiplier(2), withRandom(constRandom(1)))
	want := []time.Duration{1500 * time.Millisecond, 3 * time.Second, 6 * time.Second, 6 * time.Second, 6 * time.Second}
	for i, w := range want {
		if got := b.NextBackOff(); got != w {
			t.Errorf("call %d: %v, want %v", i+1, got, w)
		}
	}
}

func TestResetRestartsTheSequence(t *testing.T) {
	b := NewExponentialBackOff(WithRandomizationFactor(0), WithMultiplier(2), WithInitialInterval(time.Second))
	for range 5 {
		b.NextBackOff()
	}
	b.Reset()
	if got := b.NextBackOff(); got != time.Second {
		t.Fatalf("after Reset: %v, want 1s", got)
	}
}

// A BackOff built as a struct literal, never Reset, starts at its initial
// interval rather than at zero.
func TestStructLiteralStartsAtInitialInterval(t *testing.T) {
	b := &ExponentialBackOff{InitialInterval: time.Second, Multiplier: 2, MaxInterval: time.Minute}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		if got := b.NextBackOff(); got != want {
			t.Fatalf("call %d: %v, want %v", i+1, got, want)
		}
	}
}

func TestValidateNamesTheBadField(t *testing.T) {
	cases := []struct {
		name  string
		opts  []ExponentialBackOffOption
		field string
	}{
		{"negative initial", []ExponentialBackOffOption{WithInitialInterval(-time.Second)}, "InitialInterval"},
		{"negative max", []ExponentialBackOffOption{WithInitialInterval(0), WithMaxInterval(-1)}, "MaxInterval"},
		{"multiplier below 1", []ExponentialBackOffOption{WithMultiplier(0.5)}, "Multiplier"},
		{"NaN multiplier", []ExponentialBackOffOption{WithMultiplier(math.NaN())}, "Multiplier"},
		{"infinite multiplier", []ExponentialBackOffOption{WithMultiplier(math.Inf(1))}, "Multiplier"},
		{"negative factor", []ExponentialBackOffOption{WithRandomizationFactor(-0.1)}, "RandomizationFactor"},
		{"factor above 1", []ExponentialBackOffOption{WithRandomizationFactor(1.5)}, "RandomizationFactor"},
		{"NaN factor", []ExponentialBackOffOption{WithRandomizationFactor(math.NaN())}, "RandomizationFactor"},
		{"unknown jitter", []ExponentialBackOffOption{withJitter(Jitter(42))}, "Jitter"},
		{"nil option", []ExponentialBackOffOption{nil}, "nil option"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewExponentialBackOff(c.opts...)
			err := b.Validate()
			if !errors.Is(err, ErrInvalidConfiguration) {
				t.Fatalf("Validate() = %v, want ErrInvalidConfiguration", err)
			}
			if !strings.Contains(err.Error(), c.field) {
				t.Errorf("Validate() = %q, does not name %s", err, c.field)
			}
			if got := b.NextBackOff(); got != Stop {
				t.Errorf("NextBackOff() of an invalid BackOff = %v, want Stop", got)
			}
		})
	}
}

// However many times NextBackOff is called and whatever the (valid) fields
// hold, the wait is never negative and never overflows.
func TestNextBackOffSaturates(t *testing.T) {
	huge := time.Duration(math.MaxInt64)
	for _, j := range []Jitter{RandomizationJitter, FullJitter, EqualJitter, DecorrelatedJitter} {
		for _, r := range []float64{0, 0.5, 1} {
			b := NewExponentialBackOff(WithInitialInterval(time.Second), WithMaxInterval(huge),
				WithMultiplier(3), WithRandomizationFactor(1), withJitter(j), withRandom(constRandom(r)))
			var prev time.Duration
			for i := range 200 {
				got := b.NextBackOff()
				if got < 0 {
					t.Fatalf("%v r=%v call %d: negative wait %v", j, r, i, got)
				}
				if r == 1 && j != RandomizationJitter && got < prev {
					t.Fatalf("%v r=1 call %d: %v after %v, want non-decreasing", j, i, got, prev)
				}
				prev = got
			}
			if r == 1 && prev != huge {
				t.Errorf("%v r=1: settled at %v, want the largest Duration", j, prev)
			}
		}
	}
}

// Waits of the jitter kinds other than RandomizationJitter never exceed
// MaxInterval; RandomizationJitter stays within MaxInterval × (1+factor).
func TestWaitsStayWithinTheirBounds(t *testing.T) {
	const max = 3 * time.Second
	for _, j := range []Jitter{RandomizationJitter, FullJitter, EqualJitter, DecorrelatedJitter} {
		b := NewExponentialBackOff(WithInitialInterval(100*time.Millisecond), WithMaxInterval(max), withJitter(j))
		limit := max
		if j == RandomizationJitter {
			limit = time.Duration(float64(max) * (1 + b.RandomizationFactor))
		}
		for i := range 1000 {
			if got := b.NextBackOff(); got < 0 || got > limit {
				t.Fatalf("%v call %d: %v outside [0, %v]", j, i, got, limit)
			}
		}
	}
}

// Sharing one random-source-free BackOff value between goroutines that each
// own a copy is race-free, and the default random source takes no lock.
func TestDefaultRandomIsSafeForConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := NewExponentialBackOff(withJitter(FullJitter))
			for range 1000 {
				if d := b.NextBackOff(); d < 0 {
					t.Error("negative wait")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func FuzzNextBackOff(f *testing.F) {
	f.Add(int64(time.Second), int64(time.Minute), 1.5, 0.5, 0, 0.3, 50)
	f.Add(int64(math.MaxInt64/2), int64(math.MaxInt64), 1e300, 1.0, 1, 1.0, 100)
	f.Add(int64(1), int64(math.MaxInt64), 2.0, 0.0, 3, 1.0, 200)
	f.Add(int64(-1), int64(5), math.NaN(), 2.0, 9, -3.0, 10)
	f.Fuzz(func(t *testing.T, initial, maxInterval int64, mult, factor float64, jitter int, r float64, calls int) {
		b := &ExponentialBackOff{
			InitialInterval:     time.Duration(initial),
			MaxInterval:         time.Duration(maxInterval),
			Multiplier:          mult,
			RandomizationFactor: factor,
			Jitter:              Jitter(jitter),
			Random:              constRandom(r),
		}
		valid := b.Validate() == nil
		for range min(max(calls, 1), 300) {
			got := b.NextBackOff()
			if !valid {
				if got != Stop {
					t.Fatalf("invalid BackOff %+v returned %v, want Stop", b, got)
				}
				continue
			}
			if got < 0 {
				t.Fatalf("BackOff %+v returned negative %v", b, got)
			}
			if b.Jitter != RandomizationJitter && got > b.MaxInterval {
				t.Fatalf("BackOff %+v returned %v above MaxInterval", b, got)
			}
		}
	})
}

// A struct literal works as cenkalti/backoff users write it: InitialInterval
// 0 means no wait, a zero Multiplier or MaxInterval takes its default, an
// InitialInterval above MaxInterval is capped, a zero RandomizationFactor
// means no randomization, and only the zero value means every default.
func TestExponentialStructLiteral(t *testing.T) {
	cases := []struct {
		name string
		b    *ExponentialBackOff
		want []time.Duration
	}{
		{"zero Multiplier is the default 1.5", &ExponentialBackOff{InitialInterval: time.Second, MaxInterval: time.Minute},
			[]time.Duration{time.Second, 1500 * time.Millisecond, 2250 * time.Millisecond}},
		{"zero MaxInterval is the default 60s", &ExponentialBackOff{InitialInterval: 40 * time.Second, Multiplier: 2},
			[]time.Duration{40 * time.Second, time.Minute, time.Minute}},
		{"zero InitialInterval means no wait, every time", &ExponentialBackOff{Multiplier: 2, MaxInterval: time.Minute},
			[]time.Duration{0, 0, 0}},
		{"InitialInterval above MaxInterval is capped", &ExponentialBackOff{InitialInterval: time.Minute, MaxInterval: time.Second, Multiplier: 2},
			[]time.Duration{time.Second, time.Second}},
		{"the zero value is the defaults, randomization included (a draw of 0.5 is the nominal interval)", &ExponentialBackOff{Random: constRandom(0.5)},
			[]time.Duration{500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond}},
		{"the zero value randomizes by ±50%", &ExponentialBackOff{Random: constRandom(0)},
			[]time.Duration{250 * time.Millisecond, 375 * time.Millisecond}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.b.Validate(); err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
			var got []time.Duration
			for range c.want {
				got = append(got, c.b.NextBackOff())
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("waits %v, want %v", got, c.want)
			}
		})
	}
	// Through the driver, on a mock clock: the literal is not rejected.
	clk := newSpecClock()
	op := specFailThenSucceed(2)
	var err error
	waits := specDrive(t, clk, nil, func() {
		_, err = Retry(op.Run, WithClock(clk), WithBackOff(&ExponentialBackOff{InitialInterval: time.Second, MaxInterval: time.Minute}))
	})
	if err != nil || !slices.Equal(waits, []time.Duration{time.Second, 1500 * time.Millisecond}) {
		t.Errorf("Retry with a struct literal: %v after waits %v", err, waits)
	}
}

// A nil *ExponentialBackOff or *ConstantBackOff, or a typed nil of the
// caller's own BackOff type, is reported, not dereferenced: by Validate, by
// the driver, the Loop and NewTicker.
func TestTypedNilBackOff(t *testing.T) {
	var exp *ExponentialBackOff
	var con *ConstantBackOff
	var own *specBackOff // a BackOff of the caller's, with no Validate
	for _, b := range []BackOff{exp, con, own} {
		name := fmt.Sprintf("%T", b)
		if v, ok := b.(interface{ Validate() error }); ok {
			if err := v.Validate(); !errors.Is(err, ErrInvalidConfiguration) || !strings.Contains(err.Error(), "nil") {
				t.Errorf("%s: Validate() = %v, want an ErrInvalidConfiguration naming nil", name, err)
			}
		}
		calls := 0
		_, err := Retry(func() (int, error) { calls++; return 0, nil }, WithBackOff(b))
		if re := specAsError(t, err); !errors.Is(re.Cause, ErrInvalidConfiguration) || calls != 0 {
			t.Errorf("%s: Retry gave %v after %d calls, want ErrInvalidConfiguration before any", name, err, calls)
		}
		if l := NewRetrier(WithBackOff(b)).Loop(); l.Wait(context.Background()) || !errors.Is(l.Err(), ErrInvalidConfiguration) {
			t.Errorf("%s: Loop.Err() = %v, want ErrInvalidConfiguration", name, l.Err())
		}
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), "nil") {
					t.Errorf("%s: NewTicker panicked with %v, want a message naming nil", name, v)
				}
			}()
			NewTicker(b).Stop()
		}()
	}
}

// Fidelity with cenkalti/backoff v5: fields set after NewExponentialBackOff
// take effect at the first NextBackOff, without a Reset, and a Reset starts
// over from the fields as they are then.
func TestFieldsSetAfterNewTakeEffect(t *testing.T) {
	b := NewExponentialBackOff()
	b.InitialInterval = 100 * time.Millisecond
	b.RandomizationFactor = 0
	if got := b.NextBackOff(); got != 100*time.Millisecond {
		t.Fatalf("first wait %v, want the InitialInterval set after New, 100ms", got)
	}
	b.InitialInterval = time.Second
	b.Reset()
	if got := b.NextBackOff(); got != time.Second {
		t.Errorf("after Reset: %v, want the InitialInterval as it is then, 1s", got)
	}
}

// InitialInterval 0 means no wait, as the option says and as v5 does: a
// test that sets it to retry at once does not sleep.
func TestZeroInitialIntervalMeansNoWait(t *testing.T) {
	for _, b := range []*ExponentialBackOff{
		NewExponentialBackOff(WithInitialInterval(0)),
		{InitialInterval: 0, Multiplier: 2, RandomizationFactor: 0.5},
	} {
		for i := range 5 {
			if got := b.NextBackOff(); got != 0 {
				t.Fatalf("%+v: wait %d is %v, want 0", b, i+1, got)
			}
		}
	}
	synctest.Test(t, func(t *testing.T) {
		op := specFailThenSucceed(3)
		start := time.Now()
		if _, err := Retry(op.Run, WithBackOff(NewExponentialBackOff(WithInitialInterval(0)))); err != nil || time.Since(start) != 0 {
			t.Errorf("%v after %v, want success with no wait", err, time.Since(start))
		}
	})
}

// A nil option is reported as ErrInvalidConfiguration where the BackOff is
// used, as every other nil option of the module is, instead of panicking.
func TestNilExponentialBackOffOption(t *testing.T) {
	b := NewExponentialBackOff(nil, WithMultiplier(2))
	if err := b.Validate(); !errors.Is(err, ErrInvalidConfiguration) || !strings.Contains(err.Error(), "nil option") {
		t.Fatalf("Validate() = %v, want an ErrInvalidConfiguration naming the nil option", err)
	}
	if b.Multiplier != 2 {
		t.Errorf("the options after the nil one were not applied: Multiplier %v", b.Multiplier)
	}
	calls := 0
	_, err := Retry(func() (int, error) { calls++; return 0, nil }, WithBackOff(b))
	if re := specAsError(t, err); !errors.Is(re.Cause, ErrInvalidConfiguration) || calls != 0 {
		t.Errorf("Retry: %v after %d calls, want ErrInvalidConfiguration before any", err, calls)
	}
}
