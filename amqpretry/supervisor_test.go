package amqpretry

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	amqp "github.com/rabbitmq/amqp091-go"
)

func TestSupervisorRefusesWhatItCannotUse(t *testing.T) {
	var typedNil *backoff.ExponentialBackOff
	session := func(context.Context, *amqp.Channel) error { return nil }
	for _, tc := range []struct {
		name string
		s    *Supervisor
		fn   func(context.Context, *amqp.Channel) error
		word string
	}{
		{"no URL", &Supervisor{}, session, "no URL"},
		{"recovery", &Supervisor{URL: "amqp://x", Config: amqp.Config{Recovery: &amqp.Recovery{}}}, session, "Recovery"},
		{"typed nil BackOff", &Supervisor{URL: "amqp://x", BackOff: typedNil}, session, "BackOff"},
		{"negative StableAfter", &Supervisor{URL: "amqp://x", StableAfter: -time.Second}, session, "StableAfter"},
		{"nil session", &Supervisor{URL: "amqp://x"}, nil, "nil session"},
		{"nil Supervisor", nil, session, "nil *Supervisor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Run(context.Background(), tc.fn)
			var be *backoff.Error
			if !errors.As(err, &be) || !errors.Is(be.Cause, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), tc.word) {
				t.Fatalf("Run: %v, want ErrInvalidConfiguration naming %q", err, tc.word)
			}
		})
	}
}

// recorder is a BackOff that records, for each wait, how many waits its
// sequence had made: 1 for the first wait after a Reset.
type recorder struct {
	n     int
	waits []int
}

func (r *recorder) NextBackOff() time.Duration {
	r.n++
	r.waits = append(r.waits, r.n)
	return time.Millisecond
}
func (r *recorder) Reset() { r.n = 0 }

// Clone returns r itself, so that the test sees the Run's waits: a
// Supervisor's Loop, from a Retrier, takes only a BackOff it can clone.
func (r *recorder) Clone() backoff.BackOff { return r }

// The waits grow while connections end at once, and start over after one
// that lasted StableAfter.
func TestSupervisorStartsTheWaitsOverOnceAConnectionHasLasted(t *testing.T) {
	b := needBroker(t)
	rec := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lasts := []time.Duration{0, 0, 300 * time.Millisecond, 0, 0}
	session := 0
	s := &Supervisor{URL: b.url(), BackOff: rec, StableAfter: 200 * time.Millisecond}
	err := s.Run(ctx, func(ctx context.Context, ch *amqp.Channel) error {
		if session == len(lasts) {
			cancel()
			return nil
		}
		time.Sleep(lasts[session])
		session++
		return errors.New("the session failed")
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	var be *backoff.Error
	if !errors.As(err, &be) || be.LastErr == nil || be.LastErr.Error() != "the session failed" || be.Attempts != 6 {
		t.Fatalf("Run: %+v, want the last session's error after 6 connections", err)
	}
	want := []int{1, 2, 1, 2, 3}
	if len(rec.waits) != len(want) {
		t.Fatalf("waits %v, want %v", rec.waits, want)
	}
	for i := range want {
		if rec.waits[i] != want[i] {
			t.Fatalf("waits %v, want %v: the third connection lasted and should start them over", rec.waits, want)
		}
	}
}

// The broker's refusals end Run with the error, after one connection.
func TestSupervisorStopsAtARefusal(t *testing.T) {
	b := needBroker(t)
	declare := func(ch *amqp.Channel) error {
		_, err := ch.QueueDeclare("refusal", false, true, false, false, nil)
		return err
	}
	ch := openChannel(t, b)
	if _, err := ch.QueueDeclare("refusal", false, true, false, false, amqp.Table{"x-max-length": int32(5)}); err != nil {
		t.Fatal(err)
	}
	missing := func(ch *amqp.Channel) error {
		_, err := ch.QueueDeclarePassive("no-such-queue", false, false, false, false, nil)
		return err
	}
	for _, tc := range []struct {
		name    string
		url     string
		declare func(*amqp.Channel) error
		code    int
	}{
		{"precondition failed", b.url(), declare, amqp.PreconditionFailed},
		{"not found", b.url(), missing, amqp.NotFound},
		{"access refused", strings.Replace(b.url(), "guest:guest", "guest:wrong", 1), nil, amqp.AccessRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s := &Supervisor{URL: tc.url, Declare: tc.declare}
			err := s.Run(ctx, func(ctx context.Context, ch *amqp.Channel) error { return nil })
			var be *backoff.Error
			var ae *amqp.Error
			if !errors.As(err, &be) || !errors.Is(be.Cause, backoff.ErrPermanent) || be.Attempts != 1 ||
				!errors.As(be.LastErr, &ae) || ae.Code != tc.code {
				t.Fatalf("Run: %+v, want ErrPermanent after 1 connection with code %d", err, tc.code)
			}
		})
	}
}

// A cancelled context ends Run during a wait, during a session, and
// before the first connection.
func TestSupervisorStopsWhenTheContextIsDone(t *testing.T) {
	b := needBroker(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Supervisor{URL: b.url()}
	sessions := 0
	err := s.Run(ctx, func(ctx context.Context, ch *amqp.Channel) error {
		sessions++
		cancel()
		<-ctx.Done()
		return ctx.Err()
	})
	if !errors.Is(err, context.Canceled) || sessions != 1 {
		t.Fatalf("Run: %v after %d sessions", err, sessions)
	}
	var be *backoff.Error
	if errors.As(err, &be); be.LastErr != nil {
		t.Fatalf("LastErr %v: the caller's cancellation is no connection's error", be.LastErr)
	}
	// A broker that is not there: Run is waiting between attempts.
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	down := &Supervisor{URL: "amqp://guest:guest@127.0.0.1:1/"}
	start := time.Now()
	err = down.Run(ctx, func(context.Context, *amqp.Channel) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("Run: %v after %v", err, time.Since(start))
	}
	if !errors.As(err, &be) || be.LastErr == nil {
		t.Fatalf("Run: %+v, want the dial's error kept", err)
	}
}

// openChannel returns a channel on a plain connection to b, closed when t
// ends.
func openChannel(t *testing.T, b *rabbit) *amqp.Channel {
	t.Helper()
	conn, err := amqp.Dial(b.url())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// A server that accepts connections and never answers holds a dial no
// longer than the caller's context: the handshake is given up with it.
func TestSupervisorGivesUpASilentHandshakeWithTheContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // never answered
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s := &Supervisor{URL: "amqp://guest:guest@" + ln.Addr().String() + "/"}
	start := time.Now()
	err = s.Run(ctx, func(context.Context, *amqp.Channel) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("Run: %v after %v, want the deadline within moments", err, time.Since(start))
	}
	ln.Close()
	<-accepted
}
