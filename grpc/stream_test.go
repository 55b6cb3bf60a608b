package grpcbackoff_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// streamClient returns a client whose streams go through the interceptor,
// with at most n attempts on clk, and opts.
func streamClient(t *testing.T, e *echo, clk *spectest.Clock, n uint, opts ...grpcbackoff.Option) *grpc.ClientConn {
	t.Helper()
	return dial(t, serve(t, e), grpc.WithStreamInterceptor(grpcbackoff.StreamClientInterceptor(append([]grpcbackoff.Option{retrying(clk, n)}, opts...)...)))
}

// watch opens a server stream with the request in, and reads it to its
// end (see readAll).
func watch(ctx context.Context, cc *grpc.ClientConn, in string) ([]string, error) {
	cs, err := cc.NewStream(ctx, watchDesc, watchMethod)
	if err != nil {
		return nil, err
	}
	if err := cs.SendMsg(wrapperspb.String(in)); err != nil {
		return nil, err
	}
	if err := cs.CloseSend(); err != nil {
		return nil, err
	}
	return readAll(cs)
}

// readAll reads cs to its end: the messages, and the error that ended it
// (nil for io.EOF).
func readAll(cs grpc.ClientStream) ([]string, error) {
	var got []string
	for {
		m := new(wrapperspb.StringValue)
		if err := cs.RecvMsg(m); err != nil {
			if err == io.EOF {
				err = nil
			}
			return got, err
		}
		got = append(got, m.GetValue())
	}
}

// send sends the strings in order on ss.
func send(ss grpc.ServerStream, vals ...string) error {
	for _, v := range vals {
		if err := ss.SendMsg(wrapperspb.String(v)); err != nil {
			return err
		}
	}
	return nil
}

// A server stream that fails before the server sent anything is retried:
// the request is sent again, and the caller reads the second attempt's
// messages as if nothing had happened.
func TestStreamRetriedBeforeCommit(t *testing.T) {
	e := &echo{watch: func(n int, in string, ss grpc.ServerStream) error {
		if n == 1 {
			return unavailable() // trailers only: no header, no message
		}
		return send(ss, in+"1", in+"2", in+"3")
	}}
	clk := spectest.NewClock()
	cc := streamClient(t, e, clk, 3)
	var got []string
	var err error
	spectest.Drive(t, clk, nil, func() { got, err = watch(context.Background(), cc, "x") })
	if err != nil || !slices.Equal(got, []string{"x1", "x2", "x3"}) {
		t.Fatalf("watch = %q, %v; want x1 x2 x3, nil", got, err)
	}
	calls := e.calls()
	if len(calls) != 2 || calls[1].in != "x" {
		t.Fatalf("the server saw %+v, want two streams, the second with the request again", calls)
	}
	if got, want := attemptsSeen(e), []string{"", "1"}; !slices.Equal(got, want) {
		t.Errorf("grpc-previous-rpc-attempts %q, want %q", got, want)
	}
}

// A stream is committed once the client received a message, or the
// server's headers: its failure then is the call's, never retried.
func TestStreamCommitted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		watch func(ss grpc.ServerStream) error
		want  []string
	}{
		{"by_a_message", func(ss grpc.ServerStream) error {
			if err := send(ss, "first"); err != nil {
				return err
			}
			return unavailable()
		}, []string{"first"}},
		{"by_headers", func(ss grpc.ServerStream) error {
			if err := ss.SendHeader(metadata.Pairs("x-shard", "7")); err != nil {
				return err
			}
			return unavailable()
		}, nil},
		{"by_empty_headers", func(ss grpc.ServerStream) error {
			if err := ss.SendHeader(nil); err != nil {
				return err
			}
			return unavailable()
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &echo{watch: func(_ int, _ string, ss grpc.ServerStream) error { return tc.watch(ss) }}
			clk := spectest.NewClock()
			cc := streamClient(t, e, clk, 3)
			var got []string
			var err error
			waits := spectest.Drive(t, clk, nil, func() { got, err = watch(context.Background(), cc, "x") })
			wantCode(t, err, codes.Unavailable)
			if !slices.Equal(got, tc.want) {
				t.Errorf("messages %q, want %q", got, tc.want)
			}
			if len(e.calls()) != 1 || len(waits) != 0 {
				t.Errorf("%d streams and waits %v, want 1 and none: a committed stream is not retried", len(e.calls()), waits)
			}
			if be := backoffError(t, err); !errors.Is(be.Cause, backoff.ErrPermanent) {
				t.Errorf("Cause %v, want ErrPermanent", be.Cause)
			}
		})
	}
}

