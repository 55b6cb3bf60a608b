//go:build !race

package backoff

// readmeRace is whether this test binary was built with -race (see
// readme_race_test.go).
const readmeRace = false
