package bulkhead_test

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff/bulkhead"
)

func TestPriorityFromContext(t *testing.T) {
	bg := context.Background()
	cases := []struct {
		name string
		ctx  context.Context
		want bulkhead.Priority
	}{
		{"none", bg, bulkhead.Standard},
		{"low", bulkhead.WithPriority(bg, bulkhead.Low), bulkhead.Low},
		{"standard", bulkhead.WithPriority(bg, bulkhead.Standard), bulkhead.Standard},
		{"critical", bulkhead.WithPriority(bg, bulkhead.Critical), bulkhead.Critical},
		{"innermost wins", bulkhead.WithPriority(bulkhead.WithPriority(bg, bulkhead.Critical), bulkhead.Low), bulkhead.Low},
		{"through a derived context", func() context.Context {
			ctx, cancel := context.WithCancel(bulkhead.WithPriority(bg, bulkhead.Critical))
			cancel()
			return ctx
		}(), bulkhead.Critical},
		{"as given", bulkhead.WithPriority(bg, 9), 9},
	}
	for _, c := range cases {
		if got := bulkhead.PriorityFrom(c.ctx); got != c.want {
			t.Errorf("%s: PriorityFrom = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPriorityOrderAndZeroValue(t *testing.T) {
	var zero bulkhead.Priority
	if zero != bulkhead.Standard {
		t.Errorf("the zero Priority is %v, want standard", zero)
	}
	if !(bulkhead.Low < bulkhead.Standard && bulkhead.Standard < bulkhead.Critical) {
		t.Error("priorities out of order")
	}
}

func TestPriorityString(t *testing.T) {
	for p, want := range map[bulkhead.Priority]string{
		bulkhead.Low:      "low",
		bulkhead.Standard: "standard",
		bulkhead.Critical: "critical",
		5:                 "Priority(5)",
		-4:                "Priority(-4)",
	} {
		if got := p.String(); got != want {
			t.Errorf("Priority(%d).String() = %q, want %q", int(p), got, want)
		}
	}
}
