package telemetry

import (
	"fmt"
	"sync"
	"testing"
)

// value is a value of a Names, made by newValue.
type value struct{ name string }

func newValue(name string) *value { return &value{name} }

func TestNamesAreMadeOnce(t *testing.T) {
	var n Names[*value]
	if n.Len() != 0 {
		t.Errorf("the zero Names keeps %d names", n.Len())
	}
	v := n.Get("fetch", newValue)
	if v.name != "fetch" || n.Get("fetch", newValue) != v {
		t.Error("a second Get of a name made its value again")
	}
	if w := n.Get("store", newValue); w == v || w.name != "store" || n.Len() != 2 {
		t.Errorf("a second name: %+v, %d names kept", w, n.Len())
	}
}

func TestNamesAreBounded(t *testing.T) {
	var n Names[*value]
	for i := range MaxNames {
		n.Get(fmt.Sprint("op-", i), newValue)
	}
	v := n.Get("request-1234", newValue)
	if v.name != "request-1234" || n.Get("request-1234", newValue) == v {
		t.Errorf("past the bound of names, Get returned %+v, and kept it", v)
	}
	if n.Len() != MaxNames {
		t.Errorf("%d names kept, want %d", n.Len(), MaxNames)
	}
	kept := n.Get("op-7", newValue)
	if n.Get("op-7", newValue) != kept {
		t.Error("past the bound, a name kept before is made again")
	}
}

// Concurrent Gets of a new name all receive the value kept.
func TestNamesConcurrentGet(t *testing.T) {
	var n Names[*value]
	const goroutines = 8
	got := make([]*value, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() { got[i] = n.Get("fetch", newValue) })
	}
	wg.Wait()
	for i, v := range got {
		if v != got[0] {
			t.Fatalf("goroutine %d received %p, goroutine 0 %p", i, v, got[0])
		}
	}
	if n.Len() != 1 {
		t.Errorf("%d names kept, want 1", n.Len())
	}
}
