package redisguard

// verdict is what a recorded call says about the dependency.
type verdict uint8

const (
	neutral verdict = iota // abandoned, refused inside, or an error that does not count
	success
	failure
)
