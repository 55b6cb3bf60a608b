package backoff_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/herdsafe/backoff"
)

func ExampleRetry() {
	// A stand-in for the remote service. In real code this is the endpoint
	// you are calling; here it is an in-process test server so the example
	// is self-contained and does not depend on the network. It is
	// unavailable for its first two requests.
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer server.Close()

	// The operation returns a value and an error; the value can be any type.
	operation := func() (string, error) {
		resp, err := http.Get(server.URL)
		if err != nil {
			return "", err // transient: Retry will try again
		}
		defer resp.Body.Close()

		// If we are being rate limited, return a RetryAfter to say how long
		// to wait. This also starts the BackOff's waits over.
		if resp.StatusCode == http.StatusTooManyRequests {
			seconds, err := strconv.ParseInt(resp.Header.Get("Retry-After"), 10, 64)
			if err == nil {
				return "", backoff.RetryAfter(time.Duration(seconds)*time.Second, fmt.Errorf("rate limited: %s", resp.Status))
			}
		}

		// Client errors won't fix themselves: return a Permanent error to
		// stop retrying.
		if resp.StatusCode >= 400 && resp.StatusCode < 500 {
			return "", backoff.Permanent(errors.New("bad request"))
		}
		// Server errors may: a plain error is retried.
		if resp.StatusCode >= 500 {
			return "", fmt.Errorf("server error: %s", resp.Status)
		}
		return "hello", nil
	}

	// No waits, so that the example runs at once: a real caller keeps the
	// default (jittered waits from 500 ms, growing 1.5× a time).
	result, err := backoff.Retry(operation,
		backoff.WithBackOff(&backoff.ZeroBackOff{}),
		backoff.WithNotify(func(err error, d time.Duration) { fmt.Println("retrying after:", err) }))
	if err != nil {
		fmt.Println("Error:", err)
		return
	}
	fmt.Println(result, "after", requests.Load(), "requests")
	// Output:
	// retrying after: server error: 503 Service Unavailable
	// retrying after: server error: 503 Service Unavailable
	// hello after 3 requests
}

// The error-handling switch: every failure is an *Error whose Cause says why
// retrying stopped and whose LastErr is the operation's own last error.
func ExampleRetry_outcomes() {
	var calls atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer server.Close()

	operation := func() (string, error) {
		resp, err := http.Get(server.URL)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("server error: %s", resp.Status)
		}
		return "ok", nil
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	result, err := backoff.RetryCtx(ctx, operation,
		backoff.WithBackOff(&backoff.ZeroBackOff{}), // no waits, to keep the example fast
		backoff.WithMaxElapsedTime(10*time.Second),
		backoff.WithMaxTries(3),
	)

	if err == nil {
		fmt.Println(result)
		return
	}
	// Switch on the Cause: errors.Is on err itself also looks into LastErr.
	var re *backoff.Error
	if errors.As(err, &re) {
		switch {
		case errors.Is(re.Cause, backoff.ErrPermanent):
			fmt.Println("permanent:", err)
		case errors.Is(re.Cause, context.Canceled), errors.Is(re.Cause, context.DeadlineExceeded):
			fmt.Println("context done:", err)
		case errors.Is(re.Cause, backoff.ErrMaxElapsedTime):
			fmt.Println("timed out:", err)
		case errors.Is(re.Cause, backoff.ErrExhausted):
			fmt.Println("retries exhausted:", err)
		}
		// The last operation error is always there, whatever the cause.
		fmt.Println("attempts:", re.Attempts, "server calls:", calls.Load())
	}
	// Output:
	// retries exhausted: server error: 503 Service Unavailable
	// attempts: 3 server calls: 3
}

func ExampleRetryCtx() {
	var calls atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready")
	}))
	defer server.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	body, err := backoff.RetryCtx(ctx, func() (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, server.URL, nil)
		if err != nil {
			return "", backoff.Permanent(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", errors.New(resp.Status)
		}
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	},
		backoff.WithBackOff(backoff.NewConstantBackOff(time.Millisecond)),
		backoff.WithNotify(func(err error, wait time.Duration) {
			fmt.Printf("%v; retrying in %v\n", err, wait)
		}),
	)
	fmt.Println(body, err)
	// Output:
	// 503 Service Unavailable; retrying in 1ms
	// 503 Service Unavailable; retrying in 1ms
	// ready <nil>
}

func ExampleRetryError() {
	pings := 0
	ping := func() error { // a stand-in for db.Ping
		pings++
		if pings < 3 {
			return errors.New("connection refused")
		}
		return nil
	}
	err := backoff.RetryError(ping,
		backoff.WithBackOff(&backoff.ZeroBackOff{}),
		backoff.WithMaxTries(5))
	fmt.Println(pings, err)
	// Output:
	// 3 <nil>
}

// A server that names its wait wins over the computed backoff.
func ExampleRetryAfter() {
	var calls atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0") // a real server names seconds to wait; 0 keeps the example fast
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, "done")
	}))
	defer server.Close()

	operation := func() (string, error) {
		resp, err := http.Get(server.URL)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			seconds, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			return "", backoff.RetryAfter(time.Duration(seconds)*time.Second, errors.New(resp.Status))
		}
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}

	result, err := backoff.Retry(operation, backoff.WithNotify(func(err error, wait time.Duration) {
		fmt.Printf("%v: waiting %v\n", err, wait)
	}))
	fmt.Println(result, err)
	// Output:
	// retry after 0s: 429 Too Many Requests: waiting 0s
	// done <nil>
}

