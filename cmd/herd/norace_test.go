//go:build !race

package main

// raceDetector says the tests run under the race detector, which makes a
// simulation some twenty times slower.
const raceDetector = false
