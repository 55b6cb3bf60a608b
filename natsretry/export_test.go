package natsretry

// ExampleURL is the URL of the examples' server, a nats-server that
// TestMain starts.
var ExampleURL string
