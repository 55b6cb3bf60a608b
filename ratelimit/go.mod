module github.com/herdsafe/backoff/ratelimit

go 1.25.0

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/herdsafe/backoff v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
	golang.org/x/time v0.15.0
)

replace github.com/herdsafe/backoff => ../
