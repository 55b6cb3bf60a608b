package backoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestPermanent(t *testing.T) {
	if Permanent(nil) != nil {
		t.Fatal("Permanent(nil) != nil")
	}
	inner := errors.New("bad request")
	p := Permanent(inner)
	if p.Error() != "bad request" || !errors.Is(p, inner) {
		t.Fatalf("Permanent(%v) = %v; it must print and match the error it wraps", inner, p)
	}
	for _, c := range []struct {
		err      error
		wantLast error
	}{
		{p, inner},
		{fmt.Errorf("building the request: %w", p), nil}, // the whole chain
		{errors.Join(io.EOF, p), nil},
	} {
		m := MarksOf(c.err)
		last, ok := m.Last, m.Permanent
		if !ok {
			t.Fatalf("%v: Permanent mark not found", c.err)
		}
		want := c.wantLast
		if want == nil {
			want = c.err
		}
		if last != want {
			t.Errorf("%v: LastErr %v, want %v", c.err, last, want)
		}
	}
	if MarksOf(io.EOF).Permanent {
		t.Fatal("a plain error taken for a Permanent one")
	}
}

// "A Permanent error gives Cause ErrPermanent whatever WithMaxTries says":
// the same shape for MaxTries 0, 1 and 2, marked directly or wrapped.
func TestDriverPermanentSameShapeWhateverMaxTries(t *testing.T) {
	root := errors.New("invalid token")
	marks := []struct {
		name    string
		err     error
		message string
	}{
		{"direct", Permanent(root), "invalid token"},
		{"wrapped", fmt.Errorf("building the request: %w", Permanent(root)), "building the request: invalid token"},
	}
	for _, m := range marks {
		for _, e := range specEntries {
			for _, tries := range []uint{0, 1, 2} {
				t.Run(fmt.Sprintf("%s/%s/MaxTries %d", m.name, e.name, tries), func(t *testing.T) {
					// A third attempt would succeed: a driver that missed the
					// mark ends in success instead of spinning.
					op := specScript(func(n int) (int, error) {
						if n >= 3 {
							return 100, nil
						}
						return n, m.err
					})
					_, err := e.run(context.Background(), op.Run, WithMaxTries(tries), WithBackOff(&ZeroBackOff{}))
					re := specAsError(t, err)
					if re.Cause != ErrPermanent {
						t.Errorf("Cause = %v, want ErrPermanent", re.Cause)
					}
					if !errors.Is(err, root) || !errors.Is(re.LastErr, root) {
						t.Errorf("errors.Is(err, root) = false; LastErr = %v", re.LastErr)
					}
					if got := err.Error(); got != m.message {
						t.Errorf("Error() = %q, want %q", got, m.message)
					}
					if op.Count() != 1 || re.Attempts != 1 {
						t.Errorf("ran %d times, Attempts %d; want 1", op.Count(), re.Attempts)
					}
				})
			}
		}
	}
}
