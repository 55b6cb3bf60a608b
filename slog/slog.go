package slogbackoff

import (
	"context"
	"log/slog"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/telemetry"
)

// Attribute keys of the records.
const (
	// NameKey is the operation's name, as given to Named. A record of an
	// unnamed operation has no such attribute.
	NameKey = "retry.name"
	// AttemptKey is the attempt's number, from 1.
	AttemptKey = "retry.attempt"
	// DelayKey is the wait before the next attempt, a time.Duration.
	DelayKey = "retry.delay"
	// ElapsedKey is the time since the run's clock started when the
	// driver gave up, a time.Duration.
	ElapsedKey = "retry.elapsed"
	// CauseKey is why the driver gave up, as a short name such as
	// "exhausted" (see the package documentation).
	CauseKey = "retry.cause"
	// ErrorKey is the message of the attempt's error.
	ErrorKey = "error.message"
)

// Messages of the records.
const (
	// RetryMessage is the message of the warning logged for a failed
	// attempt that will be retried.
	RetryMessage = "retrying"
	// GiveUpMessage is the message of the error logged when the driver
	// gives up.
	GiveUpMessage = "giving up"
)

// Instrumenter is a backoff.Instrumenter that logs the retries of an
// unnamed operation through a *slog.Logger, and makes those of named
// operations (Named). Make one with New. It is safe for concurrent use.
type Instrumenter struct {
	logger *slog.Logger
	names  telemetry.Names[*named]
}

// named is the Instrumenter of an operation name.
type named struct {
	logger *slog.Logger
	name   slog.Attr
}

// New returns an Instrumenter that logs through logger, for an unnamed
// operation: its records have no retry.name. New panics if logger is nil,
// as slog.New does for a nil handler: a retry that was meant to log must
// not go silent.
func New(logger *slog.Logger) *Instrumenter {
	if logger == nil {
		panic("slogbackoff: New was given a nil *slog.Logger")
	}
	return &Instrumenter{logger: logger}
}

// check panics with a clear message for an Instrumenter New did not make,
// which could log nothing.
func (in *Instrumenter) check() {
	if in == nil || in.logger == nil {
		panic("slogbackoff: the Instrumenter was not made by New")
	}
}

// Named returns the Instrumenter of the operation name: it logs through
// in's logger, and its records have the attribute retry.name=name. Give it
// to a retry with backoff.WithInstrumenter(in.Named(name)). It is safe for
// concurrent use.
//
// The Instrumenters of up to 1024 names are made once and kept, so that a
// call of Named for a name seen before allocates nothing; past that, each
// call makes one anew. Named("") returns in itself: an unnamed operation.
func (in *Instrumenter) Named(name string) backoff.Instrumenter {
	in.check()
	if name == "" {
		return in
	}
	return in.names.Get(name, in.newNamed)
}

func (in *Instrumenter) newNamed(name string) *named {
	return &named{logger: in.logger, name: slog.String(NameKey, name)}
}

// BeforeAttempt returns ctx: the records need nothing of the attempt
// before it ends.
func (in *Instrumenter) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	in.check()
	return ctx
}

// AfterAttempt logs the attempt if it failed: a warning if it will be
// retried, an error if the driver gives up. It logs with ctx, the
// attempt's context.
func (in *Instrumenter) AfterAttempt(ctx context.Context, s backoff.State) {
	in.check()
	record(ctx, in.logger, slog.Attr{}, s)
}

// BeforeAttempt returns ctx.
func (n *named) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	return ctx
}

// AfterAttempt logs the attempt as Instrumenter.AfterAttempt does, with
// the operation's name.
func (n *named) AfterAttempt(ctx context.Context, s backoff.State) {
	record(ctx, n.logger, n.name, s)
}

// record logs what s says of an attempt: nothing for a success, a warning
// for a retry, an error for a give-up. name is the retry.name attribute,
// or the zero Attr for none. Nothing is built unless the handler is
// enabled for the level.
func record(ctx context.Context, l *slog.Logger, name slog.Attr, s backoff.State) {
	level, msg := slog.LevelWarn, RetryMessage
	switch {
	case s.GivingUp:
		level, msg = slog.LevelError, GiveUpMessage
	case s.Err == nil:
		return // a success
	}
	if !l.Enabled(ctx, level) {
		return
	}
	var attrs [5]slog.Attr
	n := 0
	add := func(a slog.Attr) {
		attrs[n] = a
		n++
	}
	if name.Key != "" {
		add(name)
	}
	add(slog.Int(AttemptKey, s.Number))
	if s.GivingUp {
		add(slog.Duration(ElapsedKey, s.Elapsed))
		add(slog.String(CauseKey, telemetry.Namer{}.Cause(s.Cause)))
	} else {
		add(slog.Duration(DelayKey, s.NextDelay))
	}
	if s.Err != nil {
		add(slog.String(ErrorKey, s.Err.Error()))
	}
	l.LogAttrs(ctx, level, msg, attrs[:n]...)
}
