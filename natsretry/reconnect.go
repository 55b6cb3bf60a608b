package natsretry

import (
	"sync"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/nats-io/nats.go"
)

// settings names this package in the errors of what it is given and
// cannot use.
const settings = setting.Package("natsretry")

// DefaultBackOff returns the BackOff of the waits this package recommends
// between reconnect attempts: full jitter, each wait drawn uniformly from
// [0, nominal], where the nominal interval starts at 1 s and doubles after
// each attempt, capped at 5 s. A fleet that loses its server together
// comes back spread over the first second and, while the server stays
// down, tries less often, each client about every 2.5 s; once the server
// is back, the last client finds it within about 5 s. A larger fleet may
// want a larger cap: the attempts a down server sees are about
// 2 × clients / MaxInterval a second.
func DefaultBackOff() *backoff.ExponentialBackOff {
	return &backoff.ExponentialBackOff{
		InitialInterval: time.Second,
		Multiplier:      2,
		MaxInterval:     5 * time.Second,
		Jitter:          backoff.FullJitter,
	}
}

// Reconnect returns a nats.Option that makes the client wait, before each
// attempt to reconnect, the next interval of b: it sets the client's
// CustomReconnectDelay hook, which replaces ReconnectWait and
// ReconnectJitter. The sequence starts over at each disconnection, so the
// first attempt after a drop waits b's first interval.
//
// Each connection made with the option works on a clone of b of its own
// (see backoff.BackOff), so one b may configure any number of connections.
// A BackOff without a Clone method is used as it is and must then serve one
// connection only.
//
// The hook cannot stop the client from reconnecting: when b returns
// backoff.Stop, the client waits the last interval b gave again (or
// nats.DefaultReconnectWait, if b stopped at once). Bound the attempts
// with nats.MaxReconnects; its default, 60, closes the connection after
// 60 failed attempts, and -1 means no limit.
//
// A nil b (typed or not), or one whose Validate method reports an error,
// makes nats.Connect fail with an error matching
// backoff.ErrInvalidConfiguration.
func Reconnect(b backoff.BackOff) nats.Option {
	return func(o *nats.Options) error {
		var err error
		var checked backoff.BackOff
		setting.NotNil(settings, &err, &checked, b, "Reconnect", "BackOff")
		if err != nil {
			return err
		}
		if v, ok := b.(interface{ Validate() error }); ok {
			if verr := v.Validate(); verr != nil {
				return settings.Invalid("Reconnect was given a BackOff it cannot use: %w", verr)
			}
		}
		o.CustomReconnectDelayCB = newDelay(b).next
		return nil
	}
}

// delay is the reconnect wait of one connection.
type delay struct {
	mu   sync.Mutex
	b    backoff.BackOff
	last time.Duration
}

func newDelay(b backoff.BackOff) *delay {
	if c, ok := b.(interface{ Clone() backoff.BackOff }); ok {
		b = c.Clone()
	}
	b.Reset()
	return &delay{b: b, last: nats.DefaultReconnectWait}
}

// next is the client's CustomReconnectDelay hook: attempts is the number
// of the attempt since the disconnection, from 1.
func (d *delay) next(attempts int) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	if attempts <= 1 {
		d.b.Reset()
	}
	w := d.b.NextBackOff()
	if w < 0 {
		return d.last
	}
	d.last = w
	return w
}