// Do passes each attempt its context; derive a deadline from it to bound
// one attempt.
func ExampleDo() {
	attempts := 0
	n, err := backoff.Do(context.Background(), func(ctx context.Context) (int, error) {
		attempts++
		if attempts == 1 {
			return 0, errConnRefused
		}
		return 42, ctx.Err()
	}, backoff.WithBackOff(&backoff.ZeroBackOff{}))
	fmt.Println(n, err, attempts)
	// Output:
	// 42 <nil> 2
}

var errConnRefused = errors.New("connection refused")

func ExampleWithRetryable() {
	isTransient := func(err error) bool { return errors.Is(err, errConnRefused) }
	attempts := 0
	err := backoff.RetryError(func() error {
		attempts++
		if attempts < 3 {
			return errConnRefused
		}
		return errors.New("malformed request")
	}, backoff.WithRetryable(isTransient), backoff.WithBackOff(&backoff.ZeroBackOff{}))

	fmt.Println(attempts, err, errors.Is(err, backoff.ErrPermanent))
	// Output:
	// 3 malformed request true
}

func ExampleJitter() {
	b := &backoff.ExponentialBackOff{
		InitialInterval: 100 * time.Millisecond,
		MaxInterval:     time.Second,
		Multiplier:      2,
		Jitter:          backoff.FullJitter,
		Random:          func() float64 { return 1 }, // the top of each range, for a repeatable output
	}
	for range 5 {
		fmt.Print(b.NextBackOff(), " ")
	}
	fmt.Println()
	// Output:
	// 100ms 200ms 400ms 800ms 1s
}

// printer is an Instrumenter that prints what it sees.
type printer struct{}

func (printer) BeforeAttempt(ctx context.Context, s backoff.State) context.Context {
	fmt.Printf("attempt %d of %d\n", s.Number, s.MaxTries)
	return ctx
}

func (printer) AfterAttempt(ctx context.Context, s backoff.State) {
	switch {
	case s.Err == nil:
		fmt.Printf("attempt %d succeeded\n", s.Number)
	case s.GivingUp:
		fmt.Printf("giving up after attempt %d (%v): %v\n", s.Number, s.Cause, s.Err)
	default:
		fmt.Printf("attempt %d failed (%v), next in %v\n", s.Number, s.Err, s.NextDelay)
	}
}

func ExampleWithInstrumenter() {
	_, _ = backoff.Retry(func() (int, error) { return 0, errConnRefused },
		backoff.WithInstrumenter(printer{}),
		backoff.WithMaxTries(2),
		backoff.WithBackOff(backoff.NewConstantBackOff(0)))
	// Output:
	// attempt 1 of 2
	// attempt 1 failed (connection refused), next in 0s
	// attempt 2 of 2
	// giving up after attempt 2 (backoff: retries exhausted): connection refused
}

func ExampleError() {
	err := backoff.RetryError(func() error { return errConnRefused },
		backoff.WithMaxTries(3), backoff.WithBackOff(&backoff.ZeroBackOff{}))
	var re *backoff.Error
	if errors.As(err, &re) {
		fmt.Println(re.Attempts, re.Cause, "|", re.LastErr)
	}
	fmt.Println(err) // the operation's own message, undecorated
	// Output:
	// 3 backoff: retries exhausted | connection refused
	// connection refused
}

// A Retrier builds its options once, for a call site that retries many
// calls the same way; any number of goroutines may share it.
func ExampleRetrier() {
	r := backoff.NewRetrier(backoff.WithMaxTries(3), backoff.WithBackOff(&backoff.ZeroBackOff{}))
	attempts := 0
	var reply string
	err := r.DoErr(context.Background(), func(ctx context.Context) error {
		if attempts++; attempts < 2 {
			return errConnRefused
		}
		reply = "pong"
		return nil
	})
	fmt.Println(reply, err, attempts)
	// Output:
	// pong <nil> 2
}

// A guard, a rate limiter or the operation itself may refuse an attempt
// before it reaches the dependency: an error matching ErrRefused stops the
// driver at once with that error as the Cause, and LastErr stays the real
// fault of the last attempt that ran.
func ExampleErrRefused() {
	errBudget := fmt.Errorf("%w: retry budget spent", backoff.ErrRefused)
	attempts := 0
	err := backoff.RetryError(func() error {
		if attempts++; attempts > 2 {
			return errBudget
		}
		return errConnRefused
	}, backoff.WithBackOff(&backoff.ZeroBackOff{}))
	var re *backoff.Error
	errors.As(err, &re)
	fmt.Println(re.Attempts, re.Cause, "|", re.LastErr)
	// Output:
	// 2 backoff: refused: retry budget spent | connection refused
}

// A function run by Retrier.Attempts reads the facts of its attempt from
// the driver: its number, the error and the wait before it.
func ExampleRetrier_Attempts() {
	r := backoff.NewRetrier(backoff.WithMaxTries(3), backoff.WithBackOff(backoff.NewConstantBackOff(0)))
	err := r.Attempts(context.Background(), func(_ context.Context, a backoff.Attempt) error {
		fmt.Printf("attempt %d, after %v\n", a.Number, a.LastErr)
		if a.Number < 3 {
			return errors.New("busy")
		}
		return nil
	})
	fmt.Println(err)
	// Output:
	// attempt 1, after <nil>
	// attempt 2, after busy
	// attempt 3, after busy
	// <nil>
}

// MarksOf reads what an error says of itself to a driver, through
// wrapping: here a wait the server named, and the cause given with it.
func ExampleMarksOf() {
	err := fmt.Errorf("GET /orders: %w", backoff.RetryAfter(2*time.Second, errors.New("503 Service Unavailable")))
	m := backoff.MarksOf(err)
	fmt.Println(m.Named, m.Wait, m.Last, m.Permanent)
	// Output: true 2s 503 Service Unavailable false
}
