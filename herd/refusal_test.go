package herd

import (
	"errors"
	"testing"

	"github.com/herdsafe/backoff/guard"
)

// errList is an error type that cannot be compared, so the view must not
// compare it with the last one.
type errList []string

func (e errList) Error() string { return "list" }

func TestStageView(t *testing.T) {
	t.Parallel()
	errNo := errors.New("no")
	errBoom := errors.New("boom")
	v := newStageView()
	for range 2 { // the second time from what the view remembers
		outer, refused := v.view(errNo)
		if !refused || !guard.IsRefusal(outer) || !errors.Is(outer, errNo) {
			t.Fatalf("a refusal: outer %v (a refusal: %v), refused %v", outer, guard.IsRefusal(outer), refused)
		}
	}
	outer, refused := v.view(guard.Failure(errBoom))
	if refused || outer != errBoom {
		t.Fatalf("an error marked as the call's failure: outer %v, refused %v; want boom, false", outer, refused)
	}
	for range 2 {
		outer, refused = v.view(errList{"a"})
		if !refused || !guard.IsRefusal(outer) {
			t.Fatalf("a refusal of a type that cannot be compared: outer %v, refused %v", outer, refused)
		}
	}
	if outer, refused := v.view(errNo); !refused || !errors.Is(outer, errNo) {
		t.Fatalf("after another error, the first again: outer %v, refused %v", outer, refused)
	}
}