// A bidirectional stream keeps what it sent until it is committed: a
// retry sends it again, in order, CloseSend included, and the messages
// sent later follow on the new stream.
func TestStreamBidiReplay(t *testing.T) {
	e := &echo{chat: func(n int, ss grpc.ServerStream) error {
		if n == 1 { // read two, then fail without a header
			for range 2 {
				if err := ss.RecvMsg(new(wrapperspb.StringValue)); err != nil {
					return err
				}
			}
			return unavailable()
		}
		return echoAll(ss)
	}}
	clk := spectest.NewClock()
	cc := streamClient(t, e, clk, 3)
	var got []string
	var err error
	spectest.Drive(t, clk, nil, func() {
		var cs grpc.ClientStream
		cs, err = cc.NewStream(context.Background(), chatDesc, chatMethod)
		if err != nil {
			return
		}
		for _, v := range []string{"a", "b"} {
			if err = cs.SendMsg(wrapperspb.String(v)); err != nil {
				return
			}
		}
		// The first attempt fails here; RecvMsg retries, and the server
		// echoes a and b again.
		for range 2 {
			m := new(wrapperspb.StringValue)
			if err = cs.RecvMsg(m); err != nil {
				return
			}
			got = append(got, m.GetValue())
		}
		if err = cs.SendMsg(wrapperspb.String("c")); err != nil {
			return
		}
		if err = cs.CloseSend(); err != nil {
			return
		}
		var rest []string
		rest, err = readAll(cs)
		got = append(got, rest...)
	})
	if err != nil || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("chat = %q, %v; want a b c, nil", got, err)
	}
	if len(e.calls()) != 2 {
		t.Errorf("the server saw %d streams, want 2", len(e.calls()))
	}
}

// The messages a stream keeps are copies: the caller may reuse its message
// once SendMsg has returned, and the retry sends what was sent.
func TestStreamKeepsCopies(t *testing.T) {
	e := &echo{watch: func(n int, in string, ss grpc.ServerStream) error {
		if n == 1 {
			return unavailable()
		}
		return send(ss, in)
	}}
	clk := spectest.NewClock()
	cc := streamClient(t, e, clk, 3)
	var got []string
	var err error
	spectest.Drive(t, clk, nil, func() {
		var cs grpc.ClientStream
		if cs, err = cc.NewStream(context.Background(), watchDesc, watchMethod); err != nil {
			return
		}
		m := wrapperspb.String("original")
		if err = cs.SendMsg(m); err != nil {
			return
		}
		m.Value = "changed after SendMsg"
		if err = cs.CloseSend(); err != nil {
			return
		}
		got, err = readAll(cs)
	})
	if err != nil || !slices.Equal(got, []string{"original"}) {
		t.Fatalf("got %q, %v; want the message as it was sent", got, err)
	}
}

// Sent messages that outgrow WithMaxStreamBuffer commit the stream: its
// failure is then not retried.
func TestStreamBufferOverflowCommits(t *testing.T) {
	e := &echo{watch: func(int, string, grpc.ServerStream) error { return unavailable() }}
	clk := spectest.NewClock()
	cc := streamClient(t, e, clk, 3, grpcbackoff.WithMaxStreamBuffer(16))
	var err error
	waits := spectest.Drive(t, clk, nil, func() { _, err = watch(context.Background(), cc, strings.Repeat("x", 64)) })
	wantCode(t, err, codes.Unavailable)
	if len(e.calls()) != 1 || len(waits) != 0 {
		t.Errorf("%d streams and waits %v, want 1 and none", len(e.calls()), waits)
	}
}

