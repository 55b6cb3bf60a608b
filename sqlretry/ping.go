package sqlretry

import (
	"context"

	"github.com/herdsafe/backoff"
)

// Ping calls ping (a pool's Ping: pgxpool's Ping, database/sql's
// PingContext) until the server answers, waiting between calls as r's
// Retrier says, and retrying only the errors r's classifier calls worth
// it (a connection refused, a server starting up, too many connections):
// for a process that starts while its database restarts, or a pool to
// warm after a failover, without the fleet dialing in one instant. It
// returns nil once ping succeeded, or else a *backoff.Error, as Run does;
// ctx bounds it.
func (r *Runner) Ping(ctx context.Context, ping func(context.Context) error) error {
	if err := r.Validate(); err != nil {
		return &backoff.Error{Cause: err}
	}
	switch {
	case ctx == nil:
		return &backoff.Error{Cause: settings.Invalid("Ping was given a nil context")}
	case ping == nil:
		return &backoff.Error{Cause: settings.Invalid("Ping was given a nil function")}
	}
	return r.cfg.retrier.DoErr(ctx, func(ctx context.Context) error {
		if err := ping(ctx); err != nil {
			return r.judge(err)
		}
		return nil
	})
}
