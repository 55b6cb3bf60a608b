package httpretry

import (
	"context"
	"io"
	"net/http"
)

// detached is the context an attempt is sent with when WithAttemptTimeout
// bounds it. The timeout cancels the attempt's context as soon as the
// attempt returns, which would cut off the body of the response the caller
// is about to read. So the request goes with a context of its own, which
// carries the attempt's values and follows the attempt's cancellation
// while the attempt runs, then only the caller's, until the response's
// body is closed. An attempt whose context is done exactly when the
// caller's is (the same Done channel) needs none of this.
type detached struct {
	cancel context.CancelCauseFunc
	stop   func() bool // stops following the context it follows
}

// detach returns the context to send an attempt with, whose context is
// actx, and its detached.
func detach(actx context.Context) (context.Context, *detached) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(actx))
	d := &detached{cancel: cancel}
	d.stop = context.AfterFunc(actx, func() { cancel(context.Cause(actx)) })
	return ctx, d
}

// returned makes the context follow caller, the request's own context,
// instead of the attempt's, once the attempt has returned. caller is an
// ancestor of the attempt's context, so no cancellation falls between
// the two.
func (d *detached) returned(caller context.Context) {
	d.stop()
	d.stop = context.AfterFunc(caller, func() { d.cancel(context.Cause(caller)) })
}

// attach is what the attempt does with d once the base has returned resp
// and err: the context follows caller, the request's own, from then on
// (see returned), until resp's body is closed; with no body to read, it
// is released at once.
func (d *detached) attach(caller context.Context, resp *http.Response, err error) {
	d.returned(caller)
	if err != nil || resp == nil || resp.Body == nil {
		d.release()
		return
	}
	resp.Body = d.wrap(resp.Body)
}

// release cancels the context, and stops following any other: the
// response is gone, or there is none. It may be called more than once,
// and from several goroutines at once.
func (d *detached) release() {
	d.stop()
	d.cancel(context.Canceled)
}

// wrap returns body, which releases d when it is closed. A body that can
// be written to, as that of a 101 Switching Protocols response is, keeps
// its Write method.
func (d *detached) wrap(body io.ReadCloser) io.ReadCloser {
	if w, ok := body.(io.ReadWriteCloser); ok {
		return &detachedReadWriter{detachedBody{ReadCloser: body, d: d}, w}
	}
	return &detachedBody{ReadCloser: body, d: d}
}

// detachedBody is the body of a response sent with a detached context.
type detachedBody struct {
	io.ReadCloser
	d *detached
}

// Close closes the body, then releases its context.
func (b *detachedBody) Close() error {
	err := b.ReadCloser.Close()
	b.d.release()
	return err
}

// detachedReadWriter is a detachedBody that can be written to.
type detachedReadWriter struct {
	detachedBody
	w io.Writer
}

func (b *detachedReadWriter) Write(p []byte) (int, error) { return b.w.Write(p) }
