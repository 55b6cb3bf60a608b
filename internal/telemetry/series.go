package telemetry

import (
	"sync"
	"sync/atomic"
)

// MaxNames is how many operation names a Names keeps the values of.
const MaxNames = 1024

// Names maps operation names to values made once for each name, such as
// the series of a metric labelled with the name, so that an attempt finds
// its series without building them. It is read on every attempt, without a
// lock, and copied on write: names are few, each written once.
//
// It keeps the values of MaxNames names at most; past that, Get makes the
// value of a name it does not keep on every call, so that an unbounded set
// of names (which names must not be: name operations, not requests) costs
// time rather than memory.
//
// The zero value is an empty Names, ready to use. A Names is safe for
// concurrent use; it must not be copied after first use.
type Names[V any] struct {
	m  atomic.Pointer[map[string]V] // replaced, never changed
	mu sync.Mutex                   // serializes the writes of m
}

// Get returns the value of name, which build(name) makes when n keeps none.
// build is called holding no lock, so that it may take locks of its own;
// when concurrent calls make the value of a new name, all receive the one
// kept.
func (n *Names[V]) Get(name string, build func(name string) V) V {
	if m := n.m.Load(); m != nil {
		if v, ok := (*m)[name]; ok {
			return v
		}
	}
	return n.add(name, build(name))
}

// add keeps v as the value of name, unless n keeps one already, which it
// returns, or is full.
func (n *Names[V]) add(name string, v V) V {
	n.mu.Lock()
	defer n.mu.Unlock()
	var old map[string]V
	if m := n.m.Load(); m != nil {
		old = *m
	}
	if kept, ok := old[name]; ok {
		return kept
	}
	if len(old) >= MaxNames {
		return v
	}
	m := make(map[string]V, len(old)+1)
	for k, kv := range old {
		m[k] = kv
	}
	m[name] = v
	n.m.Store(&m)
	return v
}

// Len is the number of names whose values n keeps.
func (n *Names[V]) Len() int {
	if m := n.m.Load(); m != nil {
		return len(*m)
	}
	return 0
}
