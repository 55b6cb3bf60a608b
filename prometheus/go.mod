module github.com/herdsafe/backoff/prometheus

go 1.25.0

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/herdsafe/backoff v0.0.0-00010101000000-000000000000
	github.com/prometheus/client_golang v1.24.1
	github.com/prometheus/client_model v0.6.2
	github.com/prometheus/common v0.70.1
	go.uber.org/goleak v1.3.0
)

require golang.org/x/time v0.15.0 // indirect

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/herdsafe/backoff/ratelimit v0.0.0-00010101000000-000000000000
	github.com/kylelemons/godebug v1.1.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/procfs v0.21.1 // indirect
	golang.org/x/sys v0.47.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)

replace github.com/herdsafe/backoff => ../

replace github.com/herdsafe/backoff/ratelimit => ../ratelimit
