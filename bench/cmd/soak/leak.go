package main

import (
	"bytes"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// goroutine is one goroutine of a dump of all of them.
type goroutine struct {
	id    uint64
	state string // "select", "IO wait, 2 minutes"...
	stack string // the frames, as runtime.Stack prints them
}

// dumpGoroutines returns every goroutine's stack.
func dumpGoroutines() []goroutine {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return parseDump(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

var header = regexp.MustCompile(`^goroutine (\d+) (?:gp=\S+ m=\S+ (?:mp=\S+ )?)?\[([^\]]*)\]:$`)

// parseDump splits the output of runtime.Stack(buf, true) into goroutines.
// A block whose header it cannot read is kept with id 0.
func parseDump(dump []byte) []goroutine {
	var gs []goroutine
	for _, block := range bytes.Split(bytes.TrimSpace(dump), []byte("\n\n")) {
		head, rest, _ := strings.Cut(string(block), "\n")
		g := goroutine{stack: rest}
		if m := header.FindStringSubmatch(head); m != nil {
			g.id, _ = strconv.ParseUint(m[1], 10, 64)
			g.state = m[2]
		} else {
			g.state = head
		}
		gs = append(gs, g)
	}
	return gs
}

// extra returns the goroutines of after that before does not have.
func extra(before, after []goroutine) []goroutine {
	had := make(map[uint64]bool, len(before))
	for _, g := range before {
		had[g.id] = true
	}
	var out []goroutine
	for _, g := range after {
		if !had[g.id] || g.id == 0 {
			out = append(out, g)
		}
	}
	return out
}

// stackGroup is goroutines with one stack, told apart only by arguments
// and addresses.
type stackGroup struct {
	count int
	state string // of the first
	stack string // of the first
}

var (
	offset    = regexp.MustCompile(` \+0x[0-9a-f]+$`)
	createdIn = regexp.MustCompile(` in goroutine \d+$`)
)

// shape is a stack without what differs between goroutines doing the same
// thing: the arguments, the code offsets, the creator's id.
func shape(stack string) string {
	lines := strings.Split(stack, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "\t"):
			l = offset.ReplaceAllString(l, "")
		case strings.HasPrefix(l, "created by "):
			l = createdIn.ReplaceAllString(l, "")
		case strings.HasSuffix(l, ")"):
			// The arguments are the last parenthesis: they hold none.
			if j := strings.LastIndexByte(l, '('); j > 0 {
				l = l[:j] + "(...)"
			}
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// group groups gs by the shape of their stacks, the largest group first.
func group(gs []goroutine) []stackGroup {
	index := map[string]int{}
	var groups []stackGroup
	for _, g := range gs {
		k := shape(g.stack)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, stackGroup{state: g.state, stack: g.stack})
		}
		groups[i].count++
	}
	slices.SortStableFunc(groups, func(a, b stackGroup) int { return b.count - a.count })
	return groups
}

// settle waits up to d for the number of goroutines to fall to baseline
// or below, and returns the last count.
func settle(baseline int, d time.Duration) int {
	deadline := time.Now().Add(d)
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		n := runtime.NumGoroutine()
		if n <= baseline || !time.Now().Before(deadline) {
			return n
		}
		<-t.C
	}
}
