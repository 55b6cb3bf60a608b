package httpretry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/httpretry"
)

func ExampleNewTransport() {
	// A server that is unavailable twice, then answers.
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "hello after %d calls", calls)
	}))
	defer srv.Close()

	client := &http.Client{Transport: httpretry.NewTransport(http.DefaultTransport,
		// The default waits are short; an example needs none at all.
		httpretry.WithBackOff(&backoff.ZeroBackOff{}),
	)}
	defer client.CloseIdleConnections()

	resp, err := client.Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))
	// Output: 200 hello after 3 calls
}

// statusPrinter is an Instrumenter that prints each attempt's number,
// status and the wait before the next.
type statusPrinter struct{}

func (statusPrinter) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	return ctx
}

func (statusPrinter) AfterAttempt(ctx context.Context, s backoff.State) {
	status := "no response"
	if code, ok := httpretry.AttemptStatus(ctx); ok {
		status = fmt.Sprint(code)
	}
	switch {
	case s.GivingUp:
		fmt.Printf("attempt %d: %s, giving up\n", s.Number, status)
	case s.Err != nil:
		fmt.Printf("attempt %d: %s, retrying in %v\n", s.Number, status, s.NextDelay)
	default:
		fmt.Printf("attempt %d: %s, done\n", s.Number, status)
	}
}

func ExampleAttemptStatus() {
	// A server that is unavailable once, then does not know the page.
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()

	client := &http.Client{Transport: httpretry.NewTransport(http.DefaultTransport,
		httpretry.WithBackOff(backoff.NewConstantBackOff(0)),
		httpretry.WithInstrumenter(statusPrinter{}),
	)}
	defer client.CloseIdleConnections()

	resp, err := client.Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	// Output:
	// attempt 1: 503, retrying in 0s
	// attempt 2: 404, done
}

func ExampleWithAttemptGuards() {
	// A server that is down.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()

	// A breaker that sees each attempt of every request of the client, and
	// opens after 3 failures in a row.
	cb := breaker.New(breaker.WithConsecutiveFailures(3), breaker.WithOpenDuration(time.Minute))
	client := &http.Client{Transport: httpretry.NewTransport(http.DefaultTransport,
		httpretry.WithBackOff(&backoff.ZeroBackOff{}),
		httpretry.WithAttemptGuards(cb),
	)}
	defer client.CloseIdleConnections()

	resp, err := client.Get(srv.URL)
	if err == nil {
		resp.Body.Close()
		fmt.Println("first request:", resp.Status) // three attempts, the last response
	}
	_, err = client.Get(srv.URL)
	var e *backoff.Error
	if errors.As(err, &e) && errors.Is(e.Cause, breaker.ErrCircuitOpen) {
		fmt.Println("second request: refused, after", e.Attempts, "attempts")
	}
	// Output:
	// first request: 503 Service Unavailable
	// second request: refused, after 0 attempts
}

func ExampleWithRequestGuards() {
	// A server that answers the first request only when told to.
	arrived, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
	}))
	defer srv.Close()

	// At most one request of the client in flight, its retries included.
	client := &http.Client{Transport: httpretry.NewTransport(http.DefaultTransport,
		httpretry.WithRequestGuards(bulkhead.New(1)),
	)}
	defer client.CloseIdleConnections()

	first := make(chan string)
	go func() {
		resp, err := client.Get(srv.URL)
		if err != nil {
			first <- err.Error()
			return
		}
		resp.Body.Close()
		first <- resp.Status
	}()
	<-arrived
	_, err := client.Get(srv.URL)
	fmt.Println("second request refused:", errors.Is(err, bulkhead.ErrBulkheadFull))
	close(release)
	fmt.Println("first request:", <-first)
	// Output:
	// second request refused: true
	// first request: 200 OK
}

func ExampleRetryAfterWait() {
	// A server says "Retry-After: 2"; a Transport waits 2 s and up to a
	// second more, drawn from its random source (here the draws 0, 0.5 and
	// just below 1).
	for _, u := range []float64{0, 0.5, 0.999} {
		fmt.Println(httpretry.RetryAfterWait(2*time.Second, u))
	}
	// Told less than a second, it waits up to twice that.
	fmt.Println(httpretry.RetryAfterWait(200*time.Millisecond, 0.5))
	// Output:
	// 2s
	// 2.5s
	// 2.999s
	// 300ms
}

// A breaker per host: the bad backend's opens, the good one's stays
// closed.
func ExamplePerHost() {
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer bad.Close()
	good := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer good.Close()

	hosts := httpretry.PerHost(func(string) guard.Guard { return breaker.New(breaker.WithConsecutiveFailures(3)) })
	client := &http.Client{Transport: httpretry.NewTransport(nil,
		httpretry.WithBackOff(&backoff.ZeroBackOff{}),
		httpretry.WithAttemptGuards(hosts),
	)}
	defer client.CloseIdleConnections()

	for _, url := range []string{bad.URL, bad.URL, good.URL} {
		resp, err := client.Get(url)
		if err != nil {
			fmt.Println(errors.Is(err, breaker.ErrCircuitOpen))
			continue
		}
		resp.Body.Close()
		fmt.Println(resp.Status)
	}
	// Output:
	// 503 Service Unavailable
	// true
	// 200 OK
}
