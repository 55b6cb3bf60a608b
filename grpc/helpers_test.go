package grpcbackoff_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The test service, test.Echo, registered by hand with a grpc.ServiceDesc:
// a unary method, a server stream and a bidirectional stream, on the
// wrapperspb.StringValue messages protobuf ships, so that there is no
// generated code to maintain.
const (
	callMethod  = "/test.Echo/Call"
	watchMethod = "/test.Echo/Watch"
	chatMethod  = "/test.Echo/Chat"
)

var (
	watchDesc = &grpc.StreamDesc{StreamName: "Watch", ServerStreams: true}
	chatDesc  = &grpc.StreamDesc{StreamName: "Chat", ServerStreams: true, ClientStreams: true}
)

// echo is the service: each method runs the test's function with the
// number of the call (from 1), and records what every call saw.
type echo struct {
	unary func(ctx context.Context, n int, in string) (string, error)
	watch func(n int, in string, ss grpc.ServerStream) error
	chat  func(n int, ss grpc.ServerStream) error

	mu   sync.Mutex
	seen []seen
}

// seen is what the server saw of one call.
type seen struct {
	method   string
	attempts []string // its grpc-previous-rpc-attempts
	deadline time.Time
	in       string // the request of a unary call or a server stream
}

func (e *echo) record(ctx context.Context, method, in string) int {
	md, _ := metadata.FromIncomingContext(ctx)
	dl, _ := ctx.Deadline()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, seen{method: method, attempts: md.Get("grpc-previous-rpc-attempts"), deadline: dl, in: in})
	n := 0
	for _, s := range e.seen {
		if s.method == method {
			n++
		}
	}
	return n
}

// calls returns what the server saw of every call so far.
func (e *echo) calls() []seen {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]seen(nil), e.seen...)
}

var echoDesc = grpc.ServiceDesc{
	ServiceName: "test.Echo",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Call",
		Handler: func(srv any, ctx context.Context, dec func(any) error, icpt grpc.UnaryServerInterceptor) (any, error) {
			in := new(wrapperspb.StringValue)
			if err := dec(in); err != nil {
				return nil, err
			}
			e := srv.(*echo)
			h := func(ctx context.Context, req any) (any, error) {
				v := req.(*wrapperspb.StringValue).GetValue()
				n := e.record(ctx, callMethod, v)
				if e.unary == nil {
					return wrapperspb.String(v), nil
				}
				out, err := e.unary(ctx, n, v)
				if err != nil {
					return nil, err
				}
				return wrapperspb.String(out), nil
			}
			if icpt == nil {
				return h(ctx, in)
			}
			return icpt(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: callMethod}, h)
		},
	}},
	Streams: []grpc.StreamDesc{
		{
			StreamName:    "Watch",
			ServerStreams: true,
			Handler: func(srv any, ss grpc.ServerStream) error {
				in := new(wrapperspb.StringValue)
				if err := ss.RecvMsg(in); err != nil {
					return err
				}
				e := srv.(*echo)
				n := e.record(ss.Context(), watchMethod, in.GetValue())
				if e.watch == nil {
					return ss.SendMsg(in)
				}
				return e.watch(n, in.GetValue(), ss)
			},
		},
		{
			StreamName:    "Chat",
			ServerStreams: true,
			ClientStreams: true,
			Handler: func(srv any, ss grpc.ServerStream) error {
				e := srv.(*echo)
				n := e.record(ss.Context(), chatMethod, "")
				if e.chat == nil {
					return echoAll(ss)
				}
				return e.chat(n, ss)
			},
		},
	},
}

// echoAll sends back every message it receives, until the client closes.
func echoAll(ss grpc.ServerStream) error {
	for {
		in := new(wrapperspb.StringValue)
		if err := ss.RecvMsg(in); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if err := ss.SendMsg(in); err != nil {
			return err
		}
	}
}

// serve starts a gRPC server of e on a loopback port, stopped when the
// test ends; the test then fails if any goroutine outlives the server and
// its clients.
func serve(t *testing.T, e *echo, opts ...grpc.ServerOption) string {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) }) // first registered, so run last
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(opts...)
	srv.RegisterService(&echoDesc, e)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lis)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return lis.Addr().String()
}

// dial returns a client of the server at addr, closed when the test ends.
func dial(t *testing.T, addr string, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	cc, err := grpc.NewClient("passthrough:///"+addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// call makes a unary call of test.Echo/Call.
func call(ctx context.Context, cc grpc.ClientConnInterface, in string, opts ...grpc.CallOption) (string, error) {
	out := new(wrapperspb.StringValue)
	err := cc.Invoke(ctx, callMethod, wrapperspb.String(in), out, opts...)
	return out.GetValue(), err
}

// retrying returns the retry stage's options of the tests: on clk, at
// most n attempts, with a constant wait of one second between them.
func retrying(clk *spectest.Clock, n uint) grpcbackoff.Option {
	return grpcbackoff.WithRetry(
		backoff.WithClock(clk),
		backoff.WithMaxTries(n),
		backoff.WithBackOff(backoff.NewConstantBackOff(time.Second)),
	)
}

// backoffError returns the *backoff.Error err unwraps to, or fails.
func backoffError(t *testing.T, err error) *backoff.Error {
	t.Helper()
	var be *backoff.Error
	if !errors.As(err, &be) {
		t.Fatalf("error %v (%T) does not unwrap to a *backoff.Error", err, err)
	}
	return be
}

// wantCode fails unless err carries the status code want.
func wantCode(t *testing.T, err error, want codes.Code) {
	t.Helper()
	if got := status.Code(err); got != want {
		t.Fatalf("status code %v, want %v (error %v)", got, want, err)
	}
}

// unavailable is the error of a server that cannot take the call.
func unavailable() error { return status.Error(codes.Unavailable, "try later") }

// attemptsSeen returns the grpc-previous-rpc-attempts of each call the
// server saw, "" for none.
func attemptsSeen(e *echo) []string {
	var out []string
	for _, s := range e.calls() {
		v := ""
		if len(s.attempts) > 0 {
			v = s.attempts[0]
		}
		out = append(out, v)
	}
	return out
}
