package main

import (
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// liveServer is a server that restarts at time 0 of its clients'
// schedule: it answers 503 to the requests that reach it before outage,
// then serves capacity requests per window (the excess gets 503). It
// takes a request's time from its arrivalHeader, not from its own clock,
// and counts every request in the window of that time.
//
// Before the herd starts, it holds every request without the header until
// warm of them are in, so that each client opens a connection of its own
// before the herd is timed.
type liveServer struct {
	warm     int64         // how many requests to hold
	held     atomic.Int64  // requests held so far
	warmed   chan struct{} // closed when warm requests are in
	outage   time.Duration
	capacity int64
	arrivals []atomic.Int64 // per window of the schedule
	claims   []atomic.Int64 // per window: requests after the outage, served or not
}

// newLiveServer returns a server for n clients whose schedule ends before
// limit.
func newLiveServer(n int, outage time.Duration, capacity int, limit time.Duration) *liveServer {
	windows := int(limit/liveWindow) + 1
	return &liveServer{
		warm:     int64(n),
		warmed:   make(chan struct{}),
		outage:   outage,
		capacity: int64(capacity),
		arrivals: make([]atomic.Int64, windows),
		claims:   make([]atomic.Int64, windows),
	}
}

func (s *liveServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v := r.Header.Get(arrivalHeader)
	if v == "" {
		s.hold(r)
		return
	}
	at, err := strconv.ParseInt(v, 10, 64)
	win := at / int64(liveWindow)
	if err != nil || at < 0 || win >= int64(len(s.arrivals)) {
		http.Error(w, "no time on the schedule of the run in "+arrivalHeader, http.StatusBadRequest)
		return
	}
	s.arrivals[win].Add(1)
	if time.Duration(at) < s.outage || s.claims[win].Add(1) > s.capacity {
		w.Header().Set("Connection", "keep-alive")
		http.Error(w, "restarting", http.StatusServiceUnavailable)
		return
	}
	io.WriteString(w, "ok")
}

// hold keeps a warm-up request until all have arrived.
func (s *liveServer) hold(r *http.Request) {
	if s.held.Add(1) == s.warm {
		close(s.warmed)
	}
	select {
	case <-s.warmed:
	case <-r.Context().Done():
	}
}

// timeline returns the requests per window, up to the last window that
// had one.
func (s *liveServer) timeline() []int {
	var out []int
	end := 0
	for i := range s.arrivals {
		v := int(s.arrivals[i].Load())
		out = append(out, v)
		if v > 0 {
			end = i + 1
		}
	}
	return out[:end]
}