// Header retries an attempt that ended without headers, and returns the
// next attempt's; the stream is then committed.
func TestStreamHeaderRetries(t *testing.T) {
	e := &echo{watch: func(n int, in string, ss grpc.ServerStream) error {
		if n == 1 {
			return unavailable()
		}
		if err := ss.SendHeader(metadata.Pairs("x-attempt", "2")); err != nil {
			return err
		}
		return send(ss, in)
	}}
	clk := spectest.NewClock()
	cc := streamClient(t, e, clk, 3)
	var md metadata.MD
	var got []string
	var err error
	spectest.Drive(t, clk, nil, func() {
		var cs grpc.ClientStream
		if cs, err = cc.NewStream(context.Background(), watchDesc, watchMethod); err != nil {
			return
		}
		if err = cs.SendMsg(wrapperspb.String("x")); err != nil {
			return
		}
		if err = cs.CloseSend(); err != nil {
			return
		}
		if md, err = cs.Header(); err != nil {
			return
		}
		got, err = readAll(cs)
	})
	if err != nil || !slices.Equal(md.Get("x-attempt"), []string{"2"}) || !slices.Equal(got, []string{"x"}) {
		t.Fatalf("header %v, messages %q, err %v; want the second attempt's", md, got, err)
	}
}

// A stream's failure after the Policy gave up reads as the last attempt's
// status, with the server's pushback obeyed between attempts.
func TestStreamPushback(t *testing.T) {
	e := &echo{watch: func(n int, in string, ss grpc.ServerStream) error {
		if n == 1 {
			ss.SetTrailer(metadata.Pairs(grpcbackoff.PushbackKey, "2500"))
			return unavailable()
		}
		if n == 2 {
			ss.SetTrailer(metadata.Pairs(grpcbackoff.PushbackKey, "-1"))
			return status.Error(codes.Unavailable, "go away")
		}
		return send(ss, in)
	}}
	clk := spectest.NewClock()
	cc := streamClient(t, e, clk, 5)
	var err error
	waits := spectest.Drive(t, clk, nil, func() { _, err = watch(context.Background(), cc, "x") })
	wantCode(t, err, codes.Unavailable)
	if status.Convert(err).Message() != "go away" {
		t.Errorf("message %q, want the last attempt's", status.Convert(err).Message())
	}
	if be := backoffError(t, err); !errors.Is(be.Cause, backoff.ErrRetriesCanceled) {
		t.Errorf("Cause %v, want ErrRetriesCanceled", be.Cause)
	}
	if len(waits) != 1 || waits[0].Milliseconds() != 2500 || len(e.calls()) != 2 {
		t.Errorf("waits %v, %d streams; want the pushback's 2.5s and 2", waits, len(e.calls()))
	}
}

