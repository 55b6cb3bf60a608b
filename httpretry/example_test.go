package httpretry_test

import (
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
		httpretry.WithBackOff(func() backoff.BackOff { return &backoff.ZeroBackOff{} }),
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
