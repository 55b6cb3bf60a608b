module github.com/herdsafe/backoff/pgretry

go 1.25.0

replace (
	github.com/herdsafe/backoff => ../
	github.com/herdsafe/backoff/sqlretry => ../sqlretry
)

require (
	github.com/herdsafe/backoff v0.0.0-00010101000000-000000000000
	github.com/herdsafe/backoff/sqlretry v0.0.0-00010101000000-000000000000
	github.com/jackc/pgx/v5 v5.13.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/benbjohnson/clock v1.3.5 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
