package telemetry

// WaitBuckets returns the bucket boundaries, in seconds, of the wait
// histogram: from 5 ms, below which a wait is as good as none, to 5
// minutes, past which a Retry-After rules; roughly a factor of two or
// three apart, to resolve the doubling of an exponential backoff. Each
// call returns a slice of its own.
func WaitBuckets() []float64 {
	return []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}
}
