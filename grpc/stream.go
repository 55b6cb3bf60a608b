package grpcbackoff

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/herdsafe/backoff"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// StreamClientInterceptor returns an interceptor that runs each stream
// through the guards and the retry stage its options place (see Option).
// An attempt is a stream, opened with the rest of the interceptor chain,
// from its opening to its end: the guards see each attempt's stream for as
// long as it lasts (a bulkhead's slot is held until it ends, a breaker
// learns how it ended), and WithAttemptTimeout bounds each stream's whole
// life. Before the stream is committed (gRFC A6: the client has received a
// message or the server's headers, or its sent messages outgrew
// WithMaxStreamBuffer) a failed attempt is judged as a unary attempt is,
// and retried: a new stream is opened, the messages sent so far are sent
// again, and CloseSend too if it was called, and the caller's RecvMsg,
// Header or SendMsg goes on, on the new stream, as if nothing had happened.
// Once committed, the stream is never retried: its failure is the call's.
//
// The interceptor returns once the first attempt's stream is open (opening
// is retried too, as gRPC's own retries do); it fails, with an error as
// UnaryClientInterceptor describes, if no attempt could open one. The
// returned stream's RecvMsg, and SendMsg for an error of the client's own,
// return such an error when the call fails; io.EOF means what it means for
// any stream. Once the call has ended, SendMsg answers as gRPC's own
// stream does: io.EOF on a stream the client streams on, nil on a server
// stream (whose generated code would otherwise return io.EOF as the call's
// error), and RecvMsg returns the call's error.
//
// The stream keeps the contract of grpc.ClientStream: one goroutine may
// call SendMsg while another calls RecvMsg. It runs its attempts on a
// goroutine of its own, which ends when the call does; to end it, do what
// ends any gRPC stream: cancel its context, read until RecvMsg returns an
// error, or close the ClientConn. Streams are never hedged: WithHedging
// applies to unary calls.
//
// An invalid option makes every stream fail with INTERNAL before anything
// is sent.
func StreamClientInterceptor(opts ...Option) grpc.StreamClientInterceptor {
	c := newConfig("StreamClientInterceptor", opts)
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, callOpts ...grpc.CallOption) (grpc.ClientStream, error) {
		if c.err != nil {
			return nil, invalid(c.err)
		}
		s := &stream{c: c, ctx: ctx, desc: desc, cc: cc, method: method, streamer: streamer, opts: callOpts, changed: make(chan struct{})}
		go s.run()
		s.mu.Lock()
		for s.cur == nil && !s.done {
			s.waitLocked()
		}
		cur, err := s.cur, s.final
		s.mu.Unlock()
		if cur == nil {
			if err == nil { // cannot be: the stages are guards, a retry stage and a timeout
				err = invalid(fmt.Errorf("%w: grpcbackoff: the call of %s ended without opening a stream", backoff.ErrInvalidConfiguration, method))
			}
			return nil, err
		}
		return s, nil
	}
}

// errCommitted is the refusal of a retry of a stream that was committed
// while it waited for the retry: it stops the retry stage.
var errCommitted = fmt.Errorf("%w: grpcbackoff: the stream was committed before it could be retried: its sent messages outgrew WithMaxStreamBuffer, or could not be copied", backoff.ErrRefused)

// stream is a retrying grpc.ClientStream: the stream of its current
// attempt, and what it takes to make another.
type stream struct {
	c        *config
	ctx      context.Context // the caller's
	desc     *grpc.StreamDesc
	cc       *grpc.ClientConn
	method   string
	streamer grpc.Streamer
	opts     []grpc.CallOption

	sendMu sync.Mutex // held by SendMsg and CloseSend, and by a new attempt while it sends the kept messages again
	recvMu sync.Mutex // held while RecvMsg receives, so that Header's look at a failed attempt receives alone

	mu        sync.Mutex
	cur       *attempt      // the current attempt, or the last one; nil until one is open
	changed   chan struct{} // closed when cur or done changes
	done      bool          // the policy has returned
	final     error         // the call's error, once done; nil for a stream that ended well
	committed bool
	buf       []any // copies of the messages sent, to send them again
	bufBytes  int
	closeSend bool
}

// attempt is one attempt's stream, and the way its outcome reaches the
// goroutine that runs the policy.
type attempt struct {
	cs       grpc.ClientStream
	reported atomic.Bool
	end      chan end   // the first outcome reported
	finished chan error // the status gRPC ended the stream with (grpc.OnFinish)
}

// finish receives the stream's status from gRPC, when the stream ends.
func (a *attempt) finish(err error) {
	select {
	case a.finished <- err:
	default:
	}
}

// end is how an attempt ended, as the stream's methods saw it.
type end struct {
	err       error // nil: the stream ended well
	committed bool  // the stream was committed when it ended
	trailer   bool  // the stream has ended, so its trailer may be read
}

