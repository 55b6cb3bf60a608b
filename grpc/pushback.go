package grpcbackoff

import (
	"math"
	"strconv"
	"time"
)

// The metadata keys of gRFC A6.
const (
	// PushbackKey is the trailer a server sets to tell a client when to
	// retry: an ASCII signed 32-bit integer of milliseconds, with no
	// unnecessary leading zero; a negative or malformed value asks for no
	// retry at all.
	PushbackKey = "grpc-retry-pushback-ms"
	// PreviousAttemptsKey is the metadata an attempt carries to the server:
	// how many attempts of the same call were made before it. It is absent
	// from a first attempt.
	PreviousAttemptsKey = "grpc-previous-rpc-attempts"
)

// parsePushback reads the values of a grpc-retry-pushback-ms trailer: the
// wait it asks for, and whether it asks for one at all (false for a
// negative or malformed value, and for more than one value, which gRPC
// treats alike).
func parsePushback(vals []string) (time.Duration, bool) {
	if len(vals) != 1 {
		return 0, false
	}
	v := vals[0]
	// No sign but a minus, and no unnecessary leading zero: strconv accepts
	// "+5", "007" and "-0", which the format does not.
	if v == "" || v[0] == '+' || len(v) > 1 && (v[0] == '0' || v[:2] == "-0") {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(n) * time.Millisecond, true
}

// formatPushback writes d as a grpc-retry-pushback-ms value: whole
// milliseconds, at most the largest the 32-bit format holds.
func formatPushback(d time.Duration) string {
	ms := d.Milliseconds()
	if ms > math.MaxInt32 {
		ms = math.MaxInt32
	}
	if ms < 0 {
		ms = 0
	}
	return strconv.FormatInt(ms, 10)
}

// previousAttempts reads a grpc-previous-rpc-attempts value: the attempts
// made before this one, 0 for a value that is absent or not a count.
func previousAttempts(vals []string) int {
	if len(vals) != 1 {
		return 0
	}
	n, err := strconv.ParseInt(vals[0], 10, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int(n)
}
