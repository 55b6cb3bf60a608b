package httpretry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"syscall"
	"testing"
)

func TestDefaultRetryableStatuses(t *testing.T) {
	retried := map[int]bool{408: true, 429: true, 502: true, 503: true, 504: true}
	for code := 100; code < 600; code++ {
		if got := DefaultRetryable(nil, &http.Response{StatusCode: code}, nil); got != retried[code] {
			t.Errorf("status %d: retry %v, want %v", code, got, retried[code])
		}
	}
	if DefaultRetryable(nil, nil, nil) {
		t.Error("no response and no error: retried")
	}
}

// timeoutError is a net.Error that timed out.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func TestDefaultRetryableErrors(t *testing.T) {
	opErr := func(op string, err error) error {
		return &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, err)}
	}
	cases := []struct {
		name  string
		err   error
		retry bool
	}{
		{"eof", io.EOF, true},
		{"wrapped_eof", fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", io.EOF), true},
		{"unexpected_eof", io.ErrUnexpectedEOF, true},
		{"refused", opErr("dial", syscall.ECONNREFUSED), true},
		{"reset", opErr("read", syscall.ECONNRESET), true},
		{"aborted", opErr("read", syscall.ECONNABORTED), true},
		{"broken_pipe", opErr("write", syscall.EPIPE), true},
		{"closed_conn", opErr("write", net.ErrClosed), true},
		{"timeout", &net.OpError{Op: "read", Err: timeoutError{}}, true},
		{"other_deadline", fmt.Errorf("attempt: %w", context.DeadlineExceeded), true},
		{"server_closed_idle", errors.New("http: server closed idle connection"), true},
		{"dns_temporary", &net.DNSError{Err: "server misbehaving", IsTemporary: true}, true},
		{"dns_timeout", &net.DNSError{Err: "timeout", IsTimeout: true}, true},
		{"dns_not_found", &net.DNSError{Err: "no such host", IsNotFound: true}, false},
		{"canceled", context.Canceled, false},
		{"unknown_authority", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, false},
		{"bare_unknown_authority", x509.UnknownAuthorityError{}, false},
		{"hostname", x509.HostnameError{Host: "example.com"}, false},
		{"expired", x509.CertificateInvalidError{Reason: x509.Expired}, false},
		{"not_tls", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, false},
		{"unsupported_scheme", errors.New(`unsupported protocol scheme "ftp"`), false},
		{"invalid_url", &url.Error{Op: "parse", URL: "http://[::1", Err: errors.New("missing ']' in host")}, false},
		{"redirects", errors.New("stopped after 10 redirects"), false},
		{"other", errors.New("something else"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := DefaultRetryable(nil, nil, c.err); got != c.retry {
				t.Errorf("DefaultRetryable(%v) = %v, want %v", c.err, got, c.retry)
			}
		})
	}
}

// A server whose certificate the client does not trust is tried once.
func TestCertificateErrorNotRetried(t *testing.T) {
	hits := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	_, err := get(t, NewTransport(base, noWait), srv.URL)
	var verr *tls.CertificateVerificationError
	if !errors.As(err, &verr) {
		t.Fatalf("error %v is not a certificate error", err)
	}
	if a := asBackoffError(t, err).Attempts; a != 1 {
		t.Errorf("%d attempts, want 1", a)
	}
}

// A URL the base cannot use is tried once.
func TestUnsupportedSchemeNotRetried(t *testing.T) {
	base := &http.Transport{}
	_, err := get(t, NewTransport(base, noWait), "ftp://127.0.0.1/file")
	if a := asBackoffError(t, err).Attempts; a != 1 {
		t.Errorf("%d attempts for %v, want 1", a, err)
	}
}

// Redirects are the client's business: a redirect loop makes as many
// requests through the Transport as through its base.
func TestRedirectLoopNotRetried(t *testing.T) {
	count := func(wrap bool) (int64, error) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
			http.Redirect(w, r, "/again", http.StatusFound)
		})
		var rt http.RoundTripper = srv.base
		if wrap {
			rt = NewTransport(srv.base, noWait)
		}
		_, err := (&http.Client{Transport: rt}).Get(srv.URL)
		return srv.hits.Load(), err
	}
	bare, bareErr := count(false)
	wrapped, err := count(true)
	if err == nil || bareErr == nil || wrapped != bare {
		t.Errorf("%d requests (%v) through the Transport, %d (%v) through its base", wrapped, err, bare, bareErr)
	}
}

// WithRetryable replaces the default classifier; the replay rules still apply.
func TestWithRetryable(t *testing.T) {
	on500 := WithRetryable(func(_ *http.Request, resp *http.Response, err error) bool {
		return resp != nil && resp.StatusCode == 500
	})
	for _, c := range []struct {
		status int
		method string
		hits   int64
	}{
		{500, "GET", 3},
		{503, "GET", 1},
		{500, "POST", 1},
	} {
		srv := statusServer(t, c.status)
		resp, err := do(t, NewTransport(srv.base, noWait, on500), context.Background(), c.method, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := srv.hits.Load(); got != c.hits {
			t.Errorf("%s, status %d: %d requests, want %d", c.method, c.status, got, c.hits)
		}
	}
}
