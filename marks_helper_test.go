package backoff

// marksOf walks err's chain and returns its marks, as the decision does.
func marksOf(err error) (m marks) {
	m.walk(err)
	m.lastOf(err)
	return m
}
