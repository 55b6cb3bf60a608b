package bulkhead

import (
	"context"
	"strconv"
)

// Priority is how much a call matters, as a [PriorityBulkhead] weighs it
// when it fills: it sheds [Low] calls first, then [Standard] ones, and
// admits [Critical] calls until it is full. Priorities are ordered: Low <
// Standard < Critical. The zero value is Standard. A value below Low
// counts as Low, and one above Critical as Critical.
type Priority int8

// The priorities, least important first.
const (
	// Low is for work that can wait or be dropped: background jobs,
	// prefetches, batch traffic.
	Low Priority = iota - 1
	// Standard is for ordinary calls, and for every call whose context
	// carries no priority.
	Standard
	// Critical is for calls that must get through while the bulkhead has
	// any slot free: the user-facing request, the health check.
	Critical
)

// String returns "low", "standard" or "critical", or "Priority(n)" for
// another value.
func (p Priority) String() string {
	switch p {
	case Low:
		return "low"
	case Standard:
		return "standard"
	case Critical:
		return "critical"
	}
	return "Priority(" + strconv.Itoa(int(p)) + ")"
}

// index returns p's place in per-priority arrays: 0 for Low, 2 for
// Critical, clamping values outside them.
func (p Priority) index() int {
	return int(min(max(p, Low), Critical) - Low)
}

// priorityKey is the context key of a call's Priority.
type priorityKey struct{}

// WithPriority returns a copy of ctx that carries the priority p, for the
// [PriorityBulkhead] guards the call passes. A context without one is
// [Standard].
func WithPriority(ctx context.Context, p Priority) context.Context {
	return context.WithValue(ctx, priorityKey{}, p)
}

// PriorityFrom returns the priority ctx carries, as [WithPriority] set it,
// or [Standard] if it carries none.
func PriorityFrom(ctx context.Context) Priority {
	p, _ := ctx.Value(priorityKey{}).(Priority)
	return p
}
