package slogbackoff_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	slogbackoff "github.com/herdsafe/backoff/slog"
)

// requestIDs is a slog.Handler that adds the request ID of each record's
// context: what a handler that correlates logs with requests or traces
// does.
type requestIDs struct{ slog.Handler }

type requestKey struct{}

func (h requestIDs) Handle(ctx context.Context, r slog.Record) error {
	if id, ok := ctx.Value(requestKey{}).(string); ok {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDs) WithAttrs(as []slog.Attr) slog.Handler {
	return requestIDs{h.Handler.WithAttrs(as)}
}
func (h requestIDs) WithGroup(name string) slog.Handler { return requestIDs{h.Handler.WithGroup(name)} }

// instant is a clock on which each wait is over as soon as it starts: it
// moves its time on by the wait. It keeps the example quick, and its output
// the same on every run; a service keeps the default clock.
type instant struct{ *clock.Mock }

func (c instant) Timer(d time.Duration) *clock.Timer {
	t := c.Mock.Timer(d)
	c.Add(d)
	return t
}

// A retry's records: a warning for each retry, an error on giving up, each
// with the request ID its context carries.
func Example() {
	logger := slog.New(requestIDs{slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // for a stable output
			}
			return a
		},
	})})
	logs := slogbackoff.New(logger)

	ctx := context.WithValue(context.Background(), requestKey{}, "req-42")
	err := backoff.DoErr(ctx, func(context.Context) error {
		return errors.New("connection refused")
	},
		backoff.WithInstrumenter(logs.Named("load-user")),
		backoff.WithMaxTries(3),
		backoff.WithBackOff(&backoff.ExponentialBackOff{InitialInterval: 100 * time.Millisecond, Multiplier: 2}),
		backoff.WithClock(instant{clock.NewMock()}))
	fmt.Printf("%+v\n", err)
	// Output:
	// level=WARN msg=retrying retry.name=load-user retry.attempt=1 retry.delay=100ms error.message="connection refused" request_id=req-42
	// level=WARN msg=retrying retry.name=load-user retry.attempt=2 retry.delay=200ms error.message="connection refused" request_id=req-42
	// level=ERROR msg="giving up" retry.name=load-user retry.attempt=3 retry.elapsed=300ms retry.cause=exhausted error.message="connection refused" request_id=req-42
	// gave up after 3 attempts in 300ms (backoff: retries exhausted): connection refused
}

// An unnamed operation's records have no retry.name.
func ExampleNew() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	calls := 0
	n, err := backoff.Do(context.Background(), func(context.Context) (int, error) {
		if calls++; calls == 1 {
			return 0, errors.New("timeout")
		}
		return 42, nil
	},
		backoff.WithInstrumenter(slogbackoff.New(logger)),
		backoff.WithBackOff(&backoff.ZeroBackOff{}))
	fmt.Println(n, err)
	// Output:
	// level=WARN msg=retrying retry.attempt=1 retry.delay=0s error.message=timeout
	// 42 <nil>
}
