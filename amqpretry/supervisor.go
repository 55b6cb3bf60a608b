package amqpretry

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
	amqp "github.com/rabbitmq/amqp091-go"
)

// settings names this package in the errors of what it is given and
// cannot use.
const settings = setting.Package("amqpretry")

// Defaults of a Supervisor's settings.
const (
	// DefaultStableAfter is how long a connection must last for the waits
	// to start over after it closes.
	DefaultStableAfter = 10 * time.Second
	// DefaultDialTimeout bounds the TCP connection and the AMQP handshake
	// of each attempt, when Config.Dial is not set.
	DefaultDialTimeout = 30 * time.Second
)

// ErrConnectionClosed is the error of a session whose connection or
// channel closed without an error from the broker or the network.
var ErrConnectionClosed = errors.New("amqpretry: connection closed")

// DefaultBackOff returns the BackOff of a Supervisor that is given none:
// full jitter, each wait drawn uniformly from [0, nominal], where the
// nominal interval starts at 1 s and doubles after each failed attempt,
// capped at 10 s. A fleet whose broker restarts comes back spread over
// the first second, then tries less often while the broker is down, each
// client about every 5 s once capped; a broker back up is found by the
// last client within about 10 s. The attempts a down broker sees are about
// 2 × clients / MaxInterval a second: a larger fleet may want a larger cap.
func DefaultBackOff() *backoff.ExponentialBackOff {
	return &backoff.ExponentialBackOff{
		InitialInterval: time.Second,
		Multiplier:      2,
		MaxInterval:     10 * time.Second,
		Jitter:          backoff.FullJitter,
	}
}

// Supervisor keeps one connection to RabbitMQ, and one channel on it,
// open for as long as its Run runs: it dials, opens the channel, runs
// Declare on it, then the caller's session, and when the connection or the
// channel closes, it waits the next interval of its BackOff and does it
// all again. Its fields are read when Run starts and must not change
// while it runs; set them in a literal. The zero value needs a URL.
//
// A Supervisor may run any number of times, at the same time too: each
// Run has its own connection, channel and waits.
type Supervisor struct {
	// URL is the broker's, as amqp091.Dial takes it:
	// amqp://user:password@host:port/vhost.
	URL string

	// Config is given to amqp091.DialConfig. Its Recovery must be nil:
	// the Supervisor reconnects, and amqp091-go's own recovery would
	// compete with it. A Config without Dial dials with
	// DefaultDialTimeout, and gives up the dial and the handshake when
	// Run's context is done.
	Config amqp.Config

	// BackOff schedules the waits between connections; nil means
	// DefaultBackOff(). The first connection is made at once; after a
	// connection closes, Run waits the next interval, or, if the
	// connection lasted StableAfter, the first interval of a fresh
	// sequence. Each Run works on a clone of it (see backoff.BackOff), so
	// one BackOff may serve many Supervisors; one without a Clone method
	// makes Run fail with ErrInvalidConfiguration. When it returns
	// backoff.Stop, Run returns.
	BackOff backoff.BackOff

	// StableAfter is how long a connection must last for the waits to
	// start over after it closes; 0 means DefaultStableAfter. A broker
	// that accepts connections and closes them at once is retried less
	// and less often.
	StableAfter time.Duration

	// Retryable decides whether a closure or a failure is worth
	// connecting again for; nil means the package's Retryable. An error it
	// rejects ends Run.
	Retryable func(error) bool

	// Declare, if set, runs on every new channel before the session:
	// declare the exchanges, queues and bindings the session needs, set
	// its Qos. It runs on the goroutine of Run. An error it returns ends
	// the connection, as a closure does, and is classified by Retryable.
	Declare func(ch *amqp.Channel) error

	// OnError, if set, is called on the goroutine of Run with the error
	// of each connection that ended, or failed to be made, and will be
	// made again after a wait, such as for a log line. It must not block:
	// the next connection waits for it.
	OnError func(err error)

	// Clock is the clock of the waits and of StableAfter; nil means the
	// time package's (virtual inside a testing/synctest bubble).
	Clock clock.Clock
}

// Run keeps the Supervisor connected until ctx is done, and runs session
// on each channel it opens, after Declare. session receives a context
// that is done when that connection or channel closes, or when ctx is
// done: it may block until then (consuming), or return nil at once,
// leaving the channel to goroutines of its own or to other callers
// (publishing), and Run keeps the connection until it closes. An error
// session returns ends the connection, as a closure does. session runs on
// the goroutine of Run, so a panic in it (or in Declare) goes on to the
// caller of Run, after Run has closed the connection.
//
// Each closure, and each failure to connect, is classified by Retryable:
// Run connects again after a wait, or, for an error it rejects, returns.
// Run returns a *backoff.Error: its Cause is the context's cause when ctx
// is done (context.Canceled when it is cancelled, the usual way to stop a
// Supervisor), backoff.ErrPermanent for an error Retryable rejects,
// backoff.ErrExhausted when the BackOff stopped; its LastErr is the last
// connection's error, an *amqp091.Error for a closure. Run never returns
// nil. A Supervisor that cannot be used (no URL, a Config with Recovery,
// a negative StableAfter, a nil session or context) is reported at once,
// with a Cause matching backoff.ErrInvalidConfiguration.
//
// Run closes the connection before it returns, and leaves no goroutine of
// its own behind.
func (s *Supervisor) Run(ctx context.Context, session func(ctx context.Context, ch *amqp.Channel) error) error {
	c, err := s.check(ctx, session)
	if err != nil {
		return &backoff.Error{Cause: err}
	}
	loop := backoff.NewRetrier(
		backoff.WithBackOff(c.backOff),
		backoff.WithMaxElapsedTime(0),
		backoff.WithClock(c.clock),
	).Loop()
	var last error
	attempts := 0
	for loop.Wait(ctx) {
		attempts++
		lasted, err := s.once(ctx, c, session)
		if ctx.Err() != nil {
			if err != nil && !errors.Is(err, context.Cause(ctx)) {
				last = err
			}
			break
		}
		last = err
		if lasted >= c.stableAfter {
			loop.Reset()
		}
		if !c.retryable(err) {
			return &backoff.Error{Cause: backoff.ErrPermanent, LastErr: err, Attempts: attempts}
		}
		if s.OnError != nil {
			s.OnError(err)
		}
	}
	cause := context.Cause(ctx)
	if ctx.Err() == nil {
		var le *backoff.Error
		if errors.As(loop.Err(), &le) {
			cause = le.Cause
		}
	}
	return &backoff.Error{Cause: cause, LastErr: last, Attempts: attempts}
}