// A stream whose caller cancels it ends, with CANCELLED, and leaves no
// goroutine behind (goleak, when the test ends).
func TestStreamCallerCancel(t *testing.T) {
	started := make(chan struct{})
	e := &echo{watch: func(_ int, _ string, ss grpc.ServerStream) error {
		close(started)
		<-ss.Context().Done()
		return ss.Context().Err()
	}}
	clk := spectest.NewClock()
	cc := streamClient(t, e, clk, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var err error
	spectest.Drive(t, clk, nil, func() {
		go func() {
			<-started
			cancel()
		}()
		_, err = watch(ctx, cc, "x")
	})
	wantCode(t, err, codes.Canceled)
	if len(e.calls()) != 1 {
		t.Errorf("the server saw %d streams, want 1", len(e.calls()))
	}
}

// A stream the caller never reads to its end ends when the ClientConn
// closes, and so does the goroutine that runs its Policy (goleak, when the
// test ends).
func TestStreamEndsWithTheClientConn(t *testing.T) {
	started := make(chan struct{})
	e := &echo{watch: func(_ int, _ string, ss grpc.ServerStream) error {
		close(started)
		<-ss.Context().Done()
		return nil
	}}
	clk := spectest.NewClock()
	cc := streamClient(t, e, clk, 3)
	cs, err := cc.NewStream(context.Background(), watchDesc, watchMethod)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.SendMsg(wrapperspb.String("x")); err != nil {
		t.Fatal(err)
	}
	<-started
	if err := cc.Close(); err != nil {
		t.Fatal(err)
	}
	err = cs.RecvMsg(new(wrapperspb.StringValue))
	wantCode(t, err, codes.Canceled)
}

// A server stream whose call has ended before the caller sends its request
// (its context was cancelled while the stream opened) takes the request as
// gRPC's own stream does, with nil, so that the generated code, which
// returns SendMsg's error as the call's, hands the caller the stream, and
// RecvMsg the call's status in a *backoff.Error, not io.EOF. A stream the
// client streams on answers io.EOF, as gRPC's does, and RecvMsg tells how
// it ended.
func TestStreamSendAfterTheCallEnded(t *testing.T) {
	e := &echo{
		watch: func(int, string, grpc.ServerStream) error { return nil },
		chat:  func(int, grpc.ServerStream) error { return nil },
	}
	addr := serve(t, e)
	plain := dial(t, addr)
	clk := spectest.NewClock()
	retried := dial(t, addr, grpc.WithStreamInterceptor(grpcbackoff.StreamClientInterceptor(retrying(clk, 3))))
	for _, tc := range []struct {
		desc   *grpc.StreamDesc
		method string
		want   error
	}{
		{watchDesc, watchMethod, nil},
		{chatDesc, chatMethod, io.EOF},
	} {
		for _, cc := range []*grpc.ClientConn{plain, retried} {
			ctx, cancel := context.WithCancel(context.Background())
			cs, err := cc.NewStream(ctx, tc.desc, tc.method)
			if err != nil {
				t.Fatal(err)
			}
			cancel()
			rerr := cs.RecvMsg(new(wrapperspb.StringValue)) // returns once the call has ended
			wantCode(t, rerr, codes.Canceled)
			if cc == retried {
				backoffError(t, rerr)
			}
			if err := cs.SendMsg(wrapperspb.String("x")); err != tc.want {
				t.Errorf("%s, interceptor %v: SendMsg after the call ended = %v, want %v", tc.method, cc == retried, err, tc.want)
			}
			if err := cs.RecvMsg(new(wrapperspb.StringValue)); status.Code(err) != codes.Canceled {
				t.Errorf("%s, interceptor %v: RecvMsg after SendMsg = %v, want CANCELLED", tc.method, cc == retried, err)
			}
		}
	}
}

// A server stream cancelled as it opens, as generated code makes it (open,
// send the request, close the sending side, receive): the caller gets
// CANCELLED in a *backoff.Error, never io.EOF, however the cancel and the
// Policy's end fall against SendMsg.
func TestStreamCancelledAsItOpens(t *testing.T) {
	e := &echo{watch: func(_ int, _ string, ss grpc.ServerStream) error {
		<-ss.Context().Done()
		return nil
	}}
	cc := streamClient(t, e, spectest.NewClock(), 3)
	for range 200 {
		ctx, cancel := context.WithCancel(context.Background())
		cs, err := cc.NewStream(ctx, watchDesc, watchMethod)
		if err != nil {
			cancel()
			wantCode(t, err, codes.Canceled)
			continue
		}
		cancel()
		if err = cs.SendMsg(wrapperspb.String("x")); err == nil {
			if err = cs.CloseSend(); err == nil {
				_, err = readAll(cs)
			}
		}
		wantCode(t, err, codes.Canceled)
		backoffError(t, err)
	}
}
