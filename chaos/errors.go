package chaos

import "github.com/herdsafe/backoff/internal/setting"

// settings makes the errors of the settings an Injector cannot use.
const settings = setting.Package("chaos")

var (
	errNilContext = settings.NilContext()               // of Allow given a nil context
	errNotMade    = settings.NotMade("Injector", "New") // of an Injector New did not make
)
