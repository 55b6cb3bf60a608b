package httpretry

import (
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
)

// The three HTTP-date formats http.ParseTime accepts.
const (
	rfc850  = "Monday, 02-Jan-06 15:04:05 GMT"
	asctime = "Mon Jan _2 15:04:05 2006"
)

var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	in7 := epoch.Add(7 * time.Second)
	cases := []struct {
		name, value string
		want        time.Duration
		ok          bool
	}{
		{"seconds", "120", 120 * time.Second, true},
		{"trailing_space", "120 ", 120 * time.Second, true},
		{"surrounding_whitespace", "\t 5\t", 5 * time.Second, true},
		{"zero", "0", 0, true},
		{"leading_zeros", "007", 7 * time.Second, true},
		{"largest_exact", "9223372036", 9223372036 * time.Second, true},
		{"saturates", "9223372037", math.MaxInt64, true},
		{"huge", "99999999999999999999999999", math.MaxInt64, true},
		{"imf_fixdate", in7.Format(http.TimeFormat), 7 * time.Second, true},
		{"rfc850", in7.Format(rfc850), 7 * time.Second, true},
		{"asctime", in7.Format(asctime), 7 * time.Second, true},
		{"far_future", epoch.AddDate(100, 0, 0).Format(http.TimeFormat), epoch.AddDate(100, 0, 0).Sub(epoch), true},
		{"now", epoch.Format(http.TimeFormat), 0, false},
		{"past", epoch.Add(-time.Hour).Format(http.TimeFormat), 0, false},
		{"empty", "", 0, false},
		{"blank", "  ", 0, false},
		{"negative", "-5", 0, false},
		{"plus", "+5", 0, false},
		{"fraction", "1.5", 0, false},
		{"exponent", "1e3", 0, false},
		{"inner_space", "1 2", 0, false},
		{"list", "5, 6", 0, false},
		{"garbage", "soon", 0, false},
		{"unit", "5s", 0, false},
		{"non_gmt_date", "Sat, 01 Mar 2025 12:00:07 PST", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := parseRetryAfter(c.value, epoch)
			if got != c.want || ok != c.ok {
				t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", c.value, got, ok, c.want, c.ok)
			}
		})
	}
}

// FuzzParseRetryAfter checks the parser's promises on any input: no panic,
// never a negative wait, delay-seconds read exactly, and a date read as the
// time from now.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "120 ", "0", "-1", "1.5", "99999999999999999999", "garbage",
		epoch.Add(time.Minute).Format(http.TimeFormat), epoch.Add(time.Minute).Format(rfc850),
		epoch.Add(time.Minute).Format(asctime)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := parseRetryAfter(v, epoch)
		if got < 0 || (!ok && got != 0) {
			t.Fatalf("parseRetryAfter(%q) = %v, %v", v, got, ok)
		}
		trimmed := strings.Trim(v, " \t")
		if trimmed != "" && isDigits(trimmed) {
			if !ok {
				t.Fatalf("parseRetryAfter(%q) rejected delay-seconds", v)
			}
			if n, err := strconv.ParseInt(trimmed, 10, 64); err == nil && n <= math.MaxInt64/int64(time.Second) {
				if got != time.Duration(n)*time.Second {
					t.Fatalf("parseRetryAfter(%q) = %v, want %ds", v, got, n)
				}
			} else if got != math.MaxInt64 {
				t.Fatalf("parseRetryAfter(%q) = %v, want saturation", v, got)
			}
			return
		}
		at, err := http.ParseTime(trimmed)
		switch {
		case err != nil && ok:
			t.Fatalf("parseRetryAfter(%q) accepted a value that is neither seconds nor a date", v)
		case err == nil && ok != at.After(epoch):
			t.Fatalf("parseRetryAfter(%q) = %v, %v for the date %v", v, got, ok, at)
		case err == nil && ok && got != at.Sub(epoch):
			t.Fatalf("parseRetryAfter(%q) = %v, want %v", v, got, at.Sub(epoch))
		}
	})
}

