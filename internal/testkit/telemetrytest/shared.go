package telemetrytest

// Shared is a SharedGuard whose figures a test sets.
type Shared struct {
	Local                 bool
	Fallbacks, Recoveries uint64
}

// Fallback returns s's figures.
func (s *Shared) Fallback() (local bool, fallbacks, recoveries uint64) {
	return s.Local, s.Fallbacks, s.Recoveries
}
