package hop_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/hop"
	"github.com/herdsafe/backoff/httpretry"
	"github.com/herdsafe/backoff/httpshed"
)

// Three tiers, each calling the next with an httpretry Transport of 3
// tries, over a dependency that fails. Each service's handler runs behind
// an httpshed Shedder and calls the next tier with its request's context:
// the lowest tier's retries are spent, it says so, and no tier above
// retries on top. The dependency sees 3 calls, not 27.
func Example() {
	var calls atomic.Int64
	dependency := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer dependency.Close()

	client := &http.Client{Transport: httpretry.NewTransport(nil, httpretry.WithBackOff(&backoff.ZeroBackOff{}))}
	defer client.CloseIdleConnections()
	service := func(next string) *httptest.Server {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, next, nil) // the request's context
			resp, err := client.Do(req)
			if err != nil {
				w.WriteHeader(http.StatusBadGateway)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			w.WriteHeader(resp.StatusCode)
		})
		return httptest.NewServer(httpshed.New(bulkhead.New(100)).Handler(h))
	}
	lower := service(dependency.URL)
	defer lower.Close()
	upper := service(lower.URL)
	defer upper.Close()

	resp, err := client.Get(upper.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.Status, hop.StopHeader+":", resp.Header.Get(hop.StopHeader))
	fmt.Println("calls at the dependency:", calls.Load())
	// Output:
	// 503 Service Unavailable X-Do-Not-Retry: exhausted
	// calls at the dependency: 3
}

// A server reads what a request tells of its caller.
func ExampleReadHeader() {
	h := http.Header{}
	hop.WriteHeader(h, hop.Caller{Attempt: 2, Timeout: 1500e6, HasTimeout: true})
	c := hop.ReadHeader(h)
	fmt.Println(h.Get(hop.AttemptHeader), h.Get(hop.TimeoutHeader), c.Retry(), c.Timeout)
	// Output: 2 1500 true 1.5s
}
