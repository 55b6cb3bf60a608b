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
		WithRetryable(func(req *http.Request, resp *http.Response, err error) bool { return true }),
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

// Secrets that need escaping in a URL are redacted in every form a URL is
// printed in: as url.URL.String prints it, as Redacted prints it, quoted,
// as http.Client's errors print it, with and without the query, and a
// query on its own after a request line's path.
func TestRedactEscapedSecrets(t *testing.T) {
	cases := []struct {
		raw     string
		secrets []string // forms of the password and the query that must not appear
	}{
		{"http://u:a;b%20c@h/p?tok=s%20e", []string{"a;b c", "a;b%20c", "a%3Bb", "s%20e", "s e"}},
		{"http://u:p%40ss%3Aw@h/?a=b+c", []string{"p@ss:w", "p%40ss%3Aw", "a=b+c", "a=b c"}},
		{`http://u:q%22t%5C@h/p?k="v\"#frag`, []string{`q"t\`, "q%22t%5C", `k="v\"`, `k=\"v\\\"`}},
		{"http://:%E2%82%AC%20x@h/p#f", []string{"€ x", "%E2%82%AC%20x"}},
	}
	for _, c := range cases {
		t.Run(c.raw, func(t *testing.T) {
			u, err := url.Parse(c.raw)
			if err != nil {
				t.Fatal(err)
			}
			red := redactURL(u)
			noQuery := *u
			noQuery.RawQuery = ""
			client := &http.Client{Transport: roundTripperFunc(func(*http.Request) (*http.Response, error) {
				return nil, errTimeout
			})}
			_, clientErr := client.Get(c.raw)
			msgs := []error{
				&url.Error{Op: "Get", URL: u.String(), Err: errTimeout},
				fmt.Errorf("dialing %s: %w", u.Redacted(), errTimeout),
				fmt.Errorf("dialing %q: %w", u.String(), errTimeout),
				fmt.Errorf("dialing %s: %w", noQuery.String(), errTimeout),
				clientErr,
				fmt.Errorf("sending GET %s: %w", u.RequestURI(), errTimeout),
			}
			for i, m := range msgs {
				got := redactError(m, u)
				if !errors.Is(got, errTimeout) {
					t.Errorf("message %d: %v does not wrap the original", i, got)
				}
				for _, s := range c.secrets {
					if strings.Contains(got.Error(), s) {
						t.Errorf("message %d: %q leaks %q", i, got, s)
					}
				}
				if i < 5 && !strings.Contains(got.Error(), red) && !strings.Contains(got.Error(), redactURL(&noQuery)) {
					t.Errorf("message %d: %q does not show the redacted URL %q", i, got, red)
				}
			}
		})
	}
}

// One-character secrets are redacted where the URL appears, and nowhere
// else: the rest of a message is left as it is.
func TestRedactShortSecrets(t *testing.T) {
	u, err := url.Parse("http://u:e@example.com/?a")
	if err != nil {
		t.Fatal(err)
	}
	plain := errors.New("dial tcp: lookup example.com: connection refused, a timeout")
	if got := redactError(plain, u); got != plain {
		t.Errorf("a message without the URL became %q", got)
	}
	quoted := &url.Error{Op: "Get", URL: u.String(), Err: plain}
	want := `Get "http://u:xxxxx@example.com/?xxxxx": dial tcp: lookup example.com: connection refused, a timeout`
	if got := redactError(quoted, u).Error(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// Through a Transport, with a base that quotes the URL.
	base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		return nil, &url.Error{Op: "Get", URL: r.URL.String(), Err: plain}
	})
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	_, err = roundTrip(t, NewTransport(base, noWait), req)
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
}