// retryAfterServer answers the first request with status and the given
// Retry-After and Date headers, then 200.
func retryAfterServer(t *testing.T, status int, retryAfter string, date time.Time) *server {
	return newServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		if n == 1 {
			if !date.IsZero() {
				w.Header().Set("Date", date.Format(http.TimeFormat))
			}
			w.Header().Set("Retry-After", retryAfter)
			w.WriteHeader(status)
		}
		w.Write([]byte(itoa(n)))
	})
}

// The transport really waits the server's delay: it does not retry until
// the clock has moved by it.
func TestRetryAfterIsWaited(t *testing.T) {
	srv := retryAfterServer(t, http.StatusServiceUnavailable, "7", time.Time{})
	clk := newSignalClock()
	rt := NewTransport(srv.base, WithClock(clk), constantWait(time.Hour), exactRetryAfter)
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	done := goRoundTrip(rt, req)
	var wait time.Duration
	select {
	case wait = <-clk.timers:
	case r := <-done:
		t.Fatalf("RoundTrip returned %v, %v without waiting", r.resp, r.err)
	}
	if wait != 7*time.Second {
		t.Fatalf("the transport waits %v, want the server's 7s", wait)
	}
	clk.Add(7*time.Second - time.Nanosecond)
	select {
	case r := <-done:
		t.Fatalf("RoundTrip returned %v, %v before the wait was over", r.resp, r.err)
	default:
	}
	clk.Add(time.Nanosecond)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if body := readBody(t, r.resp); body != "2" {
		t.Errorf("got the response to request %s, want 2", body)
	}
}

// Every form of Retry-After, on 429 and 503: obeyed when valid and within
// the maximum, ignored when invalid, refused when too long.
func TestRetryAfterForms(t *testing.T) {
	const computed = 42 * time.Millisecond
	date := epoch // the server's Date header
	in7 := date.Add(7 * time.Second)
	cases := []struct {
		name       string
		status     int
		value      string
		wait       time.Duration // the wait before the retry; 0 with handed
		handedBack bool          // the first response is returned at once
	}{
		{"seconds", 503, "2", 2 * time.Second, false},
		{"seconds_429", 429, "3", 3 * time.Second, false},
		{"zero", 503, "0", 0, false},
		{"trailing_space", 503, "120 ", 120 * time.Second, false},
		{"imf_fixdate", 503, in7.Format(http.TimeFormat), 7 * time.Second, false},
		{"rfc850", 503, in7.Format(rfc850), 7 * time.Second, false},
		{"asctime", 429, in7.Format(asctime), 7 * time.Second, false},
		{"huge", 503, "3600", 0, true},
		{"enormous", 503, "99999999999999999999", 0, true},
		{"far_future_date", 503, date.AddDate(1, 0, 0).Format(http.TimeFormat), 0, true},
		{"negative", 503, "-10", computed, false},
		{"past_date", 503, date.Add(-time.Minute).Format(http.TimeFormat), computed, false},
		{"garbage", 503, "later, please", computed, false},
		{"fraction", 429, "1.5", computed, false},
		{"not_on_502", 502, "2", computed, false},
		{"not_on_504", 504, "2", computed, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := retryAfterServer(t, c.status, c.value, date)
			rec := &recorder{}
			rt := NewTransport(srv.base, constantWait(computed), WithMaxRetryAfter(5*time.Minute), WithInstrumenter(rec), exactRetryAfter,
				WithClock(newSkipClock()))
			resp, err := get(t, rt, srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			if c.handedBack {
				if resp.StatusCode != c.status || srv.hits.Load() != 1 {
					t.Errorf("got %d after %d requests; want the %d at once", resp.StatusCode, srv.hits.Load(), c.status)
				}
				if s := rec.all(); len(s) != 1 || !s[0].GivingUp || !strings.Contains(s[0].Err.Error(), "maximum of 5m0s") {
					t.Errorf("instrumentation saw %+v; want one attempt, giving up because of the maximum", s)
				}
				return
			}
			if resp.StatusCode != 200 || srv.hits.Load() != 2 {
				t.Errorf("got %d after %d requests; want 200 after 2", resp.StatusCode, srv.hits.Load())
			}
			if d := rec.delays(); len(d) != 1 || d[0] != c.wait {
				t.Errorf("waits %v, want [%v]", d, c.wait)
			}
		})
	}
}

