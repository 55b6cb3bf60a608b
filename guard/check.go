package guard

import "github.com/herdsafe/backoff/internal/typednil"

// Check is the rule every taker of a guard applies before using it (a
// policy stage, httpretry's and the gRPC module's options, a shedder, a
// hedger's budget): a nil g, typed or not, cannot be used (isNil), nor
// can one that implements Validator and reports an error (invalid, that
// error). The taker words its own ErrInvalidConfiguration from them,
// naming its option.
func Check(g Guard) (isNil bool, invalid error) {
	if g == nil || typednil.Is(g) {
		return true, nil
	}
	if v, ok := g.(Validator); ok {
		return false, v.Validate()
	}
	return false, nil
}
