package httpretry

import (
	"io"
	"net/http"
	"time"

	"github.com/benbjohnson/clock"
)

// The limits of draining an intermediate response. Reading a short body to
// its end lets the connection be reused; a longer one, or one that comes
// slowly, is not worth the wait, so its connection is closed instead.
const (
	// maxDrain is the most of a body read before it is closed.
	maxDrain = 4 << 10
	// drainTimeout is the longest a drain may take: a server that trickles
	// its body cannot hold the caller past it.
	drainTimeout = 100 * time.Millisecond
)

// drain reads at most maxDrain bytes of resp's body, for at most
// drainTimeout on clk, and closes it. When the time is up the body is
// closed from the timer's goroutine, which ends the read in progress:
// net/http's response bodies allow a Close while a Read is blocked. The
// body is closed even if a Read panics. The driver checks its limits again
// after a drain (see discardRetried).
func drain(resp *http.Response, clk clock.Clock) {
	if resp.Body == nil {
		return
	}
	body := resp.Body
	defer body.Close()
	defer clk.AfterFunc(drainTimeout, func() { body.Close() }).Stop()
	io.Copy(io.Discard, io.LimitReader(body, maxDrain))
}
