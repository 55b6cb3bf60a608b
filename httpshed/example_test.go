package httpshed_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/httpshed"
)

func ExampleShedder_Handler() {
	// At most one request in the handler; the others are told when to come
	// back. (No spread here, so that the output is the same every time.)
	shed := httpshed.New(bulkhead.New(1), httpshed.WithRandom(func() float64 { return 0 }))
	if err := shed.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	in, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(shed.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(in)
		<-release
		io.WriteString(w, "done")
	})))
	defer srv.Close()
	client := srv.Client()

	first := make(chan string)
	go func() {
		resp, err := client.Get(srv.URL)
		if err != nil {
			first <- err.Error()
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		first <- resp.Status + " " + string(body)
	}()
	<-in // the first request holds the slot

	resp, err := client.Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("second:", resp.Status, "Retry-After:", resp.Header.Get("Retry-After"))
	close(release)
	fmt.Println("first:", <-first)
	// Output:
	// second: 503 Service Unavailable Retry-After: 1
	// first: 200 OK done
}

func ExampleShedder_RetryAfter() {
	// A breaker in front of a dependency that is down tells clients to come
	// back when it admits its probe, spread over up to as long again.
	cb := breaker.New(breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(20*time.Second))
	shed := httpshed.New(cb)
	ctx := context.Background()

	p, err := cb.Allow(ctx, guard.Call{Attempt: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	cb.Record(p, guard.Outcome{Err: errors.New("the dependency is down")}) // it opens

	_, err = cb.Allow(ctx, guard.Call{Attempt: 1})
	d := shed.RetryAfter(err)
	fmt.Println(errors.Is(err, breaker.ErrCircuitOpen), d >= 20*time.Second, d <= 40*time.Second, d%time.Second == 0)
	// Output: true true true true
}
