package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// liveOptions parses args for -live, and sets the limit directly, since
// the command line rejects limits shorter than the real outage.
func liveOptions(t *testing.T, limit time.Duration, args ...string) *options {
	t.Helper()
	o, err := parseArgs(append([]string{"-live"}, args...), new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	o.liveLimit = limit
	return o
}

// lastSuccessCell is what the table shows for a row's last success.
func lastSuccessCell(r row) string { return cell(r, "last_success_s", true) }

// The live figures are those of the clients' schedule, whatever the
// machine's clock says: with a network of exactly 10 ms each way, 10
// no-jitter clients and a server that serves 5 per window after a 20 ms
// outage give the same numbers on any machine, however busy. Every request
// reaches the server 10 ms after it is sent; the first, at 10 ms, gets a
// 503 (outage); the second, after 10 ms back, a 1 ms wait and 10 ms there,
// reaches it at 31 ms, where 5 are served; the other 5 wait 2 ms and reach
// it at 53 ms, and are served; their answers come back at 63 ms.
func TestLiveFollowsTheSchedule(t *testing.T) {
	t.Parallel()
	o := liveOptions(t, 20*time.Second, "-clients", "10", "-capacity", "5", "-strategies", "no-jitter",
		"-base", "1ms", "-delay", "10ms", "-delay-stddev", "0s")
	rows, err := liveRun(context.Background(), o, 20*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Calls != 25 || r.PeakLoad != 10 || r.Failed != 0 || r.Completion != 63*time.Millisecond || r.Seconds != 0.063 {
		t.Errorf("calls %v, peak %v, failed %v, last success %v; want 25, 10, 0, 63ms", r.Calls, r.PeakLoad, r.Failed, r.Completion)
	}
	if want := []int{0, 10, 0, 10, 0, 5}; !slices.Equal(r.timeline, want) {
		t.Errorf("timeline %v, want %v", r.timeline, want)
	}
	if r.realTime <= 0 || r.behind != 0 {
		t.Errorf("real time %v, %d behind", r.realTime, r.behind)
	}
}

// The server takes a request's time from the schedule it carries, not
// from its own clock: requests that come in the reverse order of their
// times, all at once, are counted and served by their times.
func TestLiveServerReadsTheSchedule(t *testing.T) {
	t.Parallel()
	srv := newLiveServer(1, 20*time.Millisecond, 2, time.Second)
	var codes []int
	for _, at := range []time.Duration{95 * time.Millisecond, 41 * time.Millisecond, 40 * time.Millisecond, 45 * time.Millisecond, 5 * time.Millisecond} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set(arrivalHeader, strconv.FormatInt(int64(at), 10))
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		codes = append(codes, w.Code)
	}
	// 95 ms: served; 41 and 40 ms: the window's capacity of 2; 45 ms: over
	// it; 5 ms: in the outage.
	if want := []int{200, 200, 200, 503, 503}; !slices.Equal(codes, want) {
		t.Errorf("codes %v, want %v", codes, want)
	}
	if got, want := srv.timeline(), []int{1, 0, 0, 0, 3, 0, 0, 0, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("timeline %v, want %v", got, want)
	}
	for _, bad := range []string{"soon", "-1", strconv.FormatInt(int64(time.Hour), 10)} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set(arrivalHeader, bad)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusBadRequest {
			t.Errorf("%s %q: status %d, want 400", arrivalHeader, bad, w.Code)
		}
	}
}

