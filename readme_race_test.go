//go:build race

package backoff

// readmeRace is whether this test binary was built with -race: the README
// test builds its blocks with the same flag, so that the packages they
// import are those the workspace's other tests have compiled already.
const readmeRace = true
