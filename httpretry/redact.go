package httpretry

import (
	"net/url"
	"slices"
	"strconv"
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

// redactError returns err, or, if its message shows u's password or query,
// an error that wraps err and whose message shows them redacted.
//
// It replaces whole URLs, in every form in which a RoundTripper or an
// http.Client is likely to print u (see urlForms), by the redacted URL;
// what remains of the secrets is replaced only where it is anchored as in a
// URL: the query after its "?", the password between ":" and "@". A secret
// is never replaced where it merely occurs as a substring, which would
// garble messages and, for a short secret, tell where it occurs.
func redactError(err error, u *url.URL) error {
	if u == nil || err == nil {
		return err
	}
	forms := urlForms(u)
	if len(forms) == 0 {
		return err
	}
	msg := err.Error()
	clean := strings.NewReplacer(forms...).Replace(msg)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// urlForms lists, as the old, new pairs strings.NewReplacer takes, the forms
// in which u's password and query may appear in a message, each with its
// redacted form, longest first so that the longest form at a place in a
// message is the one replaced. It returns nil if u has neither a password
// nor a query.
//
// The forms are u as url.URL.String prints it, with and without its query
// and its fragment, with the password as it is, as Redacted prints it and as
// http.Client's errors print it ("***"); each also as strconv.Quote escapes
// it (the %q of url.Error); then the query and the password, each in the
// anchored form described in redactError.
func urlForms(u *url.URL) []string {
	password, hasPassword := "", false
	if u.User != nil {
		password, hasPassword = u.User.Password()
		hasPassword = hasPassword && password != ""
	}
	hasQuery := u.RawQuery != ""
	if !hasPassword && !hasQuery {
		return nil
	}
	var pairs [][2]string
	add := func(old, new string) {
		if old == new {
			return
		}
		pairs = append(pairs, [2]string{old, new})
		if q := strconv.Quote(old); q[1:len(q)-1] != old {
			pairs = append(pairs, [2]string{q[1 : len(q)-1], new})
		}
	}
	v := *u
	for _, withQuery := range []bool{true, false} {
		if !withQuery {
			if !hasPassword {
				break
			}
			v.RawQuery, v.ForceQuery = "", false
		}
		for _, withFragment := range []bool{true, false} {
			if !withFragment {
				v.Fragment, v.RawFragment = "", ""
			}
			s, red := v.String(), redactURL(&v)
			add(s, red)
			if hasPassword {
				add(v.Redacted(), red)
				// As http.Client prints it in a *url.Error.
				add(strings.Replace(s, u.User.String()+"@", u.User.Username()+":***@", 1), red)
			}
		}
		v.Fragment, v.RawFragment = u.Fragment, u.RawFragment
	}
	if hasQuery {
		add("?"+u.RawQuery, "?"+redacted)
	}
	if hasPassword {
		_, escaped, _ := strings.Cut(u.User.String(), ":")
		add(":"+escaped+"@", ":"+redacted+"@")
		add(":"+password+"@", ":"+redacted+"@")
	}
	slices.SortStableFunc(pairs, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	forms := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		forms = append(forms, p[0], p[1])
	}
	return forms
}

// redactedError is an error whose message had secrets removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }

func (e *redactedError) Unwrap() error { return e.err }
