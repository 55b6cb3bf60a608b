package main

import (
	"bytes"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// server is the flaky loopback HTTP server: each request meets the fate
// its mix draws for it.
type server struct {
	mix     mix
	start   time.Time
	srv     *http.Server
	ln      net.Listener
	url     string
	body    []byte
	quit    chan struct{} // closed first by close: trickles stop
	seen    atomic.Uint64 // requests received
	kinds   [numKinds]atomic.Uint64
	slow    atomic.Uint64 // bodies trickled
	logged  atomic.Uint64 // lines net/http's server logged
	noReset atomic.Uint64 // resets that could not hijack the connection
}

// startServer starts a server with the mix m on 127.0.0.1.
func startServer(m mix) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{
		mix:   m,
		start: time.Now(),
		ln:    ln,
		url:   "http://" + ln.Addr().String() + "/",
		body:  bytes.Repeat([]byte("x"), m.body),
		quit:  make(chan struct{}),
	}
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(lineCounter{&s.logged}, "", 0),
	}
	go s.srv.Serve(ln)
	return s, nil
}

// close stops the trickles, then closes the listener and every connection.
// Handlers that are still running return on their own, as their writes
// fail; the caller's goroutine check waits for them.
func (s *server) close() {
	close(s.quit)
	s.srv.Close()
}

// ServeHTTP answers r as its fate says.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := s.mix.fate(s.seen.Add(1)-1, time.Since(s.start))
	s.kinds[f.kind].Add(1)
	status := http.StatusOK
	switch f.kind {
	case answerReset:
		s.resetConn(w)
		return
	case answerRetryAfter:
		w.Header().Set("Retry-After", strconv.Itoa(f.retryAfter))
		status = http.StatusServiceUnavailable
	case answerUnavailable, answerOutage:
		status = http.StatusServiceUnavailable
	}
	if f.slow <= 0 {
		w.Header().Set("Content-Length", strconv.Itoa(len(s.body)))
		w.WriteHeader(status)
		w.Write(s.body)
		return
	}
	s.slow.Add(1)
	w.WriteHeader(status)
	s.trickle(w, r, f.slow)
}

// resetConn takes the connection over and resets it: with SO_LINGER 0 the
// close sends an RST, and the client reads ECONNRESET (or an EOF) where it
// waited for a response.
func (s *server) resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		s.noReset.Add(1)
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		s.noReset.Add(1)
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// trickle writes the body in pieces spread over d, flushing each, until
// the client goes away or the server closes.
func (s *server) trickle(w http.ResponseWriter, r *http.Request, d time.Duration) {
	flusher, _ := w.(http.Flusher)
	chunks := s.mix.slowChunks
	step := d / time.Duration(chunks)
	timer := time.NewTimer(step)
	defer timer.Stop()
	for i := range chunks {
		piece := s.body[i*len(s.body)/chunks : (i+1)*len(s.body)/chunks]
		if _, err := w.Write(piece); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		if i == chunks-1 {
			return
		}
		select {
		case <-timer.C:
			timer.Reset(step)
		case <-r.Context().Done():
			return
		case <-s.quit:
			return
		}
	}
}

// serverStats is what the server saw.
type serverStats struct {
	Seen    uint64
	Kinds   [numKinds]uint64
	Slow    uint64
	Logged  uint64
	NoReset uint64
}

func (s *server) stats() serverStats {
	st := serverStats{Seen: s.seen.Load(), Slow: s.slow.Load(), Logged: s.logged.Load(), NoReset: s.noReset.Load()}
	for k := range st.Kinds {
		st.Kinds[k] = s.kinds[k].Load()
	}
	return st
}

// lineCounter counts the lines net/http's server logs (a write is a line)
// instead of printing them.
type lineCounter struct{ n *atomic.Uint64 }

func (l lineCounter) Write(p []byte) (int, error) {
	l.n.Add(1)
	return len(p), nil
}
