module github.com/herdsafe/backoff/mysqlretry

go 1.25.0

replace (
	github.com/herdsafe/backoff => ../
	github.com/herdsafe/backoff/sqlretry => ../sqlretry
)

require (
	github.com/go-sql-driver/mysql v1.11.0
	github.com/herdsafe/backoff v0.0.0-00010101000000-000000000000
	github.com/herdsafe/backoff/sqlretry v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
)

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/benbjohnson/clock v1.3.5 // indirect
)
