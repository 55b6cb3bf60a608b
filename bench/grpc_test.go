package bench

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"
	"github.com/herdsafe/backoff"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// The attempt budget of the gRPC rows: 3 attempts, a retry stage's
// default and the example of gRFC A6's retryPolicy.
const grpcAttempts = 3

// grpcServiceConfig is gRPC's own retry, as its documentation configures
// it: a retryPolicy for the health service in the default service config.
const grpcServiceConfig = `{"methodConfig": [{
	"name": [{"service": "grpc.health.v1.Health"}],
	"retryPolicy": {
		"maxAttempts": 3,
		"initialBackoff": "0.1s",
		"maxBackoff": "5s",
		"backoffMultiplier": 2,
		"retryableStatusCodes": ["UNAVAILABLE"]
	}
}]}`

// grpcRow is one way to make a unary call: with no retry, or a retrying
// layer configured as its documentation recommends, with 3 attempts.
type grpcRow struct {
	name string
	// dial returns the dial options of the row.
	dial func() []grpc.DialOption
}

var (
	// herdsafeGRPC is the interceptor with its retry stage's defaults but
	// the attempt budget, built once.
	herdsafeGRPC = grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithRetry(backoff.WithMaxTries(grpcAttempts)))
	// middlewareGRPC is go-grpc-middleware's retry interceptor with the
	// attempt budget set when it is built, and its defaults otherwise
	// (UNAVAILABLE and RESOURCE_EXHAUSTED, linear 50 ms waits with ±10%).
	middlewareGRPC = retry.UnaryClientInterceptor(retry.WithMax(grpcAttempts))
)

var grpcRows = []grpcRow{
	{"bare", func() []grpc.DialOption { return nil }},
	{"herdsafe", func() []grpc.DialOption {
		return []grpc.DialOption{grpc.WithUnaryInterceptor(herdsafeGRPC)}
	}},
	{"grpc-middleware", func() []grpc.DialOption {
		return []grpc.DialOption{grpc.WithUnaryInterceptor(middlewareGRPC)}
	}},
	{"grpc-retry", func() []grpc.DialOption {
		return []grpc.DialOption{grpc.WithDefaultServiceConfig(grpcServiceConfig)}
	}},
}

// failingHealth is gRPC's health service, failing the first fail calls of
// Check with UNAVAILABLE.
type failingHealth struct {
	*health.Server
	fail  int64
	calls atomic.Int64
}

func (h *failingHealth) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	if h.calls.Add(1) <= h.fail {
		return nil, status.Error(codes.Unavailable, "not yet")
	}
	return h.Server.Check(ctx, req)
}

// newGRPCServer starts gRPC's health service on a loopback port, failing
// its first fail calls, stopped when the test ends.
func newGRPCServer(tb testing.TB, fail int64) (string, *failingHealth) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	h := &failingHealth{Server: health.NewServer(), fail: fail}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, h)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lis)
	}()
	tb.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return lis.Addr().String(), h
}

// grpcClient dials addr with the row's options.
func grpcClient(tb testing.TB, addr string, opts []grpc.DialOption) healthpb.HealthClient {
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	cc, err := grpc.NewClient("passthrough:///"+addr, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cc.Close() })
	return healthpb.NewHealthClient(cc)
}

// BenchmarkGRPCUnary is the cost of each retrying layer on a successful
// unary call to a loopback server (gRPC's health service), beside the bare
// call: the layer's added cost is its row less the bare row.
func BenchmarkGRPCUnary(b *testing.B) {
	addr, _ := newGRPCServer(b, 0)
	for _, r := range grpcRows {
		b.Run(r.name, func(b *testing.B) {
			c := grpcClient(b, addr, r.dial())
			ctx := context.Background()
			req := &healthpb.HealthCheckRequest{}
			if _, err := c.Check(ctx, req); err != nil { // open the connection
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Check(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGRPCInterceptor is each interceptor's own cost, called with an
// invoker that returns at once: the part of its added cost that is its own
// code, without the network's noise. (gRPC's service-config retry is not an
// interceptor, and has no row; herdsafe's trailer, which gRPC copies for it
// on a real call, is not copied here: GRPCUnary counts it.)
func BenchmarkGRPCInterceptor(b *testing.B) {
	invoker := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return nil }
	for _, r := range []struct {
		name string
		icpt grpc.UnaryClientInterceptor
	}{
		{"bare", func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return invoker(ctx, method, req, reply, cc, opts...)
		}},
		{"herdsafe", herdsafeGRPC},
		{"grpc-middleware", middlewareGRPC},
	} {
		b.Run(r.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := r.icpt(ctx, "/grpc.health.v1.Health/Check", nil, nil, nil, invoker); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The gRPC rows are configured alike: each retries UNAVAILABLE, and makes
// 3 attempts at most. (Here with waits of zero, or next to it for gRPC's
// own retry, whose backoff must be positive, so that the test spends no
// time waiting.)
func TestGRPCRowsAlike(t *testing.T) {
	rows := []grpcRow{
		{"herdsafe", func() []grpc.DialOption {
			icpt := grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithRetry(backoff.WithMaxTries(grpcAttempts), backoff.WithBackOff(&backoff.ZeroBackOff{})))
			return []grpc.DialOption{grpc.WithUnaryInterceptor(icpt)}
		}},
		{"grpc-middleware", func() []grpc.DialOption {
			return []grpc.DialOption{grpc.WithUnaryInterceptor(retry.UnaryClientInterceptor(retry.WithMax(grpcAttempts), retry.WithBackoff(retry.BackoffLinear(0))))}
		}},
		{"grpc-retry", func() []grpc.DialOption {
			return []grpc.DialOption{grpc.WithDefaultServiceConfig(strings.NewReplacer(`"0.1s"`, `"0.000000001s"`, `"5s"`, `"0.000000001s"`).Replace(grpcServiceConfig))}
		}},
	}
	for _, r := range rows {
		for _, tc := range []struct {
			fail int64
			ok   bool
		}{{2, true}, {3, false}} {
			t.Run(fmt.Sprintf("%s/fail_%d", r.name, tc.fail), func(t *testing.T) {
				addr, h := newGRPCServer(t, tc.fail)
				c := grpcClient(t, addr, r.dial())
				_, err := c.Check(context.Background(), &healthpb.HealthCheckRequest{})
				if (err == nil) != tc.ok {
					t.Fatalf("err %v, want success: %v", err, tc.ok)
				}
				if !tc.ok && status.Code(err) != codes.Unavailable {
					t.Errorf("code %v, want the last attempt's UNAVAILABLE", status.Code(err))
				}
				if got := h.calls.Load(); got != grpcAttempts {
					t.Errorf("%d attempts, want %d", got, grpcAttempts)
				}
			})
		}
	}
}
