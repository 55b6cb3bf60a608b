package backoff

import "errors"

// WithRetryable sets a classifier: an error it rejects (returns false for)
// stops the driver at once, with Cause ErrPermanent and LastErr the error.
// With no classifier every error is retried. Permanent errors are stopped
// before the classifier is asked, and a cancelled context is reported as
// such whatever the classifier says.
//
// Several classifiers (from WithRetryable, RetryIf and RetryIfType) add up:
// an error is retried if any of them accepts it. A classifier runs on the
// goroutine that called the driver. A nil fn is reported as
// ErrInvalidConfiguration.
func WithRetryable(fn func(error) bool) RetryOption {
	return func(o *retryOptions) {
		if fn == nil {
			o.fail("WithRetryable was given a nil classifier")
			return
		}
		o.classifiers = append(o.classifiers, fn)
	}
}

// RetryIf is a classifier that retries an error matching any of targets
// with errors.Is, and stops on any other. RetryIf with no target, or a nil
// target, is reported as ErrInvalidConfiguration.
func RetryIf(targets ...error) RetryOption {
	return func(o *retryOptions) {
		if len(targets) == 0 {
			o.fail("RetryIf was given no target error")
			return
		}
		for _, t := range targets {
			if t == nil {
				o.fail("RetryIf was given a nil target error")
				return
			}
		}
		o.retryIf = append(o.retryIf, targets...)
	}
}

// RetryIfType is a classifier that retries an error whose chain holds an E,
// as errors.As finds it, and stops on any other. For example,
// RetryIfType[*net.OpError]() retries network failures.
func RetryIfType[E error]() RetryOption {
	return WithRetryable(hasType[E])
}

func hasType[E error](err error) bool {
	var target E
	return errors.As(err, &target)
}

// retryable reports whether the classifiers accept err. With none, every
// error is retryable.
func (o *retryOptions) retryable(err error) bool {
	if len(o.classifiers) == 0 && len(o.retryIf) == 0 {
		return true
	}
	for _, target := range o.retryIf {
		if errors.Is(err, target) {
			return true
		}
	}
	for _, fn := range o.classifiers {
		if fn(err) {
			return true
		}
	}
	return false
}
