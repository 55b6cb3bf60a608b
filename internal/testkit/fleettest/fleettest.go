// Package fleettest measures, for the tests of the broker modules, what a
// fleet of clients does to a server that restarts: a loopback proxy that
// records every connection opened through it, the peak of them in a
// window, and the spread of the fleet's first retries.
package fleettest

import (
	"io"
	"net"
	"sort"
	"sync"
	"testing"
	"time"
)

// Proxy is a loopback TCP proxy in front of a server: it records the time
// of every connection a client opens, which is what the server would see,
// and forwards it to the server, or closes it at once when the server
// does not answer, as a stopped server's closed port does.
type Proxy struct {
	ln      net.Listener
	backend string

	mu      sync.Mutex
	accepts []time.Time
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
}

// StartProxy starts a Proxy in front of backend, closed when t ends.
func StartProxy(t testing.TB, backend string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, backend: backend, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// Addr is the address the clients dial.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.accepts = append(p.accepts, time.Now())
		p.conns[c] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(1)
		go p.serve(c)
	}
}

func (p *Proxy) serve(c net.Conn) {
	defer p.wg.Done()
	defer p.forget(c)
	b, err := net.DialTimeout("tcp", p.backend, time.Second)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.conns[b] = struct{}{}
	p.mu.Unlock()
	defer p.forget(b)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(b, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, b); done <- struct{}{} }()
	<-done // either side ended: end both
	c.Close()
	b.Close()
	<-done
}

func (p *Proxy) forget(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// Close stops accepting, closes every connection, and waits for its
// goroutines.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// Since returns the times of the connections opened since t0.
func (p *Proxy) Since(t0 time.Time) []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []time.Time
	for _, a := range p.accepts {
		if !a.Before(t0) {
			out = append(out, a)
		}
	}
	return out
}

// Peak returns the most connections opened in one window of width w
// since t0, the windows aligned on t0.
func Peak(times []time.Time, t0 time.Time, w time.Duration) int {
	n := map[int64]int{}
	most := 0
	for _, a := range times {
		k := int64(a.Sub(t0) / w)
		n[k]++
		most = max(most, n[k])
	}
	return most
}

// FirstDials records, for each client of a fleet, the time of its first
// dial after the fleet lost its server: the first retry, as the client
// made it.
type FirstDials struct {
	mu    sync.Mutex
	after time.Time // zero: not armed
	first map[int]time.Time
}

// Arm starts recording: the first dial of each client after t0.
func (f *FirstDials) Arm(t0 time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.after, f.first = t0, map[int]time.Time{}
}

// Dialed records a dial of client i.
func (f *FirstDials) Dialed(i int) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.after.IsZero() {
		return
	}
	if _, ok := f.first[i]; !ok {
		f.first[i] = now
	}
}

// Spread returns the time between the first retries of the 10th and the
// 90th percentile of the fleet: how far its first retries are spread.
// Unlike a peak per window, a stall of the test process cannot shrink
// it much: it delays the retries due meanwhile, it does not draw them.
func (f *FirstDials) Spread() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ts []time.Time
	for _, t := range f.first {
		ts = append(ts, t)
	}
	if len(ts) < 10 {
		return 0
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	return ts[len(ts)*9/10-1].Sub(ts[len(ts)/10])
}
