package httpretry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/herdsafe/backoff"
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
		fmt.Printf("attempt %d: %s, giving up\n", s.Attempt, status)
	case s.Err != nil:
		fmt.Printf("attempt %d: %s, retrying in %v\n", s.Attempt, status, s.NextDelay)
	default:
		fmt.Printf("attempt %d: %s, done\n", s.Attempt, status)
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