// report hands the attempt's outcome to the policy's goroutine: the first
// report counts, later ones are dropped.
func (a *attempt) report(e end) {
	if a.reported.CompareAndSwap(false, true) {
		a.end <- e
	}
}

// waitLocked waits, with s.mu held, until cur or done changes.
func (s *stream) waitLocked() {
	ch := s.changed
	s.mu.Unlock()
	<-ch
	s.mu.Lock()
}

// changedLocked wakes every goroutine waiting on a change.
func (s *stream) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// run runs the call's attempts through the interceptor's policy, on the
// stream's goroutine.
func (s *stream) run() {
	err := s.c.policy.Attempts(s.ctx, s.attempt)
	s.mu.Lock()
	s.done = true
	if err != nil {
		s.final = failure(s.ctx, err)
	}
	s.changedLocked()
	s.mu.Unlock()
}

// attempt makes the attempt at, with the attempt's context actx: it opens
// a stream, sends the kept messages again, makes it the current attempt,
// and returns its outcome, judged, once it has ended.
func (s *stream) attempt(actx context.Context, at backoff.Attempt) error {
	n := at.Number
	if n > 1 {
		s.mu.Lock()
		committed := s.committed
		s.mu.Unlock()
		if committed {
			return errCommitted
		}
	}
	actx = numbered(actx, n)
	// The attempt's own cancel ends its stream, whatever the policy's
	// context does, once the attempt is over.
	actx, cancel := context.WithCancel(actx)
	defer cancel()
	a := &attempt{end: make(chan end, 1), finished: make(chan error, 1)}
	opts := append(s.opts[:len(s.opts):len(s.opts)], grpc.OnFinish(a.finish))
	cs, err := s.streamer(actx, s.desc, s.cc, s.method, opts...)
	if err != nil {
		return s.c.judge(s.ctx, actx, err, nil)
	}
	a.cs = cs

	s.sendMu.Lock()
	s.mu.Lock()
	if n > 1 && s.committed { // committed since the check above
		s.mu.Unlock()
		s.sendMu.Unlock()
		return errCommitted
	}
	kept, closeSend := s.buf, s.closeSend
	s.cur = a
	s.changedLocked()
	s.mu.Unlock()
	var serr error
	for _, m := range kept {
		if serr = cs.SendMsg(m); serr != nil {
			break
		}
	}
	if serr == nil && closeSend {
		serr = cs.CloseSend()
	}
	s.sendMu.Unlock()
	if serr != nil && serr != io.EOF { // io.EOF: the stream ended, and RecvMsg says how
		a.report(end{err: serr})
	}

	var e end
	select {
	case e = <-a.end:
	case <-actx.Done():
		e = s.ended(a, actx)
	case err := <-a.finished:
		if s.cc != nil && s.cc.GetState() == connectivity.Shutdown {
			e = end{err: err, committed: true} // the ClientConn is closing: nothing to retry on
			break
		}
		// The stream ended in a call of the caller's, which reports what it
		// saw.
		select {
		case e = <-a.end:
		case <-actx.Done():
			e = s.ended(a, actx)
		}
	}
	if e.err == nil {
		return nil
	}
	if e.committed {
		return backoff.Permanent(e.err)
	}
	var trailer metadata.MD
	if e.trailer {
		trailer = cs.Trailer()
	}
	return s.c.judge(s.ctx, actx, e.err, trailer)
}

// ended returns the outcome of attempt a, whose context actx is done: the
// one a method of the stream reported, if it did, else the context's.
func (s *stream) ended(a *attempt, actx context.Context) end {
	select {
	case e := <-a.end:
		return e
	default:
	}
	s.mu.Lock()
	committed := s.committed
	s.mu.Unlock()
	return end{err: status.FromContextError(actx.Err()).Err(), committed: committed}
}

// next waits until the policy has made another attempt than a, or has
// returned, and returns the new attempt, or nil and the call's error
// (io.EOF for a call that ended well).
func (s *stream) next(a *attempt) (*attempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.cur == a && !s.done {
		s.waitLocked()
	}
	if s.done {
		return nil, s.endErrLocked()
	}
	return s.cur, nil
}

// current returns the current attempt, or nil and the call's error once
// the policy has returned.
func (s *stream) current() (*attempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil, s.endErrLocked()
	}
	return s.cur, nil
}

func (s *stream) endErrLocked() error {
	if s.final != nil {
		return s.final
	}
	return io.EOF
}

// commit marks the stream committed: no attempt is made after this one,
// and the messages kept to send again are let go.
func (s *stream) commit() {
	s.mu.Lock()
	s.commitLocked()
	s.mu.Unlock()
}

