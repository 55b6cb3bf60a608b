package prombackoff

import (
	"regexp"

	"github.com/herdsafe/backoff/internal/setting"
)

// Option configures New.
type Option func(*config)

type config struct {
	namespace   string
	maxRetryNum int
	errorType   func(error) string
	err         error // the first invalid option
}

// fail records the first invalid option.
func (c *config) fail(format string, args ...any) { settings.Fail(&c.err, format, args...) }

// settings makes the errors of the settings New and the Observe methods
// cannot use.
const settings = setting.Package("prombackoff")

// validNamespace is what a metric name may start with.
var validNamespace = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

// WithNamespace names the metrics ns_retries_total, ns_breaker_state...
// instead of backoff_retries_total, backoff_breaker_state... An empty ns
// drops the prefix: retries_total. A namespace that cannot start a metric
// name ([a-zA-Z_:][a-zA-Z0-9_:]*) is reported by New as
// ErrInvalidConfiguration.
func WithNamespace(ns string) Option {
	return func(c *config) {
		if ns != "" && !validNamespace.MatchString(ns) {
			c.fail("WithNamespace was given %q, which cannot start a metric name", ns)
			return
		}
		c.namespace = ns
	}
}

// WithMaxRetryNum caps the retry_num label of retries_total at n: the
// retries 1 to n−1 have a value each, and the later ones share "n+", so
// that a call that retries for ever makes n series, not one a retry. An n
// below 1 or above [MaxRetryNum] is reported by New as
// ErrInvalidConfiguration.
func WithMaxRetryNum(n int) Option {
	return func(c *config) {
		setting.Between(settings, &c.err, &c.maxRetryNum, n, 1, MaxRetryNum, "WithMaxRetryNum")
	}
}

// WithErrorType names the type of an attempt's error, for the error_type
// label, with fn instead of the package's rule (see the package
// documentation): fn receives State.Err as the operation returned it, and
// a result of "" falls back to the rule. fn must return values of a small,
// bounded set, since each is a series: never an error's message. A
// result that is not valid UTF-8 has each run of invalid bytes replaced by
// U+FFFD, as a label value must be valid UTF-8.
//
// fn is called on the goroutine of the retry call, holding no lock; if it
// panics, the panic goes on to the caller of the retry, as a panic in any
// Instrumenter does. A nil fn is reported by New as ErrInvalidConfiguration.
func WithErrorType(fn func(error) string) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.errorType, fn, "WithErrorType", "function")
	}
}
