package pgretry_test

// ExampleConnString is the server the examples use: the tests' own when
// they have one.
var ExampleConnString = "host=127.0.0.1 port=5432 user=postgres dbname=postgres sslmode=disable"
