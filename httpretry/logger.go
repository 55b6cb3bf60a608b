package httpretry

import (
	"log/slog"

	"github.com/herdsafe/backoff"
	slogbackoff "github.com/herdsafe/backoff/slog"
)

// logInstrumenter returns the Instrumenter of WithLogger: the slog
// Instrumenter of package slogbackoff for the operation name, logging
// through l with the attempt's status added to each record (see
// statusHandler). An empty name logs an unnamed operation.
func logInstrumenter(l *slog.Logger, name string) backoff.Instrumenter {
	return slogbackoff.New(slog.New(&statusHandler{h: l.Handler()})).Named(name)
}
