package herd_test

import (
	"sync"
	"testing"

	"github.com/herdsafe/backoff/herd"
)

// sharedRuns holds the runs that several tests assert on, by key, each
// simulated once, by the first test that asks for it.
var sharedRuns sync.Map // string → *sharedResult

type sharedResult struct {
	once sync.Once
	r    herd.Result
}

// sharedRun returns the Result of cfg, which key names, simulated once
// for every test that asks for the same key: the tests must not change
// it. A run that fails fails every test that asks for it.
func sharedRun(t *testing.T, key string, cfg herd.Config) herd.Result {
	t.Helper()
	v, _ := sharedRuns.LoadOrStore(key, &sharedResult{})
	s := v.(*sharedResult)
	s.once.Do(func() { s.r = herd.Simulate(cfg) })
	if s.r.Err != nil {
		t.Fatalf("%s: %v", key, s.r.Err)
	}
	return s.r
}
