// Package herd simulates a fleet of clients that retry together, so that a
// retry policy's cost to the server can be seen before it ships.
//
// A policy is chosen for one process, but its cost is paid by the server,
// summed over every client that failed at the same moment. [Simulate] runs
// that fleet: N clients, each with a fresh [backoff.BackOff] of its own,
// against a simulated server, and reports the total work (calls that
// reached the server), the time until the last client succeeded, and the
// load on the server per 10 ms window.
//
// The simulation is a deterministic discrete-event simulation in virtual
// time: events wait in a priority queue and the clock jumps from one to the
// next, so nothing sleeps and no goroutine is started. A thousand clients
// retrying for simulated minutes take milliseconds of real time. The same
// [Config], seed included, always gives the same [Result].
// [SimulateContext] stops a simulation early when a context is done.
//
// The policies are driven through the BackOff interface only: the
// simulation calls Reset once per client and then NextBackOff after every
// failed call, exactly as the library's retry driver does, so what is
// measured is the policy a program would really use.
//
// Two scenarios are built in:
//
//   - [OCC] is the experiment of the AWS Architecture Blog's "Exponential
//     Backoff And Jitter" (2015): every client wants one successful update
//     of a single row under optimistic concurrency. A client reads the row's
//     version and sends a write carrying it; the write succeeds only if the
//     version is unchanged, and then bumps it. After a failed write the
//     client waits its policy's next backoff, reads again and writes again.
//     A call is a write reaching the server.
//   - [Restart] is a server restart: at time 0 every client has lost its
//     connection and tries to reconnect, and the server accepts at most
//     Capacity new connections per window; an attempt over capacity fails.
//     A call is a connection attempt reaching the server.
//
// Every message takes an independent one-way network delay drawn from
// |Normal(mean, stddev)|, 10 ms and 2 ms by default.
//
// [Strategies] lists the policies the command cmd/herd compares, each
// built from this library's own policies: exponential backoff without
// jitter, with full, equal and decorrelated jitter, the library's default
// ExponentialBackOff, and immediate retry as the control.
package herd
