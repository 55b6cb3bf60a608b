package grpcbackoff_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/hedge"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// healthServer starts gRPC's health service on a loopback port, with the
// server options given, and returns its address and a function that stops
// it.
func healthServer(opts ...grpc.ServerOption) (string, func()) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := grpc.NewServer(opts...)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lis)
	}()
	return lis.Addr().String(), func() { srv.Stop(); <-done }
}

// A client whose calls are tried at most 3 times, each attempt given 2 s
// at most, with gRFC A6's retry throttling around each attempt and at most
// 20 calls in flight.
func ExampleUnaryClientInterceptor() {
	addr, stop := healthServer()
	defer stop()

	icpt := grpcbackoff.UnaryClientInterceptor(
		grpcbackoff.WithRetry(backoff.WithMaxTries(3)),
		grpcbackoff.WithCallGuards(bulkhead.New(20)),
		grpcbackoff.WithAttemptGuards(budget.NewTokenBucket(budget.WithIsFailure(grpcbackoff.Codes(codes.Unavailable)))),
		grpcbackoff.WithAttemptTimeout(2*time.Second),
	)
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithChainUnaryInterceptor(icpt),
		grpc.WithDisableRetry(),
	)
	if err != nil {
		panic(err)
	}
	defer conn.Close()

	resp, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil {
		fmt.Println(status.Code(err), err)
		return
	}
	fmt.Println(resp.GetStatus())
	// Output: SERVING
}

// Streams are retried too: a stream that fails before the server sent
// anything is opened again.
func ExampleStreamClientInterceptor() {
	addr, stop := healthServer()
	defer stop()

	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithChainStreamInterceptor(grpcbackoff.StreamClientInterceptor(grpcbackoff.WithRetry(backoff.WithMaxTries(3)))),
		grpc.WithDisableRetry(),
	)
	if err != nil {
		panic(err)
	}
	defer conn.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // ends the stream, and the goroutine that runs its attempts
	w, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		panic(err)
	}
	resp, err := w.Recv()
	if err != nil && err != io.EOF {
		panic(err)
	}
	fmt.Println(resp.GetStatus())
	// Output: SERVING
}

// A server that takes 100 calls at once sheds the others with UNAVAILABLE
// and a grpc-retry-pushback-ms trailer, which the clients of this package
// obey.
func ExampleUnaryServerInterceptor() {
	slots := bulkhead.New(100)
	addr, stop := healthServer(
		grpc.ChainUnaryInterceptor(grpcbackoff.UnaryServerInterceptor(slots)),
		grpc.ChainStreamInterceptor(grpcbackoff.StreamServerInterceptor(slots)),
	)
	defer stop()

	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.GetStatus())
	// Output: SERVING
}

// A server that serves one stream at once: the stream it admits holds its
// slot until its handler returns, so a second stream is shed, before its
// handler runs, with UNAVAILABLE and a grpc-retry-pushback-ms trailer. The
// wait is WithPushback's base: the bulkhead's demand (one stream for one
// slot) does not lengthen it, and a random draw of 0 adds no spread.
func ExampleStreamServerInterceptor() {
	slots := bulkhead.New(1)
	addr, stop := healthServer(grpc.ChainStreamInterceptor(grpcbackoff.StreamServerInterceptor(slots,
		grpcbackoff.WithPushback(2*time.Second, time.Minute),
		grpcbackoff.WithPushbackRandom(func() float64 { return 0 }),
	)))
	defer stop()

	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	client := healthpb.NewHealthClient(conn)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // ends the admitted stream, which gives its slot back
	first, err := client.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		panic(err)
	}
	resp, err := first.Recv() // its handler runs, and holds the slot
	if err != nil {
		panic(err)
	}
	fmt.Println("first stream:", resp.GetStatus())

	second, err := client.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		panic(err)
	}
	_, err = second.Recv()
	fmt.Println("second stream:", status.Code(err))
	fmt.Println("come back in (ms):", second.Trailer().Get(grpcbackoff.PushbackKey))
	// Output:
	// first stream: SERVING
	// second stream: Unavailable
	// come back in (ms): [2000]
}

// Hedging an idempotent method: a second attempt starts when the first has
// not answered after 50 ms, and the first answer wins. Each attempt gets a
// second at most; the other methods are retried.
func ExampleWithHedging() {
	addr, stop := healthServer()
	defer stop()

	h := hedge.New(hedge.WithDelay(50*time.Millisecond), hedge.WithRetryable(grpcbackoff.Codes(codes.Unavailable)))
	icpt := grpcbackoff.UnaryClientInterceptor(
		grpcbackoff.WithAttemptTimeout(time.Second),
		grpcbackoff.WithHedging(h, "/grpc.health.v1.Health/Check"),
	)
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithChainUnaryInterceptor(icpt),
	)
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.GetStatus())
	// Output: SERVING
}

// Codes is the classifier of the guards: the failures gRFC A6 counts.
func ExampleCodes() {
	isFailure := grpcbackoff.Codes(codes.Unavailable)
	fmt.Println(isFailure(status.Error(codes.Unavailable, "overloaded")))
	fmt.Println(isFailure(status.Error(codes.InvalidArgument, "no such field")))
	// Output:
	// true
	// false
}

// A client whose retries wait as gRPC's own retries do, under the service
// config's initialBackoff 1 s, maxBackoff 10 s, backoffMultiplier 2.
func ExampleA6BackOff() {
	b, err := grpcbackoff.A6BackOff(time.Second, 10*time.Second, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithRetry(backoff.WithBackOff(b), backoff.WithMaxTries(5)))

	b.Random = func() float64 { return 1 } // the longest waits, for a stable output
	for range 5 {
		fmt.Print(b.NextBackOff(), " ")
	}
	fmt.Println()
	// Output: 1.2s 2.4s 4.8s 9.6s 12s
}

// A breaker around each attempt learns of every failed attempt: once two
// in a row have failed, it opens, and the next call is refused before
// anything is sent, with UNAVAILABLE and the breaker's refusal. A bulkhead
// around the whole call holds one slot for all of a call's attempts.
func ExampleWithAttemptGuards() {
	addr, stop := healthServer(grpc.UnaryInterceptor(func(context.Context, any, *grpc.UnaryServerInfo, grpc.UnaryHandler) (any, error) {
		return nil, status.Error(codes.Unavailable, "down for maintenance")
	}))
	defer stop()

	cb := breaker.New(breaker.WithConsecutiveFailures(2), breaker.WithIsFailure(grpcbackoff.Codes(codes.Unavailable)))
	icpt := grpcbackoff.UnaryClientInterceptor(
		grpcbackoff.WithRetry(backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{})),
		grpcbackoff.WithCallGuards(bulkhead.New(20)),
		grpcbackoff.WithAttemptGuards(cb),
	)
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithChainUnaryInterceptor(icpt),
		grpc.WithDisableRetry(),
	)
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	client := healthpb.NewHealthClient(conn)

	for range 2 {
		_, err = client.Check(context.Background(), &healthpb.HealthCheckRequest{})
		fmt.Println(status.Code(err), "circuit open:", errors.Is(err, breaker.ErrCircuitOpen))
	}
	// Output:
	// Unavailable circuit open: false
	// Unavailable circuit open: true
}
