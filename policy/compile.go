package policy

import (
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// segment is a run of a Policy's stages that one frame runs, as New
// compiles the stage list: the stages outside every retry stage, or those
// inside one retry stage up to the next (what each of its attempts runs).
// A segment also ends before a Recover stage, which starts a segment of
// its own, and after maxGuards guards.
//
// Its steps run in order, outermost first (each guard asked, each
// timeout's deadline derived), then what ends the segment, then the steps
// in reverse (each guard told the outcome, each deadline ended, each
// fallback asked about a failure): see call.run and call.retry.
type segment struct {
	steps    []step
	recovers bool    // a Recover stage stands outside the steps
	end      endKind // what runs inside the steps
	guards   int     // the guards among the steps

	// The retry stage that ends the segment (end == endRetry).
	retry *backoff.Retrier
	kinds *kindLimits // its limits by kind of error: RetryByKind's
	// prechecks are the guards its attempts pass that answer before its
	// wait (see Retry): those of the segments it runs, in order, up to a
	// fallback or a nested retry stage.
	prechecks []guard.Prechecker
}

// endKind is what runs inside a segment's steps.
type endKind uint8

const (
	endFn    endKind = iota // the caller's function
	endRetry                // the retry stage, each of whose attempts runs the next segment
	endNext                 // the next segment, in the same attempt
)

// step is a stage of a segment other than a retry stage or Recover: a
// guard, a timeout or a fallback.
type step struct {
	kind  stageKind
	g     guard.Guard   // a guard
	slot  int           // a guard's place in frame.permits
	after time.Duration // a timeout's duration
	f     any           // a fallback's function
}

// maxGuards is the most guards one segment holds: a frame keeps a permit
// for each.
const maxGuards = 4

// compile returns the segments of stages, the outermost first. stages
// holds no zero Stage and no Stage with an error.
func compile(stages []Stage) []segment {
	segs := []segment{{}}
	split := func(end endKind) {
		segs[len(segs)-1].end = end
		segs = append(segs, segment{})
	}
	for _, s := range stages {
		cur := &segs[len(segs)-1]
		switch s.kind {
		case retryStage:
			cur.retry, cur.kinds = s.retrier, s.kinds
			split(endRetry)
		case recoverStage:
			// A Recover stage starts a segment that call.run runs, in a
			// frame of its own: a retry stage's attempt judges what the
			// recovery returns, and a fallback serves it, after the frame
			// that recovered has returned. Two in a row are one.
			if len(cur.steps) > 0 || len(segs) > 1 && !cur.recovers {
				split(endNext)
			}
			segs[len(segs)-1].recovers = true
		case guardStage:
			if cur.guards == maxGuards {
				split(endNext)
				cur = &segs[len(segs)-1]
			}
			cur.steps = append(cur.steps, step{kind: guardStage, g: s.v.(guard.Guard), slot: cur.guards})
			cur.guards++
		case timeoutStage:
			cur.steps = append(cur.steps, step{kind: timeoutStage, after: s.after})
		case fallbackStage:
			cur.steps = append(cur.steps, step{kind: fallbackStage, f: s.v})
		}
	}
	for i := range segs {
		if segs[i].end == endRetry {
			segs[i].prechecks = prechecks(segs[i+1:])
		}
	}
	return segs
}

// prechecks returns the guards of segs that implement guard.Prechecker,
// in order, up to a fallback or the end of a segment that a retry stage or
// the function ends.
func prechecks(segs []segment) []guard.Prechecker {
	var ps []guard.Prechecker
	for _, s := range segs {
		for _, st := range s.steps {
			switch st.kind {
			case fallbackStage:
				return ps
			case guardStage:
				if p, ok := st.g.(guard.Prechecker); ok {
					ps = append(ps, p)
				}
			}
		}
		if s.end != endNext {
			return ps
		}
	}
	return ps
}
