package httpshed

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hop"
	"github.com/herdsafe/backoff/internal/typednil"
)

// Handler returns middleware that serves each request through next if the
// Shedder's guard admits it, and answers it at once otherwise: with the
// Shedder's status (503 Service Unavailable by default) and, for a
// refusal, a Retry-After header of RetryAfter's whole seconds. The guard is
// asked on the request's goroutine and told how next ended (see the
// package documentation); no lock is held while next runs.
//
// A nil next, typed or not, or an invalid Shedder, makes a handler that
// answers every request with 500 Internal Server Error and the
// configuration error: check Validate at start-up. The ResponseWriter next
// receives records the status; it has Flush, and its Unwrap gives
// http.ResponseController the one net/http gave, for Hijack and the
// deadlines.
func (s *Shedder) Handler(next http.Handler) http.Handler {
	h := &handler{s: s, next: next, err: s.Validate()}
	if h.err == nil && (next == nil || typednil.Is(next)) {
		h.err = settings.Invalid("Shedder.Handler was given a nil http.Handler")
	}
	return h
}

// handler is a Shedder's middleware around next.
type handler struct {
	s    *Shedder
	next http.Handler
	err  error // why it cannot serve
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.err != nil {
		http.Error(w, h.err.Error(), http.StatusInternalServerError)
		return
	}
	s := h.s
	caller := hop.ReadHeader(r.Header)
	if reason := s.gate.Refuse(caller.Attempt, caller.Timeout, caller.HasTimeout); reason != "" {
		s.refuse(w, reason)
		return
	}
	rec := &recorder{ResponseWriter: w}
	if caller.HasTimeout || s.tiers {
		ctx := r.Context()
		if caller.HasTimeout {
			var cancel context.CancelFunc
			ctx, cancel = s.clock.WithTimeout(ctx, caller.Timeout)
			defer cancel()
		}
		if s.tiers {
			ctx = hop.Track(ctx, &rec.tier)
		}
		r = r.WithContext(ctx)
	}
	start := s.gate.Start()
	err := guard.Run(r.Context(), s.g, guard.Call{Attempt: caller.Attempt}, func(context.Context) error {
		s.gate.Admitted(start)
		rec.ran = true
		h.next.ServeHTTP(rec, r)
		return rec.outcome()
	})
	if rec.ran {
		return
	}
	if errors.Is(err, backoff.ErrRefused) {
		w.Header().Set("Retry-After", strconv.FormatInt(int64(s.RetryAfter(err).Seconds()), 10))
	}
	http.Error(w, http.StatusText(s.status), s.status)
}

// recorder is the ResponseWriter the handler receives: it records the
// status, which is the outcome the guard is told.
type recorder struct {
	http.ResponseWriter
	status int
	ran    bool     // the handler was called
	tier   hop.Tier // what the handler's calls to the tier below said
}

// WriteHeader records the status and, for a failure (a 5xx, or 429) of a
// request whose calls to the tier below gave up (see package hop), adds
// hop.StopHeader, unless the handler set it.
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
		if code >= 500 || code == http.StatusTooManyRequests {
			if reason, ok := r.tier.Reason(); ok {
				if h := r.ResponseWriter.Header(); h[hop.StopHeader] == nil {
					h[hop.StopHeader] = []string{reason}
				}
			}
		}
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(p)
}

// Flush flushes the response, if the ResponseWriter net/http gave can.
func (r *recorder) Flush() {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	_ = http.NewResponseController(r.ResponseWriter).Flush()
}

// Hijack hands over the connection, as http.Hijacker does, if the
// ResponseWriter net/http gave can.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(r.ResponseWriter).Hijack()
}

// Unwrap returns the ResponseWriter net/http gave, for
// http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// outcome is the handler's outcome for the guard: a 5xx status is a
// failure.
func (r *recorder) outcome() error {
	if r.status >= 500 {
		return &statusError{code: r.status}
	}
	return nil
}

// statusError is the failure of a handler that answered a 5xx status.
type statusError struct{ code int }

func (e *statusError) Error() string {
	return "httpshed: the handler answered " + strconv.Itoa(e.code) + " " + http.StatusText(e.code)
}
