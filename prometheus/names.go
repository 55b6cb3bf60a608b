package prombackoff

// DefaultNamespace is the namespace, the first part of every metric's name,
// unless WithNamespace says otherwise: backoff_retries_total, where stamina
// has stamina_retries_total.
const DefaultNamespace = "backoff"

// DefaultMaxRetryNum is the cap of the retry_num label unless
// WithMaxRetryNum says otherwise: the retries 1 to 9 have a value each,
// and the later ones share "10+".
const DefaultMaxRetryNum = 10

// MaxRetryNum is the largest cap WithMaxRetryNum accepts. Each value of
// retry_num is a series for every name and error type, so a cap near it
// is already more series than a dashboard can use.
const MaxRetryNum = 1000

// Unnamed is the name label of an unnamed operation: of the Instrumenter
// itself, rather than of one that Named returns.
const Unnamed = "unnamed"

// Label names.
const (
	labelName      = "name"
	labelOutcome   = "outcome"
	labelRetryNum  = "retry_num"
	labelErrorType = "error_type"
	labelCause     = "cause"
)
