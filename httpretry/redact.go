package httpretry

import (
	"net/url"
	"slices"
	"strings"
)

// redacted replaces a secret in URLs and messages.
const redacted = "xxxxx"

// redactURL returns u as a string, with the userinfo password replaced by
// "xxxxx", the query replaced by "?xxxxx", and the fragment dropped.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	v := *u
	v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = "", false, "", ""
	s := v.Redacted()
	if u.RawQuery != "" {
		s += "?" + redacted
	}
	return s
}

// redactError returns err, or, if its message holds the password of u's
// userinfo or u's query, an error that wraps err with those secrets
// replaced by "xxxxx" in its message.
func redactError(err error, u *url.URL) error {
	if u == nil || err == nil {
		return err
	}
	secrets := urlSecrets(u)
	if len(secrets) == 0 {
		return err
	}
	msg := err.Error()
	clean := msg
	for _, s := range secrets {
		clean = strings.ReplaceAll(clean, s, redacted)
	}
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// urlSecrets lists the forms in which u's password and query may appear in
// a message, longest first.
func urlSecrets(u *url.URL) []string {
	var s []string
	if u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			s = append(s, url.QueryEscape(p), url.PathEscape(p), p)
		}
	}
	if u.RawQuery != "" {
		s = append(s, u.RawQuery)
		if q, err := url.QueryUnescape(u.RawQuery); err == nil {
			s = append(s, q)
		}
	}
	// Longest first, so that a secret containing another is replaced
	// whole.
	slices.SortFunc(s, func(a, b string) int { return len(b) - len(a) })
	return s
}

// redactedError is an error whose message had secrets removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }

func (e *redactedError) Unwrap() error { return e.err }
