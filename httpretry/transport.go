package httpretry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/typednil"
	"github.com/herdsafe/backoff/policy"
)

// Transport is an http.RoundTripper that retries requests through another
// RoundTripper when they fail for a transient reason and are safe to
// replay. Build one with NewTransport; the package documentation describes
// what it retries and what the caller gets.
//
// A Transport runs each request through one policy.Policy, built by
// NewTransport from its options: the guards of WithRequestGuards around
// the whole request, then its one retry stage, then the guards of
// WithAttemptGuards and the bound of WithAttemptTimeout around each
// attempt.
//
// A Transport is immutable once built and safe for concurrent use, as long
// as its base RoundTripper, classifier, instrumenters and guards are. The
// zero Transport, and a nil *Transport, are not usable: their RoundTrip
// reports ErrInvalidConfiguration.
type Transport struct {
	base http.RoundTripper
	rules
	policy   *policy.Policy // the request guards, the retry stage, the attempt guards
	maxTries uint           // the retry stage's attempt budget
	status   bool           // an Instrumenter or the logger reads AttemptStatus
	guarded  bool           // guards see the requests: the call is their context (see hostKey)
	detach   bool           // a per-attempt timeout can cancel an attempt's context
	err      error          // the first invalid setting
}

var defaultMethods = []string{http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace}

var defaultIdempotencyHeaders = []string{"Idempotency-Key", "X-Idempotency-Key"}

// NewTransport returns a Transport that sends requests through base,
// retrying them as opts say. A nil base means http.DefaultTransport; a
// typed nil, such as a nil *http.Transport, is invalid.
//
// NewTransport returns no error, so that it fits in an http.Client literal:
// an option given a value it cannot use makes every RoundTrip fail, before
// sending anything, with an error matching ErrInvalidConfiguration. A bad
// base and the first bad option are both reported.
func NewTransport(base http.RoundTripper, opts ...Option) *Transport {
	c := newConfig()
	var baseErr error
	switch {
	case base == nil:
		base = http.DefaultTransport
	case typednil.Is(base):
		baseErr = settings.Invalid("NewTransport was given a nil %T", base)
		base = nil // so that CloseIdleConnections does not call it either
	}
	setting.Apply(settings, &c.err, "NewTransport", &c, opts)
	t := &Transport{
		base:     base,
		rules:    c.rules,
		maxTries: c.maxTries,
		status:   c.logger != nil || len(c.instrumenters) > 0,
		guarded:  len(c.requestGuards)+len(c.attemptGuards) > 0,
		detach:   c.attemptTimeout > 0,
	}
	if c.err == nil {
		t.policy, c.err = c.build(t.status)
	}
	t.err = setting.Join(baseErr, c.err)
	return t
}

// RoundTrip sends req through the base RoundTripper, retrying it as the
// Transport is configured to. It implements http.RoundTripper: it returns
// exactly one of a response and an error, never modifies req, and always
// closes req's body. Every attempt sends a clone of req: the first with
// req's body, each retry with a body from req.GetBody, obtained before the
// retry is decided.
//
// A response is returned with a nil error, whatever its status: the first
// one the classifier does not find retryable, one that may not be retried
// (see the package documentation), or the last one when the attempts,
// WithMaxElapsedTime or the context's deadline leave no room for another
// retry.
//
// Otherwise the error is a *backoff.Error whose Cause says why retrying
// stopped and whose LastErr is the last attempt's error: it matches
// backoff.ErrExhausted when the attempts ran out on a transport error,
// backoff.ErrPermanent when the error was not retryable, the context's
// error when the request was cancelled or its deadline leaves no time for
// another attempt, backoff.ErrMaxElapsedTime when WithMaxElapsedTime
// does, ErrBodyNotReplayable (and GetBody's error, if it failed) when the
// body stopped a retry after a transport error, backoff.ErrRefused and the
// guard's own error when a guard of WithRequestGuards or WithAttemptGuards
// refused the request or an attempt, and ErrInvalidConfiguration when a
// setting cannot be used: reported before anything is sent, except a
// BackOff that returns a negative wait. When such an error replaces a
// response RoundTrip had to close, or had drained already for the retry
// that was then not made (the context was cancelled during the wait, the
// drain took the time left, or a guard refused the retry), its LastErr is
// that response's *StatusError.
//
// Cancelling the request's context ends a wait at once; RoundTrip then
// closes any response it holds and returns an error matching the context's
// error. If a callback panics (the classifier, an Instrumenter, the
// logger's handler, a guard) or the base RoundTripper does, RoundTrip
// closes every response and body it holds before the panic goes on.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req == nil {
		return nil, &backoff.Error{Cause: settings.Invalid("RoundTrip was given a nil request")}
	}
	if t == nil || t.err != nil || t.policy == nil {
		closeBody(req)
		err := errZero
		if t != nil && t.err != nil {
			err = t.err
		}
		return nil, &backoff.Error{Cause: err}
	}
	c := &call{Context: req.Context(), t: t, req: req}
	c.eligible = t.eligible(req)
	c.replayable = req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	defer c.cleanUp()

	ctx := c.Context
	if t.guarded {
		ctx = c // the guards' context: a HostGuard reads the host from it
	}
	// One attempt: the request goes to the base from here, with nothing of
	// the Transport's between (see TestFramesToTheBase).
	err := t.policy.Attempts(ctx, func(actx context.Context, a backoff.Attempt) error {
		r, d, err := c.begin(actx, a)
		if err != nil {
			return err
		}
		resp, err := t.base.RoundTrip(r)
		return c.received(actx, d, resp, err)
	})
	resp := c.resp
	c.resp = nil
	c.giveUp(err)
	if err == nil {
		return resp, nil // only an attempt that got a response succeeds
	}
	if resp != nil {
		if e := backoff.MarksOf(err).Run; c.Context.Err() == nil && !(e != nil && errors.Is(e.Cause, ErrInvalidConfiguration)) {
			return resp, nil // the last response, unread: the caller gets what the server said
		}
		closeResponse(resp)
	}
	return nil, err
}