// Without a Date header, an HTTP-date is read against the Transport's
// clock.
func TestRetryAfterDateAgainstClock(t *testing.T) {
	clk := newSkipClock()
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		if n == 1 {
			w.Header()["Date"] = nil // net/http then sends none
			w.Header().Set("Retry-After", clk.Now().Add(9*time.Second).Format(http.TimeFormat))
			w.WriteHeader(503)
		}
	})
	rec := &recorder{}
	rt := NewTransport(srv.base, WithClock(clk), WithInstrumenter(rec), exactRetryAfter)
	resp, err := get(t, rt, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := rec.delays(); len(d) != 1 || d[0] != 9*time.Second {
		t.Errorf("waits %v, want [9s]", d)
	}
}

// The default maximum is 30 s: 30 is obeyed, 31 is not. (30 fits the
// default time budget, of 30 s, only as long as it is not spread.)
func TestDefaultMaxRetryAfter(t *testing.T) {
	for _, c := range []struct {
		value string
		hits  int64
	}{{"30", 2}, {"31", 1}} {
		srv := retryAfterServer(t, 503, c.value, time.Time{})
		resp, err := get(t, NewTransport(srv.base, WithClock(newSkipClock()), exactRetryAfter), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := srv.hits.Load(); got != c.hits {
			t.Errorf("Retry-After %s: %d requests, want %d", c.value, got, c.hits)
		}
	}
}

// A Retry-After replaces the computed wait for that retry and restarts the
// computed sequence: the next failure without Retry-After waits the
// initial interval again, not the step after the waits before it.
func TestRetryAfterRestartsTheSequence(t *testing.T) {
	statuses := []struct {
		code       int
		retryAfter string
	}{{503, ""}, {503, ""}, {429, "7"}, {503, ""}, {200, ""}}
	n := 0
	base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		s := statuses[n]
		n++
		h := http.Header{}
		if s.retryAfter != "" {
			h.Set("Retry-After", s.retryAfter)
		}
		return &http.Response{StatusCode: s.code, Header: h, Body: http.NoBody, Request: r}, nil
	})
	rec := &recorder{}
	rt := NewTransport(base, WithMaxTries(5), WithInstrumenter(rec), WithClock(newSkipClock()), exactRetryAfter,
		WithBackOff(backoff.NewExponentialBackOff(backoff.WithInitialInterval(time.Second),
			backoff.WithMultiplier(2), backoff.WithRandomizationFactor(0))))
	resp, err := get(t, rt, "http://127.0.0.1/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %v, %v; want the 200", resp, err)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 7 * time.Second, time.Second}
	if got := rec.delays(); !slices.Equal(got, want) {
		t.Errorf("waits %v, want %v", got, want)
	}
}

// Without WithClock the Transport waits on the time package, so inside a
// testing/synctest bubble its waits, a Retry-After's included, are virtual:
// they take exactly their time on the bubble's clock and none on the wall.
func TestWaitsAreVirtualInASynctestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			n++
			h := http.Header{}
			switch n {
			case 1:
				h.Set("Retry-After", "7")
				return &http.Response{StatusCode: 503, Header: h, Body: http.NoBody, Request: r}, nil
			case 2:
				return &http.Response{StatusCode: 502, Header: h, Body: http.NoBody, Request: r}, nil
			}
			return &http.Response{StatusCode: 200, Header: h, Body: http.NoBody, Request: r}, nil
		})
		rt := NewTransport(base, WithBackOff(backoff.NewConstantBackOff(10*time.Second)), exactRetryAfter)
		start := time.Now()
		resp, err := get(t, rt, "http://127.0.0.1/")
		if err != nil || resp.StatusCode != 200 || n != 3 {
			t.Fatalf("got %v, %v after %d attempts; want the 200 after 3", resp, err, n)
		}
		if d := time.Since(start); d != 17*time.Second {
			t.Errorf("the request took %v in the bubble, want the 7 s and 10 s waits", d)
		}
	})
}

