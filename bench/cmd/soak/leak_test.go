package main

import (
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// parked is a goroutine blocked on a channel, which the tests find in a
// dump.
func parked(release <-chan struct{}) { <-release }

func TestExtraFindsNewGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := dumpGoroutines()
		release := make(chan struct{})
		const n = 3
		for range n {
			go parked(release)
		}
		synctest.Wait() // every one of them is parked
		after := dumpGoroutines()
		close(release)

		found := extra(before, after)
		if len(found) != n {
			t.Fatalf("extra found %d goroutines, want %d:\n%v", len(found), n, found)
		}
		for _, g := range found {
			if g.id == 0 || !strings.Contains(g.stack, ".parked(") || !strings.HasPrefix(g.state, "chan receive") {
				t.Errorf("goroutine %d [%s]:\n%s", g.id, g.state, g.stack)
			}
		}
		groups := group(found)
		if len(groups) != 1 || groups[0].count != n {
			t.Errorf("the %d parked goroutines make %d groups: %+v", n, len(groups), groups)
		}
	})
}

func TestParseDump(t *testing.T) {
	dump := "goroutine 1 [running]:\nmain.main()\n\t/x/main.go:10 +0x1d\n\n" +
		"goroutine 27 gp=0xc000 m=nil [select, 2 minutes]:\nnet/http.(*persistConn).readLoop(0xc0001)\n\t/go/net/http/transport.go:2200 +0xd5\ncreated by net/http.(*Transport).dialConn in goroutine 9\n\t/go/net/http/transport.go:1800 +0x1\n\n" +
		"something unreadable\n"
	gs := parseDump([]byte(dump))
	if len(gs) != 3 {
		t.Fatalf("%d goroutines, want 3: %+v", len(gs), gs)
	}
	if gs[0].id != 1 || gs[0].state != "running" || gs[1].id != 27 || gs[1].state != "select, 2 minutes" {
		t.Errorf("headers: %+v, %+v", gs[0], gs[1])
	}
	if gs[2].id != 0 {
		t.Errorf("an unreadable block has id %d, want 0", gs[2].id)
	}
	// A block extra cannot place is always reported.
	if got := extra(gs, gs); len(got) != 1 || got[0].id != 0 {
		t.Errorf("extra of a dump against itself: %+v, want the unreadable block alone", got)
	}
}

func TestShapeAndGroup(t *testing.T) {
	a := "net/http.(*persistConn).readLoop(0xc0001)\n\t/go/net/http/transport.go:2200 +0xd5\ncreated by net/http.(*Transport).dialConn in goroutine 9\n\t/go/net/http/transport.go:1800 +0x1"
	b := "net/http.(*persistConn).readLoop(0xc0999)\n\t/go/net/http/transport.go:2200 +0xd6\ncreated by net/http.(*Transport).dialConn in goroutine 1234\n\t/go/net/http/transport.go:1800 +0x1"
	c := "net/http.(*persistConn).writeLoop(0xc0001)\n\t/go/net/http/transport.go:2500 +0xd5"
	if shape(a) != shape(b) {
		t.Errorf("stacks that differ only in arguments, offsets and creator:\n%s\n%s", shape(a), shape(b))
	}
	if shape(a) == shape(c) {
		t.Error("two different stacks have one shape")
	}
	groups := group([]goroutine{{id: 1, stack: c}, {id: 2, stack: a}, {id: 3, stack: b}})
	if len(groups) != 2 || groups[0].count != 2 || groups[1].count != 1 {
		t.Errorf("groups %+v: want 2 then 1", groups)
	}
}

func TestSettle(t *testing.T) {
	n := runtime.NumGoroutine()
	if got := settle(n, time.Hour); got > n {
		t.Errorf("settle(%d) = %d with nothing running", n, got)
	}
	// A baseline below the count: settle gives up at once with a
	// deadline already past.
	if got := settle(0, 0); got < 1 {
		t.Errorf("settle(0, 0) = %d", got)
	}
}