// CloseIdleConnections closes the idle connections of the base
// RoundTripper, if it has such a method; http.Client.CloseIdleConnections
// calls it.
func (t *Transport) CloseIdleConnections() {
	if b, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		b.CloseIdleConnections()
	}
}

// eligible reports whether req's method, or an idempotency key, lets it be
// retried, as net/http's own replay rule does.
func (t *Transport) eligible(req *http.Request) bool {
	m := req.Method
	if m == "" {
		m = http.MethodGet
	}
	if slices.Contains(t.methods, m) {
		return true
	}
	for _, h := range t.idemHeaders {
		if _, ok := req.Header[h]; ok {
			return true
		}
	}
	return false
}

// call is the state of one RoundTrip. It is also the context the guards
// of a Transport run with: the request's, which answers hostKey.
type call struct {
	context.Context                // the request's
	t               *Transport     //
	req             *http.Request  //
	eligible        bool           // the method or an idempotency key allows a retry
	replayable      bool           // the body can be recreated
	sent            bool           // req, and so its body, went to the base
	number          int            // the number of the attempt that ran last (backoff.Attempt's)
	next            io.ReadCloser  // the next attempt's body, from GetBody
	resp            *http.Response // the last attempt's response, while the call holds it
	retried         *StatusError   // the last attempt's, if it asked for a retry
	failing         bool           // the last attempt failed for a reason worth a retry
	stopped         bool           // the last response said not to retry
}

// cleanUp closes what the call still holds when RoundTrip returns, or when
// a panic goes through it: the caller's body if it was never sent, a
// retry's body that was prepared and not used, and a response that is not
// handed to the caller. It also unlinks the last *StatusError from the
// call, so that an error the caller keeps holds nothing of it.
func (c *call) cleanUp() {
	if !c.sent {
		closeBody(c.req)
	}
	if c.next != nil {
		c.next.Close()
		c.next = nil
	}
	if c.resp != nil {
		closeResponse(c.resp)
		c.resp = nil
	}
	if c.retried != nil {
		c.retried.call = nil
		c.retried = nil
	}
}

// begin starts attempt a, whose context is actx: it returns the request
// to send, and, when a per-attempt timeout may cancel actx before the
// caller has read the body, the detached context it is sent with.
func (c *call) begin(actx context.Context, a backoff.Attempt) (*http.Request, *detached, error) {
	c.number = a.Number
	if c.resp != nil { // discardRetried took it unless the retry stage broke its word
		closeResponse(c.resp)
		c.resp = nil
	}
	rctx, d := actx, (*detached)(nil)
	if c.t.detach {
		rctx, d = detach(actx)
	}
	r, err := c.request(rctx)
	if err != nil {
		if d != nil {
			d.release()
		}
		return nil, nil, backoff.Permanent(err)
	}
	c.sent = true
	if c.t.hopHeaders {
		c.hopHeader(actx, r.Header)
	}
	c.failing, c.stopped = false, false
	return r, d, nil
}

// received judges what the base returned for the attempt whose context
// is actx, sent with d's context if d is not nil. The call holds the
// response until RoundTrip hands it to the caller, discardRetried discards
// it before a retry, or cleanUp closes it; judge says whether it is
// retried.
func (c *call) received(actx context.Context, d *detached, resp *http.Response, err error) error {
	if d != nil {
		d.attach(c.Context, resp, err)
	}
	if err != nil {
		if resp != nil && resp.Body != nil { // the base broke its contract
			resp.Body.Close()
		}
		return c.failed(err)
	}
	if resp == nil {
		return backoff.Permanent(errNilResponse)
	}
	c.resp = resp
	if c.t.status {
		recordStatus(actx, resp.StatusCode)
	}
	return c.judge(resp)
}

