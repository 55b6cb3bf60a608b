package natsretry

import (
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff/internal/testkit/fleettest"
	"github.com/nats-io/nats.go"
)

// herdClients is how many clients are connected to the server when it
// restarts; herdDown how long it stays down.
const (
	herdClients = 200
	herdDown    = 2500 * time.Millisecond
	herdWindow  = 10 * time.Millisecond
)

// herdResult is what a restart with a fleet connected shows.
type herdResult struct {
	attempts int           // connections the server saw from the stop until all were back
	peak     int           // the most in one herdWindow
	peak100  int           // the most in 100 ms
	spread   time.Duration // of the fleet's first retries, p10 to p90
	allBack  time.Duration // from the server's start until the last client reconnected
}

// herd connects herdClients clients through a proxy to srv with opts,
// stops srv for herdDown, starts it again, and measures the connections
// the server sees until every client has reconnected.
func herd(t *testing.T, srv *natsServer, opts ...nats.Option) herdResult {
	t.Helper()
	px := fleettest.StartProxy(t, srv.addr())
	var mu sync.Mutex
	var last time.Time
	back := make(chan struct{}, herdClients)
	opts = append(opts, nats.MaxReconnects(-1), nats.ReconnectHandler(func(*nats.Conn) {
		mu.Lock()
		last = time.Now()
		mu.Unlock()
		back <- struct{}{}
	}))
	dials := &fleettest.FirstDials{}
	clients := make([]*nats.Conn, herdClients)
	defer func() {
		for _, nc := range clients {
			if nc != nil {
				nc.Close()
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, herdClients)
	for i := range clients {
		wg.Go(func() {
			nc, err := nats.Connect("nats://"+px.Addr(), append(opts, nats.SetCustomDialer(dialer{i, dials}))...)
			clients[i] = nc
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	t0 := time.Now()
	dials.Arm(t0)
	srv.halt()
	time.Sleep(herdDown - time.Since(t0))
	if err := srv.start(); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	timeout := time.After(60 * time.Second)
	for range herdClients {
		select {
		case <-back:
		case <-timeout:
			t.Fatalf("not every client reconnected within 60s of the restart")
		}
	}
	attempts := px.Since(t0)
	mu.Lock()
	defer mu.Unlock()
	return herdResult{attempts: len(attempts), peak: fleettest.Peak(attempts, t0, herdWindow), peak100: fleettest.Peak(attempts, t0, 100*time.Millisecond), spread: dials.Spread(), allBack: last.Sub(up)}
}

// A server restarts with 200 clients connected. With a fixed wait every
// client tries again in the same instant; nats.go's default adds at most
// 100 ms of jitter; Reconnect with DefaultBackOff spreads the fleet over
// the first second and backs off while the server stays down. The test
// prints the table of docs/brokers.md.
func TestHerdOfAServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a server three times with 200 clients connected")
	}
	srv := needNATS(t)
	rows := []struct {
		name string
		opts []nats.Option
		res  herdResult
	}{
		{name: "fixed wait, 2 s", opts: []nats.Option{nats.ReconnectWait(2 * time.Second), nats.ReconnectJitter(0, 0)}},
		{name: "nats.go default, 2 s + up to 100 ms", opts: nil},
		{name: "natsretry.Reconnect(DefaultBackOff())", opts: []nats.Option{Reconnect(DefaultBackOff())}},
	}
	for i := range rows {
		rows[i].res = herd(t, srv, rows[i].opts...)
	}
	table := fmt.Sprintf("| reconnect wait (%d clients, server down %v) | connections seen | peak per %v | peak per 100ms | first retries spread over (p10-p90) | all back after restart |\n| --- | --- | --- | --- | --- | --- |\n", herdClients, herdDown, herdWindow)
	for _, r := range rows {
		table += fmt.Sprintf("| %s | %d | %d | %d | %v | %v |\n", r.name, r.res.attempts, r.res.peak, r.res.peak100,
			r.res.spread.Round(time.Millisecond), r.res.allBack.Round(10*time.Millisecond))
	}
	t.Log("\n" + table)
	if path := os.Getenv("BROKERS_HERD_TABLE"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprint(f, "NATS\n"+table)
			f.Close()
		}
	}
	// The peaks per window are printed, not asserted: when the test
	// process stalls (the machine's cores busy elsewhere, under the race
	// detector), every wait due meanwhile ends at once, which gives a
	// spread fleet bursts it did not draw. The spread of the first
	// retries is what a stall cannot make: DefaultBackOff draws them
	// over the first second, the fixed wait in one instant.
	fixed, lib := rows[0].res, rows[2].res
	if lib.spread < 400*time.Millisecond || lib.spread < 3*fixed.spread {
		t.Errorf("Reconnect's first retries are spread over %v, the fixed wait's over %v: want at least 400ms and 3 times as much",
			lib.spread, fixed.spread)
	}
	if fixed.peak100 < herdClients/4 {
		t.Errorf("the fixed wait's peak is %d of %d clients in 100ms: the measurement does not see the herd", fixed.peak100, herdClients)
	}
}

// dialer dials for client i of a fleet, recording its dials.
type dialer struct {
	i     int
	dials *fleettest.FirstDials
}

func (d dialer) Dial(network, address string) (net.Conn, error) {
	d.dials.Dialed(d.i)
	return net.DialTimeout(network, address, 2*time.Second)
}
