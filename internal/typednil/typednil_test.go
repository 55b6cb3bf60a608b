package typednil

import (
	"io"
	"testing"
)

type closer struct{}

func (*closer) Close() error { return nil }

func TestIs(t *testing.T) {
	var nilCloser *closer
	var nilFunc func()
	var nilMap map[string]int
	cases := []struct {
		name string
		v    any
		want bool
	}{
		{"nil", nil, false},
		{"nil pointer in an interface", io.Closer(nilCloser), true},
		{"nil func", nilFunc, true},
		{"nil map", nilMap, true},
		{"pointer", &closer{}, false},
		{"struct value", struct{}{}, false},
		{"int", 0, false},
	}
	for _, c := range cases {
		if got := Is(c.v); got != c.want {
			t.Errorf("%s: Is = %v, want %v", c.name, got, c.want)
		}
	}
}
