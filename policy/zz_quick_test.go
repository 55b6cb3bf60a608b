package policy

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

var qp = New(Retry(backoff.WithMaxTries(5)))
var qz = New(Retry(backoff.WithMaxTries(5), backoff.WithBackOff(&backoff.ZeroBackOff{})))

func op() (int, error) { return 1, nil }

var errX = errors.New("x")

func BenchmarkQuickPolicy(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		Do(ctx, qp, func(context.Context) (int, error) { return op() })
	}
}
func BenchmarkQuickDirect(b *testing.B) {
	b.ReportAllocs()
	f := func(context.Context) (int, error) { return op() }
	for b.Loop() {
		f(context.Background())
	}
}
func TestQuick(t *testing.T) {
	n := 0
	v, err := Do(context.Background(), qz, func(context.Context) (int, error) { n++; if n < 3 { return 0, errX }; return 7, nil })
	if v != 7 || err != nil || n != 3 { t.Fatal(v, err, n) }
	n = 0
	_, err = Do(context.Background(), qz, func(context.Context) (int, error) { n++; return 0, errX })
	var e *backoff.Error
	if !errors.As(err, &e) || e.Attempts != 5 || !errors.Is(e.Cause, backoff.ErrExhausted) { t.Fatalf("%+v", err) }
	t.Logf("%+v", err)
}

type refuser struct{ n int }

func (r *refuser) Allow(ctx context.Context, c guard.Call) (guard.Permit, error) {
	if c.Attempt >= r.n {
		return guard.Permit{}, errors.New("no budget")
	}
	return guard.Permit{}, nil
}
func (r *refuser) Record(guard.Permit, guard.Outcome) {}

func TestQuickRefusal(t *testing.T) {
	p := New(Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5)), Guard(&refuser{n: 3}))
	_, err := Do(context.Background(), p, func(context.Context) (int, error) { return 0, errX })
	var e *backoff.Error
	if !errors.As(err, &e) || e.Attempts != 2 || !errors.Is(e.Cause, backoff.ErrRefused) || e.LastErr != errX {
		t.Fatalf("%+v %#v", err, e)
	}
	t.Logf("%+v", err)
	p = New(Guard(&refuser{n: 1}), Retry())
	_, err = Do(context.Background(), p, func(context.Context) (int, error) { return 0, errX })
	if !errors.As(err, &e) || e.Attempts != 0 || !guard.IsRefusal(err) {
		t.Fatalf("%+v %#v", err, e)
	}
	t.Logf("%+v", err)
	p = New(Fallback(func(ctx context.Context, err error) (int, error) { return 42, nil }), Retry(backoff.WithBackOff(&backoff.ZeroBackOff{})), Recover())
	v, err := Do(context.Background(), p, func(context.Context) (int, error) { panic("boom") })
	if v != 42 || err != nil {
		t.Fatal(v, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	_, err = Do(ctx, New(), func(context.Context) (int, error) { n++; return 0, nil })
	if n != 0 || !errors.As(err, &e) || !errors.Is(e.Cause, context.Canceled) || e.Attempts != 0 {
		t.Fatalf("%+v %#v", err, e)
	}
	_, err = Do(context.Background(), New(), func(context.Context) (int, error) { return 0, backoff.Permanent(errX) })
	if !errors.As(err, &e) || !errors.Is(e.Cause, backoff.ErrPermanent) || e.LastErr != errX || e.Attempts != 1 {
		t.Fatalf("%+v %#v", err, e)
	}
}