// judge judges the response the call holds: nil hands it to the caller; a
// *StatusError retries it, or, marked Permanent, stops with it. The
// *StatusError of a retry links back to the call, so that the Notify hook
// can discard the response (see discardRetried).
func (c *call) judge(resp *http.Response) error {
	if !c.t.retryable(c.req, resp, nil) {
		return nil
	}
	c.failing = true
	serr := &StatusError{Method: method(c.req), URL: redactURL(c.req.URL), StatusCode: resp.StatusCode}
	switch {
	case c.Context.Err() != nil:
		return serr // the driver reports the context
	case c.stop(resp, serr):
		return serr // the driver stops: the server asked for no retry
	case c.last():
		return serr // the driver reports the context, or the budget
	case !c.eligible:
		serr.reason = errMethodNotReplayable
		return backoff.Permanent(serr)
	case !c.replayable:
		serr.reason = ErrBodyNotReplayable
		return backoff.Permanent(serr)
	}
	var wait time.Duration
	retryAfter := false
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		wait, retryAfter = c.t.retryAfter(resp)
		if retryAfter && wait > c.t.maxRetryAfter {
			serr.RetryAfter = wait
			serr.reason = &retryAfterTooLongError{wait: wait, max: c.t.maxRetryAfter}
			return backoff.Permanent(serr)
		}
	}
	if err := c.prepare(); err != nil {
		serr.reason = err
		return backoff.Permanent(serr)
	}
	serr.call, c.retried = c, serr
	if retryAfter {
		serr.RetryAfter = wait
		return backoff.RetryAfter(RetryAfterWait(wait, c.t.random()), serr)
	}
	return serr
}

// discardRetried is the Notify hook of every Transport's retry stage (see
// config.retryOptions): the driver calls it after an attempt it will
// retry, before the wait, and checks its time limits again after it. If
// the attempt got a response, the hook finds the call that holds it
// through the attempt's *StatusError (the error as the driver reads it:
// backoff.MarksOf's Last, what a named wait wraps) and discards it:
// the body is drained, so that the connection can be reused, and closed.
// From then on the call holds no response, so a run that stops before the
// retry (the context is cancelled during the wait, or the drain took the
// time that was left) returns its error, never a closed response.
func discardRetried(err error, _ time.Duration) {
	serr, _ := backoff.MarksOf(err).Last.(*StatusError) // what judge returns for a retry
	if serr == nil || serr.call == nil {
		return // a transport error: there is no response
	}
	c := serr.call
	serr.call, c.retried = nil, nil
	if resp := c.resp; resp != nil {
		c.resp = nil // before the drain: a panic in it closes nothing twice
		drain(resp, c.t.clock)
	}
}

// request returns the request for the next attempt: a clone of the
// caller's, so that nothing the base does to it reaches the caller's
// request or a later attempt, with the caller's body for the first attempt
// and the one prepare obtained for a retry.
func (c *call) request(actx context.Context) (*http.Request, error) {
	r := c.req.Clone(actx)
	if !c.sent || c.req.Body == nil || c.req.Body == http.NoBody {
		return r, nil
	}
	if c.next == nil { // every path to a retry calls prepare
		if err := c.prepare(); err != nil {
			return nil, err
		}
	}
	r.Body, c.next = c.next, nil
	return r, nil
}

// prepare obtains the next attempt's body from GetBody, before the driver
// is told that the attempt may be retried, so that a body that cannot be
// recreated stops the retries while the response or the error that called
// for them can still be handed to the caller. It returns a *getBodyError
// if GetBody fails.
func (c *call) prepare() error {
	if c.req.Body == nil || c.req.Body == http.NoBody {
		return nil
	}
	if c.next != nil {
		c.next.Close()
		c.next = nil
	}
	body, err := c.req.GetBody()
	if err != nil || body == nil {
		if body != nil {
			body.Close()
		}
		if err != nil {
			err = redactError(err, c.req.URL)
		}
		return &getBodyError{err: err}
	}
	c.next = body
	return nil
}

// failed classifies a transport error for the driver.
func (c *call) failed(err error) error {
	transient := c.t.retryable(c.req, nil, err)
	c.failing = transient
	refused := refusedStream(err)
	err = redactError(err, c.req.URL)
	switch {
	case c.Context.Err() != nil:
		return err // the driver reports the context
	case !transient:
		return backoff.Permanent(err)
	case c.last():
		return err // the driver reports the exhausted budget
	case !c.eligible && !refused:
		return backoff.Permanent(err)
	case !c.replayable:
		return backoff.Permanent(&notReplayableError{err: err, reason: ErrBodyNotReplayable})
	}
	if gerr := c.prepare(); gerr != nil {
		return backoff.Permanent(&notReplayableError{err: err, reason: gerr})
	}
	return err
}

// last reports whether the attempt that just ended was the last one the
// retry stage's budget allows, so that no other reason for not retrying
// applies.
func (c *call) last() bool { return c.t.maxTries > 0 && uint(c.number) >= c.t.maxTries }

func method(req *http.Request) string {
	if req.Method == "" {
		return http.MethodGet
	}
	return req.Method
}

func closeResponse(resp *http.Response) {
	if resp.Body != nil {
		resp.Body.Close()
	}
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
