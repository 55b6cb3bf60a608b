package prombackoff_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	"github.com/herdsafe/backoff/policy"
	prombackoff "github.com/herdsafe/backoff/prometheus"
)

func TestScriptedRunCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, reg := newInstrumenter(t)
		start := time.Now()
		if _, err := backoff.Do(context.Background(), failing(2, errUnavailable), telemetrytest.Every1s(in)...); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("the run took %v of virtual time, want 2s", d)
		}
		_, err := backoff.Do(context.Background(), failing(5, errTransient), telemetrytest.Every1s(in, backoff.WithMaxTries(2))...)
		if !errors.Is(err, backoff.ErrExhausted) {
			t.Fatalf("Do = %v, want ErrExhausted", err)
		}
		// Once a name is seen, each outcome has a series, if only at 0.
		expect(t, reg, attemptsHead+`backoff_attempts_total{name="fetch",outcome="failure"} 4
backoff_attempts_total{name="fetch",outcome="refused"} 0
backoff_attempts_total{name="fetch",outcome="success"} 1
`, "backoff_attempts_total")
		// Counted on each retry, not on the first attempt, not on the
		// give-up.
		expect(t, reg, retriesHead+`backoff_retries_total{error_type="`+typeUnavailable+`",name="fetch",retry_num="1"} 1
backoff_retries_total{error_type="`+typeUnavailable+`",name="fetch",retry_num="2"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="1"} 1
`, "backoff_retries_total")
		expect(t, reg, giveUpsHead+`backoff_give_ups_total{cause="exhausted",name="fetch"} 1
`, "backoff_give_ups_total")
		expect(t, reg, `# HELP backoff_wait_seconds Waits scheduled before a retry, in seconds.
# TYPE backoff_wait_seconds histogram
backoff_wait_seconds_bucket{name="fetch",le="0.005"} 0
backoff_wait_seconds_bucket{name="fetch",le="0.01"} 0
backoff_wait_seconds_bucket{name="fetch",le="0.025"} 0
backoff_wait_seconds_bucket{name="fetch",le="0.05"} 0
backoff_wait_seconds_bucket{name="fetch",le="0.1"} 0
backoff_wait_seconds_bucket{name="fetch",le="0.25"} 0
backoff_wait_seconds_bucket{name="fetch",le="0.5"} 0
backoff_wait_seconds_bucket{name="fetch",le="1"} 3
backoff_wait_seconds_bucket{name="fetch",le="2.5"} 3
backoff_wait_seconds_bucket{name="fetch",le="5"} 3
backoff_wait_seconds_bucket{name="fetch",le="10"} 3
backoff_wait_seconds_bucket{name="fetch",le="30"} 3
backoff_wait_seconds_bucket{name="fetch",le="60"} 3
backoff_wait_seconds_bucket{name="fetch",le="120"} 3
backoff_wait_seconds_bucket{name="fetch",le="300"} 3
backoff_wait_seconds_bucket{name="fetch",le="+Inf"} 3
backoff_wait_seconds_sum{name="fetch"} 3
backoff_wait_seconds_count{name="fetch"} 3
`, "backoff_wait_seconds")
	})
}

