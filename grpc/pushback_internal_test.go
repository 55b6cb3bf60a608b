package grpcbackoff

import (
	"testing"
	"time"
)

// The values of grpc-retry-pushback-ms, as gRFC A6 writes them: an ASCII
// signed 32-bit integer with no unnecessary leading zero.
func TestParsePushback(t *testing.T) {
	for _, tc := range []struct {
		vals []string
		want time.Duration
		ok   bool
	}{
		{[]string{"0"}, 0, true},
		{[]string{"1"}, time.Millisecond, true},
		{[]string{"1500"}, 1500 * time.Millisecond, true},
		{[]string{"2147483647"}, 2147483647 * time.Millisecond, true},
		{[]string{"2147483648"}, 0, false},
		{[]string{"-1"}, 0, false},
		{[]string{"-2147483648"}, 0, false},
		{[]string{"-0"}, 0, false},
		{[]string{"007"}, 0, false},
		{[]string{"00"}, 0, false},
		{[]string{"+5"}, 0, false},
		{[]string{" 5"}, 0, false},
		{[]string{"5 "}, 0, false},
		{[]string{"5ms"}, 0, false},
		{[]string{"0x10"}, 0, false},
		{[]string{""}, 0, false},
		{[]string{"1", "1"}, 0, false},
		{nil, 0, false},
	} {
		d, ok := parsePushback(tc.vals)
		if d != tc.want || ok != tc.ok {
			t.Errorf("parsePushback(%q) = %v, %v; want %v, %v", tc.vals, d, ok, tc.want, tc.ok)
		}
	}
}

func TestFormatPushback(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{999 * time.Microsecond, "0"},
		{1500 * time.Millisecond, "1500"},
		{-time.Second, "0"},
		{1000 * time.Hour, "2147483647"},
	} {
		if got := formatPushback(tc.d); got != tc.want {
			t.Errorf("formatPushback(%v) = %q, want %q", tc.d, got, tc.want)
		}
		if d, ok := parsePushback([]string{formatPushback(tc.d)}); !ok || d < 0 {
			t.Errorf("parsePushback(formatPushback(%v)) = %v, %v: the server's value must parse", tc.d, d, ok)
		}
	}
}

func TestPreviousAttempts(t *testing.T) {
	for _, tc := range []struct {
		vals []string
		want int
	}{
		{nil, 0},
		{[]string{"1"}, 1},
		{[]string{"4"}, 4},
		{[]string{"-1"}, 0},
		{[]string{"many"}, 0},
		{[]string{"1", "2"}, 0},
	} {
		if got := previousAttempts(tc.vals); got != tc.want {
			t.Errorf("previousAttempts(%q) = %d, want %d", tc.vals, got, tc.want)
		}
	}
}
