module github.com/herdsafe/backoff/amqpretry

go 1.25

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/herdsafe/backoff v0.0.0-00010101000000-000000000000
	github.com/rabbitmq/amqp091-go v1.17.0
	go.uber.org/goleak v1.3.0
)

replace github.com/herdsafe/backoff => ../
