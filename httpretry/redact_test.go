package httpretry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://example.com/a", "http://example.com/a"},
		{"http://user:hunter2@example.com/a?token=s3cr3t#frag", "http://user:xxxxx@example.com/a?xxxxx"},
		{"http://user@example.com/?", "http://user@example.com/"},
		{"https://example.com/p?q", "https://example.com/p?xxxxx"},
	}
	for _, c := range cases {
		u, err := url.Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := redactURL(u); got != c.want {
			t.Errorf("redactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if redactURL(nil) != "" {
		t.Error("redactURL(nil) is not empty")
	}
}

// leakyBase fails every request with an error that quotes the whole URL, as
// an http.Client used as a base would.
type leakyBase struct{}

func (leakyBase) RoundTrip(req *http.Request) (*http.Response, error) {
	return nil, &url.Error{Op: "Get", URL: req.URL.String(), Err: fmt.Errorf("dial: %w", errTimeout)}
}

var errTimeout = errors.New("connection reset by a mock: connection refused (timeout)")

// Passwords and queries appear in no error message and no log line.
func TestNoCredentialsLeak(t *testing.T) {
	const password, token = "hunter2%21", "s3cr3t-t0ken"
	var logs bytes.Buffer
	rec := &recorder{}
	opts := []Option{
		noWait,
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))),
		WithInstrumenter(rec),
		WithPolicy(func(req *http.Request, resp *http.Response, err error) bool { return true }),
	}
	var texts []string

	srv := statusServer(t, http.StatusServiceUnavailable)
	u := strings.Replace(srv.URL, "http://", "http://alice:"+password+"@", 1) + "/p?token=" + token + "&x=1"
	resp, err := get(t, NewTransport(srv.base, opts...), u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	_, err = get(t, NewTransport(leakyBase{}, opts...), u)
	texts = append(texts, err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%q", err))
	if !errors.Is(err, errTimeout) {
		t.Errorf("the redacted error %v does not wrap the original", err)
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Errorf("the redacted error %v does not wrap the *url.Error", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = do(t, NewTransport(srv.base, opts...), ctx, http.MethodGet, u, nil)
	texts = append(texts, fmt.Sprintf("%+v", err))

	for _, s := range rec.all() {
		if s.Err != nil {
			texts = append(texts, s.Err.Error())
		}
	}
	texts = append(texts, logs.String())
	all := strings.Join(texts, "\n")
	for _, secret := range []string{"hunter2", token} {
		if strings.Contains(all, secret) {
			t.Errorf("%q leaked:\n%s", secret, all)
		}
	}
	mustContain(t, all, "alice:xxxxx@")
	mustContain(t, all, "/p?xxxxx: 503 Service Unavailable")
	mustContain(t, logs.String(), "retrying")
	mustContain(t, logs.String(), "giving up")
}