func (s *stream) commitLocked() {
	s.committed = true
	s.buf, s.bufBytes = nil, 0
}

// committedBy reports whether the stream is committed, after attempt a
// failed: it is if it was already, or if a received the server's headers.
func (s *stream) committedBy(a *attempt) bool {
	s.mu.Lock()
	committed := s.committed
	s.mu.Unlock()
	if !committed {
		if md, _ := a.cs.Header(); md != nil {
			s.commit()
			committed = true
		}
	}
	return committed
}

// RecvMsg receives a message, on the current attempt's stream, and on the
// next attempt's if the current one fails before the stream is committed.
func (s *stream) RecvMsg(m any) error {
	for {
		a, err := s.current()
		if a == nil {
			return err
		}
		s.recvMu.Lock()
		err = a.cs.RecvMsg(m)
		if err == nil {
			s.commit()
			if !s.desc.ServerStreams { // the one response: the call ended well
				a.report(end{})
			}
			s.recvMu.Unlock()
			return nil
		}
		if err == io.EOF { // the stream ended well
			a.report(end{})
		} else {
			a.report(end{err: err, committed: s.committedBy(a), trailer: true})
		}
		s.recvMu.Unlock()
		if _, err := s.next(a); err != nil {
			return err
		}
	}
}

// Header returns the server's headers, from the current attempt, and from
// the next if the current one ends without headers before the stream is
// committed; then the stream is committed. It returns nil and nil, as gRPC
// does, for a stream that ended without headers: RecvMsg then tells how.
func (s *stream) Header() (metadata.MD, error) {
	for {
		s.mu.Lock()
		a, done := s.cur, s.done
		s.mu.Unlock()
		md, err := a.cs.Header()
		if md != nil {
			s.commit()
		}
		if md != nil || err != nil || done {
			return md, err
		}
		// The attempt ended without headers: RecvMsg, receiving nothing,
		// gives its status.
		s.recvMu.Lock()
		if !a.reported.Load() {
			rerr := a.cs.RecvMsg(nil)
			if rerr == io.EOF {
				rerr = nil
			}
			a.report(end{err: rerr, trailer: true})
		}
		s.recvMu.Unlock()
		if next, _ := s.next(a); next == nil {
			return nil, nil
		}
	}
}

// SendMsg sends m on the current attempt's stream, and keeps a copy of it,
// to send it again on a retry, until the stream is committed.
func (s *stream) SendMsg(m any) error {
	s.sendMu.Lock()
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		s.sendMu.Unlock()
		return s.endedSend()
	}
	if !s.committed {
		s.keepLocked(m)
	}
	a, committed := s.cur, s.committed
	s.mu.Unlock()
	err := a.cs.SendMsg(m)
	s.sendMu.Unlock()
	switch {
	case err == nil:
		return nil
	case err == io.EOF && committed:
		return s.endedSend()
	case err == io.EOF:
		return nil // the attempt ended: m is kept for the next, and RecvMsg tells how this one ended
	}
	// An error of the client's own ends the stream.
	a.report(end{err: err, committed: committed})
	if _, err := s.next(a); err != nil {
		return err
	}
	return nil // the next attempt sent m again
}

// endedSend is what SendMsg returns once the call has ended, as gRPC's
// own stream returns it: io.EOF for a stream the client streams on, whose
// caller then learns how it ended from RecvMsg; nil for one it does not
// (a server stream), whose generated code would otherwise hand io.EOF to
// its caller as the call's error, in place of the call's status, which its
// RecvMsg returns.
func (s *stream) endedSend() error {
	if s.desc.ClientStreams {
		return io.EOF
	}
	return nil
}

// keepLocked keeps a copy of m to send again, or commits the stream if it
// cannot.
func (s *stream) keepLocked(m any) {
	pm, ok := m.(proto.Message)
	if !ok {
		s.commitLocked()
		return
	}
	n := proto.Size(pm)
	if s.bufBytes+n > s.c.maxBuffer {
		s.commitLocked()
		return
	}
	s.buf = append(s.buf, proto.Clone(pm))
	s.bufBytes += n
}

// CloseSend closes the sending side of the current attempt's stream, and
// of every later attempt's.
func (s *stream) CloseSend() error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	s.mu.Lock()
	s.closeSend = true
	a, done := s.cur, s.done
	s.mu.Unlock()
	if done {
		return nil
	}
	return a.cs.CloseSend()
}

// Trailer returns the trailer of the current attempt's stream.
func (s *stream) Trailer() metadata.MD {
	s.mu.Lock()
	a := s.cur
	s.mu.Unlock()
	return a.cs.Trailer()
}

// Context returns the context of the current attempt's stream.
func (s *stream) Context() context.Context {
	s.mu.Lock()
	a := s.cur
	s.mu.Unlock()
	return a.cs.Context()
}