// checked is a Supervisor's settings, with the defaults filled in.
type checked struct {
	backOff     backoff.BackOff
	stableAfter time.Duration
	retryable   func(error) bool
	clock       clock.Clock
	config      amqp.Config
}

func (s *Supervisor) check(ctx context.Context, session func(context.Context, *amqp.Channel) error) (checked, error) {
	var err error
	c := checked{
		backOff: DefaultBackOff(), stableAfter: DefaultStableAfter, retryable: Retryable,
		clock: setting.RealClock,
	}
	if s == nil {
		return c, settings.Invalid("Run was called on a nil *Supervisor")
	}
	if s.URL == "" {
		settings.Fail(&err, "Supervisor has no URL")
	}
	if s.Config.Recovery != nil {
		settings.Fail(&err, "Supervisor.Config has a Recovery: the Supervisor reconnects, and amqp091-go's recovery would compete with it")
	}
	if s.BackOff != nil {
		setting.NotNil(settings, &err, &c.backOff, s.BackOff, "Supervisor.BackOff", "BackOff")
	}
	if s.StableAfter != 0 {
		setting.NotNegative(settings, &err, &c.stableAfter, s.StableAfter, "Supervisor.StableAfter")
	}
	if s.Retryable != nil {
		c.retryable = s.Retryable
	}
	if s.Clock != nil {
		settings.Clock(&c.clock, &err, s.Clock)
	}
	if session == nil {
		settings.Fail(&err, "Run was given a nil session")
	}
	if ctx == nil {
		settings.Fail(&err, "Run was given a nil context")
	}
	c.config = s.Config
	return c, err
}

// once makes one connection and runs the session on it until it ends. It
// returns how long the connection lasted, from the end of Declare, and
// the error it ended with: the closure's, when the connection or the
// channel closed, before the session's.
func (s *Supervisor) once(ctx context.Context, c checked, session func(context.Context, *amqp.Channel) error) (time.Duration, error) {
	conn, err := s.dial(ctx, c.config)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return 0, err
	}
	connClosed := conn.NotifyClose(make(chan *amqp.Error, 1))
	chClosed := ch.NotifyClose(make(chan *amqp.Error, 1))
	if s.Declare != nil {
		if err := s.Declare(ch); err != nil {
			return 0, &declareError{closedFirst(connClosed, chClosed, err)}
		}
	}
	began := c.clock.Now()
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watched := make(chan error, 1)
	go func() {
		var closed error
		select {
		case e, ok := <-connClosed:
			closed = closure(e, ok)
		case e, ok := <-chClosed:
			closed = closure(e, ok)
		case <-sctx.Done():
		}
		if closed != nil {
			cancel(closed)
		}
		watched <- closed
	}()
	err = session(sctx, ch)
	if err == nil {
		<-sctx.Done()
	}
	cancel(nil)
	lasted := c.clock.Since(began)
	if closed := <-watched; closed != nil {
		return lasted, closed
	}
	if ctx.Err() != nil {
		return lasted, context.Cause(ctx)
	}
	return lasted, closedFirst(connClosed, chClosed, err)
}

// closedFirst returns the error of a closure that was notified, if any,
// before err: the session's error is most often what the closure caused.
func closedFirst(connClosed, chClosed <-chan *amqp.Error, err error) error {
	select {
	case e, ok := <-connClosed:
		return closure(e, ok)
	default:
	}
	select {
	case e, ok := <-chClosed:
		return closure(e, ok)
	default:
	}
	return err
}

// closure is the error of a NotifyClose notification.
func closure(e *amqp.Error, ok bool) error {
	if !ok || e == nil {
		return ErrConnectionClosed
	}
	return e
}

// dial connects to the broker, giving up when ctx is done.
func (s *Supervisor) dial(ctx context.Context, cfg amqp.Config) (*amqp.Connection, error) {
	if cfg.Dial != nil {
		return amqp.DialConfig(s.URL, cfg)
	}
	var stop func() bool
	cfg.Dial = func(network, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: DefaultDialTimeout}
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		// The handshake has the rest of the timeout; amqp091-go clears
		// the deadline once it is done. A ctx done meanwhile ends it.
		if err := conn.SetDeadline(time.Now().Add(DefaultDialTimeout)); err != nil {
			conn.Close()
			return nil, err
		}
		stop = context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
		return conn, nil
	}
	conn, err := amqp.DialConfig(s.URL, cfg)
	if stop != nil {
		stop()
	}
	return conn, err
}

// declareError is an error of Declare, or the closure it caused. It
// prints and matches as the error does.
type declareError struct{ err error }

func (e *declareError) Error() string { return e.err.Error() }
func (e *declareError) Unwrap() error { return e.err }
