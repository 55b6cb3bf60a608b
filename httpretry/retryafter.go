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
