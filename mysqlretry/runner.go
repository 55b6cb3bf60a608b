package mysqlretry

import "github.com/herdsafe/backoff/sqlretry"

// NewRunner returns a sqlretry.Runner that classifies errors with
// Classify: use its Run method with a *sql.DB opened with the "mysql"
// driver of go-sql-driver/mysql.
func NewRunner(opts ...sqlretry.Option) *sqlretry.Runner {
	return sqlretry.New(Classifier, opts...)
}
