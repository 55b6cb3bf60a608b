package backoff

// findAs is errors.As for a type parameter: it finds the first error in
// err's chain (depth first, as errors.As walks it) that is an E, without the
// allocation errors.As makes for its target. Errors with an As method are
// handed to errors.As semantics through that method.
func findAs[E error](err error) (E, bool) {
	for err != nil {
		if e, ok := err.(E); ok {
			return e, true
		}
		if x, ok := err.(interface{ As(any) bool }); ok {
			var e E
			if x.As(&e) {
				return e, true
			}
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				if e, ok := findAs[E](inner); ok {
					return e, true
				}
			}
			var zero E
			return zero, false
		default:
			var zero E
			return zero, false
		}
	}
	var zero E
	return zero, false
}
