package natsretry

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

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
	allBack  time.Duration // from the server's start until the last client reconnected
}

// herd connects herdClients clients through a proxy to srv with opts,
// stops srv for herdDown, starts it again, and measures the connections
// the server sees until every client has reconnected.
func herd(t *testing.T, srv *natsServer, opts ...nats.Option) herdResult {
	t.Helper()
	px := startProxy(t, srv.addr())
	var mu sync.Mutex
	var last time.Time
	back := make(chan struct{}, herdClients)
	opts = append(opts, nats.MaxReconnects(-1), nats.ReconnectHandler(func(*nats.Conn) {
		mu.Lock()
		last = time.Now()
		mu.Unlock()
		back <- struct{}{}
	}))
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
			nc, err := nats.Connect("nats://"+px.addr(), opts...)
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
	attempts := px.since(t0)
	mu.Lock()
	defer mu.Unlock()
	return herdResult{attempts: len(attempts), peak: peak(attempts, t0, herdWindow), peak100: peak(attempts, t0, 100*time.Millisecond), allBack: last.Sub(up)}
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
	table := fmt.Sprintf("| reconnect wait (%d clients, server down %v) | connections seen | peak per %v | peak per 100ms | all back after restart |\n| --- | --- | --- | --- | --- |\n", herdClients, herdDown, herdWindow)
	for _, r := range rows {
		table += fmt.Sprintf("| %s | %d | %d | %d | %v |\n", r.name, r.res.attempts, r.res.peak, r.res.peak100, r.res.allBack.Round(10*time.Millisecond))
	}
	t.Log("\n" + table)
	if path := os.Getenv("BROKERS_HERD_TABLE"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprint(f, "NATS\n"+table)
			f.Close()
		}
	}
	fixed, lib := rows[0].res, rows[2].res
	if fixed.peak100 < herdClients/2 {
		t.Errorf("the fixed wait's peak is %d of %d clients in 100ms: the measurement does not see the herd", fixed.peak100, herdClients)
	}
	if lib.peak*3 > fixed.peak || lib.peak100*3 > fixed.peak100 {
		t.Errorf("Reconnect's peaks are %d per 10ms and %d per 100ms, not a third of the fixed wait's %d and %d",
			lib.peak, lib.peak100, fixed.peak, fixed.peak100)
	}
}
