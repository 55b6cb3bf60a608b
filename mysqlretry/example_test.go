package mysqlretry_test

// ExampleDSN is the server the examples use: the tests' own when they
// have one.
var ExampleDSN = "app@tcp(127.0.0.1:3306)/test"
