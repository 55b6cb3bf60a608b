package httpshed

import (
	"net/http"
	"time"

	"github.com/herdsafe/backoff/internal/setting"
)

// Option configures a Shedder. An option given a value it cannot use
// makes the Shedder invalid (see New).
type Option func(*Shedder)

// WithRetryAfter sets the base of the wait the Shedder tells a refused
// request: the shortest wait it tells, before the guard's state lengthens
// it and the spread is added (see Shedder.RetryAfter). A guard that names
// a shorter wait of its own (a breaker about to half-open) is told the
// base. The default is DefaultRetryAfter, one second, the header's
// resolution. A d below one second is invalid: Retry-After
// counts whole seconds, and 0 would tell every client to come back at once.
func WithRetryAfter(d time.Duration) Option {
	return func(s *Shedder) {
		if d < time.Second {
			settings.Fail(&s.err, "WithRetryAfter(%v): Retry-After counts whole seconds; the base must be one at least", d)
		}
		s.base = d
	}
}

// WithMaxRetryAfter sets the longest wait the Shedder tells, the spread
// included. The default is DefaultMaxRetryAfter. A d shorter than the base
// (WithRetryAfter) is invalid. A client of package httpretry does not wait
// more than its own maximum (httpretry.WithMaxRetryAfter, 30 s by
// default): told more, it hands the 503 to its caller at once.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(s *Shedder) { s.max = d }
}

// WithRandom replaces the random source of the spread: fn returns a draw
// in [0, 1) each time it is called, from any goroutine at once. The
// default is math/rand/v2's Float64. A test passes a function that returns
// a fixed value: 0 adds no spread. A draw outside [0, 1), or NaN, is taken
// as the nearest bound of that range. A nil fn is invalid.
func WithRandom(fn func() float64) Option {
	return func(s *Shedder) {
		setting.NotNil(settings, &s.err, &s.random, fn, "WithRandom", "function")
	}
}

// WithStatus sets the status a refused request is answered with: 503
// Service Unavailable (the default), or 429 Too Many Requests, for a guard
// that limits each client rather than the server. These are the statuses
// whose Retry-After clients obey (RFC 9110, section 10.2.3; RFC 6585); any
// other code is invalid, and so is a number that is not an HTTP status.
func WithStatus(code int) Option {
	return func(s *Shedder) {
		switch {
		case code == http.StatusServiceUnavailable, code == http.StatusTooManyRequests:
			s.status = code
		case code < 100 || code > 599:
			settings.Fail(&s.err, "WithStatus(%d): not an HTTP status", code)
		default:
			settings.Fail(&s.err, "WithStatus(%d): a Shedder answers 503 or 429, the statuses whose Retry-After clients obey", code)
		}
	}
}
