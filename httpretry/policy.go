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

// DefaultPolicy is the retry policy a Transport uses unless WithPolicy
// replaces it. It retries the statuses 408 Request Timeout, 429 Too Many
// Requests, 502 Bad Gateway, 503 Service Unavailable and 504 Gateway
// Timeout, and the transport errors that are worth retrying: timeouts
// (net/http's own included, even those matching context.DeadlineExceeded),
// a connection refused, reset or aborted, a broken pipe, an idle connection
// the server closed, and EOF before a response. It never retries another
// error: in particular not a TLS certificate error, an invalid URL or
// unsupported scheme, or a context cancellation. Whether the request's own
// context is done is decided by the Transport, not by the policy.
//
// It is safe for concurrent use. A policy of your own can delegate to it:
//
//	func(req *http.Request, resp *http.Response, err error) bool {
//		return resp != nil && resp.StatusCode == 500 || httpretry.DefaultPolicy(req, resp, err)
//	}
func DefaultPolicy(req *http.Request, resp *http.Response, err error) bool {
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
	// net/http reports a keep-alive connection closed by the server while
	// the request was being sent with an error of an unexported type.
	return strings.Contains(err.Error(), "http: server closed idle connection")
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
