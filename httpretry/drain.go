package httpretry

import (
	"io"
	"net/http"
)

// maxDrain is the most of an intermediate response body read before it is
// closed. Reading a short body to its end lets the connection be reused; a
// longer one is not worth the wait, so its connection is closed instead.
const maxDrain = 4 << 10

// drain reads at most maxDrain bytes of resp's body and closes it.
func drain(resp *http.Response) {
	if resp.Body == nil {
		return
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	resp.Body.Close()
}
