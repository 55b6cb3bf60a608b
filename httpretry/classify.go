package httpretry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// DefaultRetryable is the classifier a Transport uses unless WithRetryable
// replaces it: it reports whether an attempt's response or transport error
// is worth retrying. It retries the statuses 408 Request Timeout, 429 Too
// Many Requests, 502 Bad Gateway, 503 Service Unavailable and 504 Gateway
// Timeout, and the transport errors that are worth retrying: timeouts
// (net/http's own included, even those matching context.DeadlineExceeded),
// a connection refused, reset or aborted, a broken pipe, an idle connection
// the server closed, EOF before a response, and an HTTP/2 stream reset or
// GOAWAY that says the server did not finish the request (REFUSED_STREAM,
// INTERNAL_ERROR, CANCEL, ENHANCE_YOUR_CALM, CONNECT_ERROR; the others,
// such as PROTOCOL_ERROR or HTTP_1_1_REQUIRED, say a retry would fail the
// same way). It never retries another error: in particular not a TLS
// certificate error, an invalid URL or unsupported scheme, or a context
// cancellation. Whether the request's own context is done is decided by
// the Transport, not by the classifier.
//
// REFUSED_STREAM is special: the server promises it did no processing, so
// the Transport retries it whatever the method, as net/http does, where
// the other transient errors are retried only for requests that are safe
// to replay.
//
// It is safe for concurrent use. A classifier of your own can delegate to
// it:
//
//	func(req *http.Request, resp *http.Response, err error) bool {
//		return resp != nil && resp.StatusCode == 500 || httpretry.DefaultRetryable(req, resp, err)
//	}
func DefaultRetryable(req *http.Request, resp *http.Response, err error) bool {
	if err != nil {
		return transientError(err)
	}
	if resp == nil {
		return false
	}
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// transientError reports whether a transport error is worth retrying.
func transientError(err error) bool {
	if certificateError(err) || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ETIMEDOUT) {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsTimeout || dns.IsTemporary
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	if code, ok := streamReset(err); ok {
		return transientStreamCodes[code]
	}
	msg := err.Error()
	// net/http reports a keep-alive connection closed by the server while
	// the request was being sent, and an HTTP/2 GOAWAY, with errors of
	// unexported types.
	return strings.Contains(msg, "http: server closed idle connection") ||
		strings.Contains(msg, "server sent GOAWAY")
}

// transientStreamCodes are the HTTP/2 error codes of a stream reset that
// say the server did not finish the request for a reason a retry may not
// meet again, as a reset connection does over HTTP/1.
var transientStreamCodes = map[string]bool{
	"REFUSED_STREAM":    true,
	"INTERNAL_ERROR":    true,
	"CANCEL":            true,
	"ENHANCE_YOUR_CALM": true,
	"CONNECT_ERROR":     true,
}

// streamReset returns the error code of an HTTP/2 stream reset. net/http's
// bundled HTTP/2 and golang.org/x/net/http2 report one with errors of
// their own types whose messages read "stream error: stream ID 3;
// REFUSED_STREAM", possibly followed by "; " and a cause; the message is
// all they have in common.
func streamReset(err error) (string, bool) {
	msg := err.Error()
	i := strings.Index(msg, "stream error: stream ID ")
	if i < 0 {
		return "", false
	}
	rest := msg[i+len("stream error: stream ID "):]
	j := strings.Index(rest, "; ")
	if j < 0 {
		return "", false
	}
	code := rest[j+2:]
	if k := strings.IndexByte(code, ';'); k >= 0 {
		code = code[:k]
	}
	return code, code != ""
}

// refusedStream reports whether err is an HTTP/2 REFUSED_STREAM reset: the
// server did no processing, so a retry is safe whatever the method.
func refusedStream(err error) bool {
	code, ok := streamReset(err)
	return ok && code == "REFUSED_STREAM"
}

// certificateError reports whether err is a failure to verify the server's
// certificate, or a server that does not speak TLS: retrying cannot fix it.
func certificateError(err error) bool {
	var (
		verify    *tls.CertificateVerificationError
		unknownCA x509.UnknownAuthorityError
		invalid   x509.CertificateInvalidError
		hostname  x509.HostnameError
		record    tls.RecordHeaderError
	)
	return errors.As(err, &verify) || errors.As(err, &unknownCA) || errors.As(err, &invalid) ||
		errors.As(err, &hostname) || errors.As(err, &record)
}
