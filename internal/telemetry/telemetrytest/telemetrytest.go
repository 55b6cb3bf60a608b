// Package telemetrytest holds the checks that the tests of the
// repository's Instrumenters share (otelbackoff, prombackoff,
// slogbackoff): what each promises alike of its Named method and of an
// Instrumenter that its New did not make, written once.
package telemetrytest

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/herdsafe/backoff"
)

// Instrumenter is what the Instrumenters of the repository offer.
type Instrumenter interface {
	backoff.Instrumenter
	Named(name string) backoff.Instrumenter
}

// NotMadeByNew checks that every method of in, an Instrumenter that New
// did not make (a nil or zero one), panics with a message that says so.
func NotMadeByNew(t *testing.T, in Instrumenter) {
	t.Helper()
	for name, use := range map[string]func(){
		"BeforeAttempt": func() { in.BeforeAttempt(context.Background(), backoff.State{Attempt: 1}) },
		"AfterAttempt":  func() { in.AfterAttempt(context.Background(), backoff.State{Attempt: 1}) },
		"Named":         func() { in.Named("fetch") },
	} {
		func() {
			defer func() {
				if v, _ := recover().(string); !strings.Contains(v, "not made by New") {
					t.Errorf("%s: recovered %q, want the package's message", name, v)
				}
			}()
			use()
		}()
	}
}

// NamedOnce checks that concurrent calls of Named with one name, a name
// seen for the first time, all return one Instrumenter.
func NamedOnce(t *testing.T, in Instrumenter, name string) {
	t.Helper()
	got := make([]backoff.Instrumenter, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = in.Named(name) })
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("goroutine %d received another Instrumenter than goroutine 0", i)
		}
	}
}