func TestRetryNumIsCapped(t *testing.T) {
	cases := []struct {
		name string
		opts []prombackoff.Option
		want string
	}{
		{"default", nil, `backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="1"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="2"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="3"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="4"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="5"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="6"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="7"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="8"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="9"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="10+"} 3
`},
		{"three", []prombackoff.Option{prombackoff.WithMaxRetryNum(3)}, `backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="1"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="2"} 1
backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="3+"} 10
`},
		{"one", []prombackoff.Option{prombackoff.WithMaxRetryNum(1)}, `backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="1+"} 12
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, reg := newInstrumenter(t, c.opts...)
			// 13 attempts: 12 retries.
			_, err := backoff.Do(context.Background(), failing(20, errTransient), telemetrytest.Every1s(in, telemetrytest.NoWait, backoff.WithMaxTries(13))...)
			if !errors.Is(err, backoff.ErrExhausted) {
				t.Fatalf("Do = %v, want ErrExhausted", err)
			}
			expect(t, reg, retriesHead+c.want, "backoff_retries_total")
		})
	}
}

func TestGiveUpDuringTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, reg := newInstrumenter(t)
		telemetrytest.CancelDuringTheWait(t, context.Background(), func(ctx context.Context) error {
			_, err := backoff.Do(ctx, failing(5, errTransient), telemetrytest.Every1s(in)...)
			return err
		})
		expect(t, reg, attemptsHead+`backoff_attempts_total{name="fetch",outcome="failure"} 1
backoff_attempts_total{name="fetch",outcome="refused"} 0
backoff_attempts_total{name="fetch",outcome="success"} 0
`, "backoff_attempts_total")
		expect(t, reg, retriesHead+`backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="1"} 1
`, "backoff_retries_total")
		expect(t, reg, giveUpsHead+`backoff_give_ups_total{cause="canceled",name="fetch"} 1
`, "backoff_give_ups_total")
	})
}

// Do does not start an attempt once its context is done: the attempt is
// counted as refused, and it is the give-up.
func TestAttemptRefusedByTheContext(t *testing.T) {
	in, reg := newInstrumenter(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := backoff.Do(ctx, failing(0, nil), backoff.WithInstrumenter(in)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want context.Canceled", err)
	}
	expect(t, reg, attemptsHead+`backoff_attempts_total{name="unnamed",outcome="failure"} 0
backoff_attempts_total{name="unnamed",outcome="refused"} 1
backoff_attempts_total{name="unnamed",outcome="success"} 0
`+giveUpsHead+`backoff_give_ups_total{cause="canceled",name="unnamed"} 1
`, "backoff_give_ups_total", "backoff_attempts_total", "backoff_retries_total")
}

// The Instrumenter itself, and its Named(""), count an unnamed operation.
func TestUnnamedOperation(t *testing.T) {
	in, reg := newInstrumenter(t)
	for _, i := range []backoff.Instrumenter{in, in.Named("")} {
		if _, err := backoff.Do(context.Background(), failing(1, errTransient), telemetrytest.NoWait, backoff.WithInstrumenter(i)); err != nil {
			t.Fatal(err)
		}
	}
	expect(t, reg, attemptsHead+`backoff_attempts_total{name="unnamed",outcome="failure"} 2
backoff_attempts_total{name="unnamed",outcome="refused"} 0
backoff_attempts_total{name="unnamed",outcome="success"} 2
`+retriesHead+`backoff_retries_total{error_type="*errors.errorString",name="unnamed",retry_num="1"} 2
`, "backoff_attempts_total", "backoff_retries_total")
}

// Named makes the Instrumenter of a name once: a later call returns it,
// allocating nothing, from any goroutine; and it counts an attempt
// without allocating.
func TestNamedIsMadeOncePerName(t *testing.T) {
	in, reg := newInstrumenter(t)
	fetch := in.Named("fetch")
	if in.Named("fetch") != fetch || in.Named("store") == fetch || in.Named("") == fetch {
		t.Error("Named did not return one Instrumenter per name")
	}
	if in.Named("") != in.Named(prombackoff.Unnamed) {
		t.Error("Named(\"\") is not the Instrumenter of the unnamed operation")
	}
	if n := testing.AllocsPerRun(100, func() { _ = in.Named("fetch") }); n != 0 {
		t.Errorf("Named of a name seen before allocates %v times, want 0", n)
	}
	success := backoff.State{Attempt: backoff.Attempt{Number: 1}}
	n := testing.AllocsPerRun(100, func() {
		i := in.Named("fetch")
		i.AfterAttempt(i.BeforeAttempt(context.Background(), success), success)
	})
	if n != 0 {
		t.Errorf("a successful attempt allocates %v times, want 0", n)
	}
	telemetrytest.NamedOnce(t, in, "concurrent")
	expect(t, reg, attemptsHead+`backoff_attempts_total{name="concurrent",outcome="failure"} 0
backoff_attempts_total{name="concurrent",outcome="refused"} 0
backoff_attempts_total{name="concurrent",outcome="success"} 0
backoff_attempts_total{name="fetch",outcome="failure"} 0
backoff_attempts_total{name="fetch",outcome="refused"} 0
backoff_attempts_total{name="fetch",outcome="success"} 101
backoff_attempts_total{name="store",outcome="failure"} 0
backoff_attempts_total{name="store",outcome="refused"} 0
backoff_attempts_total{name="store",outcome="success"} 0
backoff_attempts_total{name="unnamed",outcome="failure"} 0
backoff_attempts_total{name="unnamed",outcome="refused"} 0
backoff_attempts_total{name="unnamed",outcome="success"} 0
`, "backoff_attempts_total")
}

func TestRefusedAttempt(t *testing.T) {
	in, reg := newInstrumenter(t)
	p := policy.New(
		policy.Retry(backoff.WithMaxTries(3), telemetrytest.NoWait, backoff.WithInstrumenter(in.Named("pay"))),
		policy.Guard(breaker.New(breaker.WithConsecutiveFailures(1))),
	)
	if _, err := policy.Do(context.Background(), p, failing(5, errTransient)); !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("Do = %v, want ErrCircuitOpen", err)
	}
	expect(t, reg, attemptsHead+`backoff_attempts_total{name="pay",outcome="failure"} 1
backoff_attempts_total{name="pay",outcome="refused"} 1
backoff_attempts_total{name="pay",outcome="success"} 0
`, "backoff_attempts_total")
	expect(t, reg, giveUpsHead+`backoff_give_ups_total{cause="circuit_open",name="pay"} 1
`, "backoff_give_ups_total")
}

func TestPermanentErrorIsNamedByWhatItMarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, reg := newInstrumenter(t)
		calls := 0
		op := func(context.Context) (int, error) {
			if calls++; calls == 1 {
				return 0, backoff.RetryAfter(time.Millisecond, errUnavailable)
			}
			return 0, backoff.Permanent(errUnavailable)
		}
		if _, err := backoff.Do(context.Background(), op, telemetrytest.Every1s(in)...); !errors.Is(err, backoff.ErrPermanent) {
			t.Fatalf("Do = %v, want ErrPermanent", err)
		}
		expect(t, reg, retriesHead+`backoff_retries_total{error_type="`+typeUnavailable+`",name="fetch",retry_num="1"} 1
`, "backoff_retries_total")
		expect(t, reg, giveUpsHead+`backoff_give_ups_total{cause="permanent",name="fetch"} 1
`, "backoff_give_ups_total")
	})
}

// Two Instrumenters on one retry, and one on two nested retry stages: each
// attempt is counted once by each.
func TestSeveralInstrumentersAndNestedRetries(t *testing.T) {
	in, reg := newInstrumenter(t)
	in2, reg2 := newInstrumenter(t)
	p := policy.New(
		policy.Retry(backoff.WithMaxTries(2), telemetrytest.NoWait, backoff.WithInstrumenter(in.Named("outer")), backoff.WithInstrumenter(in2.Named("outer"))),
		policy.Retry(backoff.WithMaxTries(2), telemetrytest.NoWait, backoff.WithInstrumenter(in.Named("inner"))),
	)
	if _, err := policy.Do(context.Background(), p, failing(2, errTransient)); err != nil {
		t.Fatal(err)
	}
	outer := `backoff_attempts_total{name="outer",outcome="failure"} 1
backoff_attempts_total{name="outer",outcome="refused"} 0
backoff_attempts_total{name="outer",outcome="success"} 1
`
	expect(t, reg2, attemptsHead+outer, "backoff_attempts_total")
	expect(t, reg, attemptsHead+`backoff_attempts_total{name="inner",outcome="failure"} 2
backoff_attempts_total{name="inner",outcome="refused"} 0
backoff_attempts_total{name="inner",outcome="success"} 1
`+outer, "backoff_attempts_total")
}

func TestNotMadeByNew(t *testing.T) {
	for _, in := range []*prombackoff.Instrumenter{nil, {}} {
		telemetrytest.NotMadeByNew(t, in)
	}
}

// A retry inside an attempt of another, both with the Instrumenter, whose
// context is done before its first attempt: its refused attempt and its
// give-up are counted, and the outer attempt once, as a failure.
func TestNestedRetryGivesUpBeforeItsFirstAttempt(t *testing.T) {
	in, reg := newInstrumenter(t)
	op := func(ctx context.Context) (int, error) {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return backoff.Do(ctx, failing(0, nil), backoff.WithInstrumenter(in.Named("inner")))
	}
	_, err := backoff.Do(context.Background(), op, backoff.WithMaxTries(1), backoff.WithInstrumenter(in.Named("outer")))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want the inner context.Canceled", err)
	}
	expect(t, reg, attemptsHead+`backoff_attempts_total{name="inner",outcome="failure"} 0
backoff_attempts_total{name="inner",outcome="refused"} 1
backoff_attempts_total{name="inner",outcome="success"} 0
backoff_attempts_total{name="outer",outcome="failure"} 1
backoff_attempts_total{name="outer",outcome="refused"} 0
backoff_attempts_total{name="outer",outcome="success"} 0
`+giveUpsHead+`backoff_give_ups_total{cause="canceled",name="inner"} 1
backoff_give_ups_total{cause="exhausted",name="outer"} 1
`, "backoff_attempts_total", "backoff_give_ups_total")
}
