package httpretry

import (
	"math"
	"net/http"
	"strings"
	"time"
)

// retryAfter returns the wait resp's Retry-After header asks for, and
// whether it asks for one that can be obeyed. An HTTP-date is read against
// the response's Date header when it has a valid one, so that a difference
// between the client's and the server's clocks does not matter, and against
// the Transport's clock otherwise.
func (t *Transport) retryAfter(resp *http.Response) (time.Duration, bool) {
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	now, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		now = t.clock.Now()
	}
	return parseRetryAfter(v, now)
}

// MaxRetryAfterJitter bounds the random extra a Transport adds to the wait
// a Retry-After asks for (see RetryAfterWait).
const MaxRetryAfterJitter = time.Second

// RetryAfterWait returns how long a Transport waits before retrying a
// response whose Retry-After asked for d, given u, a draw in [0, 1) of its
// random source (see WithRandom): d plus u × min(d, MaxRetryAfterJitter),
// saturating at the largest Duration. A u outside [0, 1), or NaN, is taken
// as the nearest bound of that range.
//
// The wait is never less than the server asked, and never more than a
// second longer, or twice as long. Every client told "Retry-After: 2" in
// the same instant would otherwise retry in the same instant again: the
// extra spreads them over the second after the one the server named. A
// second is the header's resolution (delay-seconds and HTTP-dates both
// count whole seconds), so a server that meant later than that would have
// said a larger value: a wait within it keeps what the server asked, and a
// server that spreads its own values in whole seconds (as package httpshed
// does) has its clients spread evenly between them. A Retry-After of 0 is
// obeyed at once.
func RetryAfterWait(d time.Duration, u float64) time.Duration {
	if d <= 0 {
		return max(d, 0)
	}
	switch {
	case !(u >= 0): // NaN included
		u = 0
	case u > 1:
		u = 1
	}
	extra := time.Duration(u * float64(min(d, MaxRetryAfterJitter)))
	if d > math.MaxInt64-extra {
		return math.MaxInt64
	}
	return d + extra
}

// parseRetryAfter parses a Retry-After value (RFC 9110, section 10.2.3):
// either delay-seconds, a run of decimal digits, or an HTTP-date in any of
// the three formats http.ParseTime accepts, read relative to now. Optional
// whitespace around the value is ignored. It reports false for a value
// that is empty, malformed, negative, or a date not after now; a number of
// seconds too large for a time.Duration saturates at the largest one.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.Trim(v, " \t")
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		const maxSeconds = math.MaxInt64 / int64(time.Second)
		var secs int64
		for i := 0; i < len(v); i++ {
			secs = secs*10 + int64(v[i]-'0')
			if secs > maxSeconds {
				return math.MaxInt64, true
			}
		}
		return time.Duration(secs) * time.Second, true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if d := at.Sub(now); d > 0 {
		return d, true
	}
	return 0, false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
