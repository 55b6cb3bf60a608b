package backoff

// marksOf is MarksOf, for the tests written against the unexported names.
func marksOf(err error) Marks { return MarksOf(err) }
