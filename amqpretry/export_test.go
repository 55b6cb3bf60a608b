package amqpretry

// ExampleURL is the URL of the examples' broker, the one TestMain starts.
var ExampleURL string
