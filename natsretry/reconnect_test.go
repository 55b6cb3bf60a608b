package natsretry

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/testkit/fleettest"
	"github.com/nats-io/nats.go"
)

// exact is an ExponentialBackOff whose waits are exactly its nominal
// intervals: 100 ms, doubling, capped at 400 ms.
func exact() *backoff.ExponentialBackOff {
	return &backoff.ExponentialBackOff{
		InitialInterval: 100 * time.Millisecond, Multiplier: 2, MaxInterval: 400 * time.Millisecond,
		Jitter: backoff.FullJitter, Random: func() float64 { return 1 },
	}
}

// hook applies the option to fresh options and returns the hook it set.
func hook(t *testing.T, opt nats.Option) nats.ReconnectDelayHandler {
	t.Helper()
	o := nats.GetDefaultOptions()
	if err := opt(&o); err != nil {
		t.Fatal(err)
	}
	if o.CustomReconnectDelayCB == nil {
		t.Fatal("Reconnect set no CustomReconnectDelay hook")
	}
	return o.CustomReconnectDelayCB
}

func TestReconnectWaitsFollowTheBackOffAndStartOverAtEachDisconnection(t *testing.T) {
	next := hook(t, Reconnect(exact()))
	ms := time.Millisecond
	for _, tc := range []struct {
		attempt int
		want    time.Duration
	}{
		{1, 100 * ms}, {2, 200 * ms}, {3, 400 * ms}, {4, 400 * ms},
		{1, 100 * ms}, {2, 200 * ms}, // a new disconnection starts over
	} {
		if got := next(tc.attempt); got != tc.want {
			t.Fatalf("attempt %d: wait %v, want %v", tc.attempt, got, tc.want)
		}
	}
}

func TestReconnectGivesEachConnectionAClone(t *testing.T) {
	b := exact()
	opt := Reconnect(b)
	first, second := hook(t, opt), hook(t, opt)
	first(1)
	first(2)
	if got := second(2); got != 100*time.Millisecond {
		t.Fatalf("a second connection's first wait is %v: it shares the first's sequence", got)
	}
	if got := b.NextBackOff(); got != 100*time.Millisecond {
		t.Fatalf("the BackOff given was advanced to %v by the connections", got)
	}
}

// stopAfter returns the waits of its list, then Stop.
type stopAfter struct {
	waits []time.Duration
	i     int
}

func (s *stopAfter) NextBackOff() time.Duration {
	if s.i >= len(s.waits) {
		return backoff.Stop
	}
	s.i++
	return s.waits[s.i-1]
}
func (s *stopAfter) Reset() { s.i = 0 }

func TestReconnectAfterStopRepeatsTheLastWaitRatherThanSpinning(t *testing.T) {
	next := hook(t, Reconnect(&stopAfter{waits: []time.Duration{300 * time.Millisecond}}))
	next(1)
	for a := 2; a < 5; a++ {
		if got := next(a); got != 300*time.Millisecond {
			t.Fatalf("attempt %d after Stop: wait %v, want the last wait, 300ms", a, got)
		}
	}
	next = hook(t, Reconnect(&stopAfter{}))
	if got := next(1); got != nats.DefaultReconnectWait {
		t.Fatalf("a BackOff that stops at once: wait %v, want nats.DefaultReconnectWait", got)
	}
}

func TestReconnectRefusesWhatItCannotUse(t *testing.T) {
	var typedNil *backoff.ExponentialBackOff
	for name, b := range map[string]backoff.BackOff{
		"nil":       nil,
		"typed nil": typedNil,
		"invalid":   &backoff.ExponentialBackOff{InitialInterval: -time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := nats.Connect("nats://127.0.0.1:1", Reconnect(b))
			if !errors.Is(err, backoff.ErrInvalidConfiguration) {
				t.Fatalf("Connect: %v, want an error matching ErrInvalidConfiguration", err)
			}
		})
	}
}

// A client with Reconnect loses its server, which comes back: it
// reconnects on its own, after the waits of its BackOff, and its
// subscription receives again.
func TestReconnectAfterARealRestart(t *testing.T) {
	srv := needNATS(t)
	px := fleettest.StartProxy(t, srv.addr())
	var reconnected atomic.Int32
	back := make(chan struct{}, 1)
	nc, err := nats.Connect("nats://"+px.Addr(),
		Reconnect(exact()), nats.MaxReconnects(-1),
		nats.ReconnectHandler(func(*nats.Conn) {
			reconnected.Add(1)
			back <- struct{}{}
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	got := make(chan string, 1)
	if _, err := nc.Subscribe("greet", func(m *nats.Msg) { got <- string(m.Data) }); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}

	t0 := time.Now()
	srv.halt()
	time.Sleep(650 * time.Millisecond) // 100 + 200 ms of waits, and part of the 400 ms one
	if err := srv.start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-back:
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not reconnect within 10s")
	}
	// The attempts the server saw while it was down came after the
	// waits: 100 ms, then 200 ms more, then 400 ms more.
	attempts := px.Since(t0)
	if len(attempts) < 3 {
		t.Fatalf("%d connections after the stop, want at least 3", len(attempts))
	}
	if d := attempts[0].Sub(t0); d < 90*time.Millisecond {
		t.Fatalf("first attempt %v after the stop, before the first wait of 100ms", d)
	}
	if d := attempts[1].Sub(attempts[0]); d < 190*time.Millisecond {
		t.Fatalf("second attempt %v after the first, before the second wait of 200ms", d)
	}

	if err := nc.Publish("greet", []byte("again")); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m != "again" {
			t.Fatalf("received %q", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the subscription received nothing after the reconnection")
	}
}
