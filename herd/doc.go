// Package herd simulates a fleet of clients that retry together, so that a
// retry schedule's cost to the server can be seen before it ships.
//
// A BackOff is chosen for one process, but its cost is paid by the server,
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
// The retry loops are the library's own, not a copy of their logic:
// each client of OCC, Restart, Shed and Pushback retries through a
// [backoff.Retrier] (WithBackOff with its BackOff, WithMaxTries(MaxCalls)),
// each client of Outage through a [policy.Policy] of a retry stage and the
// client's guards, each client of Overload through a Policy of its guards
// alone, all on the simulation's virtual clock ([backoff.WithClock]). So
// whether to retry, how long to wait, what a guard's refusal ends and
// what each guard is told are decided by the driver's and the policy's
// code, exactly as in a program. Each retry loop runs as a coroutine of
// the simulation (iter.Pull): it runs only while the simulation hands it
// control, and hands it back whenever it would wait, for the answer to
// an attempt or for its backoff timer, which fires at the virtual instant
// it is due. Exactly one of them runs at any moment, so a run stays
// deterministic. The guards read the simulation's virtual time through
// the clock.Clock they are given.
//
// Six scenarios are built in:
//
//   - [OCC] is the experiment of the AWS Architecture Blog's "Exponential
//     Backoff And Jitter" (2015): every client wants one successful update
//     of a single row under optimistic concurrency. A client reads the row's
//     version and sends a write carrying it; the write succeeds only if the
//     version is unchanged, and then bumps it. After a failed write the
//     client waits its BackOff's next backoff, reads again and writes again.
//     A call is a write reaching the server.
//   - [Restart] is a server restart: at time 0 every client has lost its
//     connection and tries to reconnect, and the server accepts at most
//     Capacity new connections per window; an attempt over capacity fails.
//     A call is a connection attempt reaching the server.
//   - [Outage] is the SRE book's retry analysis ("Site Reliability
//     Engineering", O'Reilly 2016, chapter 21 "Handling Overload", section
//     "Deciding to Retry"): a fleet under a steady load whose dependency
//     goes down. Each client starts Config.Rate user calls a second, as a
//     Poisson process unless Config.Arrivals says Even, and each user call
//     runs a retry loop of up to Config.Tries attempts (3) with the waits
//     of its BackOff, through the client's guards (Config.NewGuards: retry
//     budgets, a breaker, a throttle, each client its own; a [Stack] reads
//     them from an expression such as "token-bucket+breaker(open=5s)"). The dependency is healthy, then down
//     (every call fails), then degraded (a fraction of the calls fail),
//     then healthy again (see [Phases]). What is measured is the load the
//     fleet sends relative to its base load, per window and per phase
//     (the amplification), how long after the dependency recovered the
//     fleet's load is back to normal and its user calls succeed again, and
//     how many user calls failed in each phase; see [OutageResult]. A call
//     is an attempt the fleet sends.
//   - [Shed] and [Pushback] are the server's side of a restart: every
//     client sends one request at time 0, with retries, to a server that
//     serves Config.Capacity requests at once, each for ShedServiceTime,
//     and sheds the others: the Shedder of package httpshed over a
//     bulkhead, driven in virtual time. In Shed its 503 is bare, and each
//     client waits its BackOff's next backoff; in Pushback it carries the
//     Retry-After the Shedder computes, and each client's driver waits it,
//     spread by httpretry.RetryAfterWait as a Transport of package
//     httpretry spreads it, as the named wait of a backoff.RetryAfter
//     error, with its BackOff started over. A call is a
//     request reaching the server.
//   - [Overload] is a server with more work than it can do: a queue in
//     front of a fixed number of workers (see [Server]), so that its
//     latency grows with the calls in flight, facing a load above its
//     capacity. Calls arrive as a Poisson process and take lognormal
//     service times, whose p99 is several times their mean
//     ([SteadyServer] is the kinder model of even arrivals and nearly
//     constant service times), and the server may have policies of its
//     own ([Queue]: a bound, LIFO under overload, dropping the calls
//     whose callers gave up). The fleet starts calls at a rate the stages set (by
//     default half the capacity, then twice it, then twice it with half of
//     the workers lost, then with all of them back), each through its
//     client's guards (a fixed bulkhead, an adaptive concurrency limiter),
//     and each client gives a call up at a timeout, which the server, not
//     knowing, still serves. What is measured is the goodput (the calls
//     answered in time per second, relative to the capacity), the latency
//     of the calls sent relative to the no-load latency, and how long
//     after each step the fleet's limit took to settle; see
//     [OverloadResult]. A call is a call the fleet sends.
//
// Every message takes an independent one-way network delay drawn from
// |Normal(mean, stddev)|, 10 ms and 2 ms by default.
//
// [Strategies] lists the BackOffs the command cmd/herd compares, each
// built from this library's own BackOffs: exponential backoff without
// jitter, with full, equal and decorrelated jitter, the library's default
// ExponentialBackOff, and immediate retry as the control.
// [OutageStrategies] lists those it compares in Outage: retries alone,
// behind each retry budget, a circuit breaker, adaptive throttling, and
// all three. [OverloadStrategies] lists those it compares in Overload: no
// guard, a fixed bulkhead, and the adaptive limiter on each of its rules.
//
// [Layers] is a chain of services whose bottom dependency fails, each tier
// retrying the one below through a Policy of its own: it measures the
// calls the dependency receives per user call (3 tiers of 3 tries: 27)
// with each tier retrying, with the "do not retry" signal of package hop,
// with a retry budget per tier, and with servers that shed retries first.
package herd