// TestLive runs the live mode for real, with a 20 ms outage and a small
// fleet, so that it takes a few tens of milliseconds.
func TestLive(t *testing.T) {
	t.Parallel()
	o := liveOptions(t, 20*time.Second, "-clients", "10", "-capacity", "5", "-strategies", "full,immediate",
		"-base", "1ms", "-max-calls", "100000")
	const outage = 20 * time.Millisecond
	var progress bytes.Buffer
	rows, err := liveRun(context.Background(), o, outage, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		if r.Scenario != "live" || r.Clients != 10 || r.Failed != 0 || r.Unfinished != 0 {
			t.Errorf("%s: %+v; want every client to succeed", r.Strategy, r)
		}
		if r.Completion < outage || r.Calls < 10 {
			t.Errorf("%s: done in %v with %v calls; the outage alone is %v and every client calls", r.Strategy, r.Completion, r.Calls, outage)
		}
		var sum int
		for _, n := range r.timeline {
			sum += n
		}
		if float64(sum) != r.Calls || r.PeakLoad < 1 {
			t.Errorf("%s: timeline sums to %d, calls %v, peak %v", r.Strategy, sum, r.Calls, r.PeakLoad)
		}
	}
	// One line per strategy, in order, each written when it is done.
	lines := strings.Split(strings.TrimRight(progress.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "herd: live 1/2 full") || !strings.HasPrefix(lines[1], "herd: live 2/2 immediate") ||
		!strings.Contains(lines[0], "10 of 10 succeeded, the last at ") || !strings.Contains(lines[0], " of real time") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

// Against a server that never recovers, every client is still failing
// when its schedule reaches the limit: the row says so, with the limit as
// a lower bound.
func TestLiveGivesUpAtTheLimit(t *testing.T) {
	t.Parallel()
	const limit = 60 * time.Millisecond
	o := liveOptions(t, limit, "-clients", "10", "-strategies", "no-jitter", "-base", "1ms")
	var progress bytes.Buffer
	rows, err := liveRun(context.Background(), o, time.Hour, &progress) // never recovers
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Failed != 10 || r.Unfinished != 10 || r.Completion != limit {
		t.Errorf("failed %v, unfinished %v, completion %v; want all 10 unfinished at the %v limit", r.Failed, r.Unfinished, r.Completion, limit)
	}
	if got := lastSuccessCell(r); got != ">0.06" {
		t.Errorf("the table shows %q for the last success, want >0.06", got)
	}
	if !strings.Contains(progress.String(), "0 of 10 succeeded; 10 still failing at the 60ms limit") {
		t.Errorf("progress: %q", progress.String())
	}
}

// Clients whose attempts run out gave up: they are failed, but not
// unfinished.
func TestLiveClientsGiveUpAfterMaxCalls(t *testing.T) {
	t.Parallel()
	o := liveOptions(t, 20*time.Second, "-clients", "10", "-strategies", "immediate", "-max-calls", "3")
	rows, err := liveRun(context.Background(), o, time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Failed != 10 || r.Unfinished != 0 || r.Calls != 30 {
		t.Errorf("failed %v, unfinished %v, calls %v; want all 10 to give up after 3 calls each", r.Failed, r.Unfinished, r.Calls)
	}
	if got := lastSuccessCell(r); got != "-" {
		t.Errorf("the table shows %q for the last success, want - (none)", got)
	}
}

// cancelAfter is a progress writer that cancels a live run once it has
// reported a strategy's result.
type cancelAfter struct {
	bytes.Buffer
	cancel func()
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("succeeded")) {
		w.cancel()
	}
	return w.Buffer.Write(p)
}

// Interrupted, a live run stops the strategy in progress and returns the
// rows of those that finished.
func TestLiveStopsOnCancel(t *testing.T) {
	t.Parallel()
	o := liveOptions(t, 20*time.Second, "-clients", "5", "-strategies", "full,no-jitter", "-base", "1ms")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := &cancelAfter{cancel: cancel}
	rows, err := liveRun(ctx, o, 20*time.Millisecond, progress)
	if !errors.Is(err, context.Canceled) || len(rows) != 1 || rows[0].Strategy != "full" {
		t.Fatalf("rows %+v, %v; want the full row and context.Canceled", rows, err)
	}
	if !strings.HasSuffix(progress.String(), "herd: live 2/2 no-jitter    stopped\n") {
		t.Errorf("progress: %q", progress.String())
	}
	if rows, err := liveRun(ctx, o, time.Hour, nil); err == nil || len(rows) != 0 {
		t.Fatalf("an already cancelled live run: %d rows, %v", len(rows), err)
	}
}

// A client's BackOff keeps its schedule: each wait moves its next request
// past the answer's way back, the wait and the request's way there, and a
// request that would reach the server at the limit is not made.
func TestScheduledPolicy(t *testing.T) {
	t.Parallel()
	c := &liveClient{delay: herd.Delay{Mean: 10 * time.Millisecond}, limit: 100 * time.Millisecond, arrival: 10 * time.Millisecond}
	orig := &scheduled{BackOff: herd.NoJitter(5*time.Millisecond, time.Second)(), c: c}
	// A driver may run on a clone: it keeps the same client's schedule.
	p, ok := orig.Clone().(*scheduled)
	if !ok || p == orig || p.c != c {
		t.Fatalf("Clone() = %#v; want a copy on the same client", orig.Clone())
	}
	p.Reset()
	var arrivals []time.Duration
	for d := p.NextBackOff(); d >= 0; d = p.NextBackOff() {
		arrivals = append(arrivals, c.arrival)
	}
	// From 10 ms: 10 ms back, a wait of 5 ms, 10 ms there; then of 10 ms;
	// the next, of 20 ms, would reach the server at 105 ms.
	if want := []time.Duration{35 * time.Millisecond, 65 * time.Millisecond}; !slices.Equal(arrivals, want) || !c.cutOff || c.stopped {
		t.Errorf("arrivals %v, cut off %v, stopped %v; want %v, cut off", arrivals, c.cutOff, c.stopped, want)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
