module github.com/herdsafe/backoff

go 1.25

require github.com/benbjohnson/clock v1.3.5

require go.uber.org/goleak v1.3.0
