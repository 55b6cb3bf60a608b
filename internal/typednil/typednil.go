// Package typednil tells an interface value that holds a nil pointer (a
// typed nil) from one that holds a value: the check the options of this
// module make on what a caller passes, so that a typed nil is reported as
// an invalid configuration rather than dereferenced later.
package typednil

import "reflect"

// Is reports whether v, an interface value that is not nil, holds a nil
// pointer, map, slice, func or channel: a typed nil, whose methods would
// most likely dereference nil. It is false for nil itself.
func Is(v any) bool {
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}