// RetryAfterWait adds u × min(d, 1 s) to d: never less than asked, never
// more than a second or d more, saturating, with u clamped to [0, 1].
func TestRetryAfterWait(t *testing.T) {
	cases := []struct {
		name string
		d    time.Duration
		u    float64
		want time.Duration
	}{
		{"zero", 0, 0.5, 0},
		{"negative", -time.Second, 0.5, 0},
		{"no_extra", 2 * time.Second, 0, 2 * time.Second},
		{"half", 2 * time.Second, 0.5, 2500 * time.Millisecond},
		{"long", time.Minute, 0.25, time.Minute + 250*time.Millisecond},
		{"short", 200 * time.Millisecond, 0.5, 300 * time.Millisecond},
		{"top", 2 * time.Second, math.Nextafter(1, 0), 3*time.Second - 1},
		{"above_one", 2 * time.Second, 7, 3 * time.Second},
		{"below_zero", 2 * time.Second, -1, 2 * time.Second},
		{"nan", 2 * time.Second, math.NaN(), 2 * time.Second},
		{"saturates", math.MaxInt64 - time.Millisecond, 0.5, math.MaxInt64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RetryAfterWait(c.d, c.u); got != c.want {
				t.Errorf("RetryAfterWait(%v, %v) = %v, want %v", c.d, c.u, got, c.want)
			}
		})
	}
}

// FuzzRetryAfterWait checks the bound on any input: the wait is d or more,
// at most min(d, 1 s) more, and never negative.
func FuzzRetryAfterWait(f *testing.F) {
	f.Add(int64(time.Second), 0.5)
	f.Add(int64(math.MaxInt64), 0.999)
	f.Add(int64(-1), 2.0)
	f.Fuzz(func(t *testing.T, d int64, u float64) {
		got := RetryAfterWait(time.Duration(d), u)
		asked := max(time.Duration(d), 0)
		if got < asked || got-asked > min(asked, MaxRetryAfterJitter) {
			t.Fatalf("RetryAfterWait(%v, %v) = %v", time.Duration(d), u, got)
		}
	})
}

// A Transport spreads what Retry-After asks for with its random source:
// every client told "Retry-After: 2" waits 2 s and up to a second more, a
// different wait each.
func TestRetryAfterIsSpread(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	rec := &recorder{}
	rt := NewTransport(srv.base, WithClock(newSkipClock()), WithMaxTries(2), WithInstrumenter(rec),
		WithRandom(func() float64 { return 0.25 }))
	resp, err := get(t, rt, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := rec.delays(); len(d) != 1 || d[0] != 2250*time.Millisecond {
		t.Errorf("waits %v, want 2.25s", d)
	}
	var se *StatusError
	if s := rec.all(); !errors.As(s[0].Err, &se) || se.RetryAfter != 2*time.Second {
		t.Errorf("the StatusError records %v; want what the server asked, 2s", se)
	}

	// With the default source, a fleet's waits differ, within the bound.
	seen := map[time.Duration]bool{}
	for range 20 {
		clk := newSkipClock()
		resp, err := get(t, NewTransport(srv.base, WithClock(clk), WithMaxTries(2)), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		w := clk.slept()
		if len(w) != 1 || w[0] < 2*time.Second || w[0] > 3*time.Second {
			t.Fatalf("waits %v; want one in [2s, 3s]", w)
		}
		seen[w[0]] = true
	}
	if len(seen) < 15 {
		t.Errorf("20 clients waited only %d different times: the spread is not random", len(seen))
	}
}

// A Retry-After that fits what is left of the time budget only unspread
// does not fit once spread: the response is handed back at once, as for
// one longer than the budget. With the largest maximum, the largest
// Retry-After saturates rather than overflows.
func TestSpreadRetryAfterAgainstTheBudget(t *testing.T) {
	for _, c := range []struct {
		name, value string
		max         time.Duration
	}{
		{"just_fits", "30", DefaultMaxRetryAfter},
		{"largest", "99999999999999999999", math.MaxInt64},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := retryAfterServer(t, 503, c.value, time.Time{})
			rt := NewTransport(srv.base, WithClock(newSkipClock()), WithMaxRetryAfter(c.max),
				WithRandom(func() float64 { return 0.99 }))
			resp, err := get(t, rt, srv.URL)
			if err != nil || resp.StatusCode != 503 || srv.hits.Load() != 1 {
				t.Fatalf("got %v, %v after %d requests; want the 503 at once", resp, err, srv.hits.Load())
			}
			if body := readBody(t, resp); body != "1" {
				t.Errorf("body %q, want the response itself, unread", body)
			}
		})
	}
}
