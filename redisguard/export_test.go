package redisguard

// ExampleAddr is the address of the Redis server the examples use: the
// tests' server, set by TestMain.
var ExampleAddr string
