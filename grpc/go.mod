module github.com/herdsafe/backoff/grpc

go 1.25.0

replace github.com/herdsafe/backoff => ../

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/herdsafe/backoff v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260706201446-f0a921348800
	google.golang.org/grpc v1.84.0
	google.golang.org/protobuf v1.36.11
)

require (
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.40.0 // indirect
)
