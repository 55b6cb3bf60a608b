package herd

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Overload is a server whose latency grows with the calls in flight, a
// queue in front of a fixed number of workers, facing a load above its
// capacity; see Server.
const Overload Scenario = "overload"

// Defaults of the Overload scenario. The capacity is DefaultWorkers /
// DefaultServiceMean, 10,000 calls a second; a call that meets no queue
// takes DefaultServiceMean plus two network delays, 40 ms: the no-load
// latency. With 10 clients, the healthy server runs full with 40 calls in
// flight per client (Server.HealthyConcurrency): 400 in all.
const (
	// DefaultWorkers is how many calls the server serves at once.
	DefaultWorkers = 200
	// DefaultServiceMean and DefaultServiceStdDev are the mean and the
	// standard deviation of the time a worker takes per call, drawn from
	// a lognormal distribution: its no-load p99 is about 5 times its
	// mean (see Tail).
	DefaultServiceMean   = 20 * time.Millisecond
	DefaultServiceStdDev = 20 * time.Millisecond
	// DefaultTimeout is how long a client waits for an answer before it
	// gives the call up: 25 times the no-load latency.
	DefaultTimeout = time.Second
)

// Stage is a stretch of the Overload scenario with a constant load and a
// constant capacity.
type Stage struct {
	// Name is short and stable, fit for a table column.
	Name string
	// Duration is how long the stage lasts.
	Duration time.Duration
	// Load is the rate at which the fleet starts calls, as a fraction of
	// the server's full capacity (Server.Capacity): 2 is twice what the
	// server can serve.
	Load float64
	// Capacity is the fraction, in (0, 1], of the server's workers in
	// service (rounded, one at least): 0.5 is half of them lost.
	Capacity float64
}

// DefaultStages returns the stages of the Overload scenario unless
// Server.Stages says otherwise: warmup (10 s at half the capacity, in
// which the guards learn the no-load latency), overload (20 s at twice
// the capacity: the load steps up), capacity-down (20 s at the same load,
// with half of the workers lost) and capacity-up (20 s with every worker
// back). Everything after warmup is measured.
func DefaultStages() []Stage {
	return []Stage{
		{Name: "warmup", Duration: 10 * time.Second, Load: 0.5, Capacity: 1},
		{Name: "overload", Duration: 20 * time.Second, Load: 2, Capacity: 1},
		{Name: "capacity-down", Duration: 20 * time.Second, Load: 2, Capacity: 0.5},
		{Name: "capacity-up", Duration: 20 * time.Second, Load: 2, Capacity: 1},
	}
}

// Server is the server of the Overload scenario and the load on it: a
// queue (first come, first served, without bound, unless Queue says
// otherwise) in front of Workers workers, each serving one call at a time
// for a service time drawn from a lognormal distribution of mean
// Service.Mean and deviation Service.StdDev (or |Normal(Service.Mean,
// Service.StdDev)|, see Tail). The fleet starts calls as a Poisson
// process (or evenly spaced, see Arrivals) at the rate of the stage
// (Stage.Load), each on the next client in turn; a call goes through its
// client's guards (Config.NewGuards), and, if admitted, reaches the
// server one network delay later, waits for a worker, is served, and its
// answer reaches the client one network delay after that. A client gives
// a call up at Timeout: the call then fails (its guards are told of a
// context.DeadlineExceeded, as by a timeout stage inside them), but the
// server, which cannot tell unless Queue.DropExpired, still serves it
// when its turn comes. So the queue of a server without guards or
// policies grows without bound, and once its wait passes the timeout
// every call it serves is one its client gave up on. A call the Queue
// refuses or drops fails with an error its guards are told of.
//
// The zero Server means the defaults: DefaultWorkers, lognormal service
// times of DefaultServiceMean and DefaultServiceStdDev, Poisson arrivals,
// DefaultTimeout and DefaultStages; a zero field of a Server that is not
// zero takes its default too. SteadyServer is the kinder model of
// earlier versions.
type Server struct {
	// Workers is how many calls the server serves at once, at full
	// capacity.
	Workers int
	// Service is the mean and the standard deviation of the time a
	// worker takes per call; zero means DefaultServiceMean and
	// DefaultServiceStdDev.
	Service Delay
	// Tail is the service time's distribution: Lognormal (the zero
	// value) or Normal; see SteadyServer.
	Tail Tail
	// Arrivals is how the fleet starts calls: Poisson (the zero value, a
	// Poisson process at the stage's rate) or Even (evenly spaced).
	Arrivals Arrivals
	// Queue is the server's own policy for the calls that wait: by
	// default a first-come-first-served queue without bound.
	Queue Queue
	// Timeout is how long a client waits for an answer.
	Timeout time.Duration
	// Stages are the load and the capacity over time; nil means
	// DefaultStages.
	Stages []Stage
}

// Tail is the distribution of a Server's service times.
type Tail string

const (
	// Lognormal service times have a real tail: exp(Normal(μ, σ)) with
	// the Mean and StdDev given. With a deviation equal to the mean, the
	// default, the p99 is about 5 times the mean.
	Lognormal Tail = ""
	// Normal service times are |Normal(Mean, StdDev)|: with a small
	// deviation nearly constant, a no-load p99 close to the mean.
	Normal Tail = "normal"
)

// Queue is a server's policy for the calls waiting for a worker. The
// zero Queue is first-come-first-served, without bound, and serves every
// call it has taken, even one whose client has given up.
type Queue struct {
	// Limit bounds the calls waiting; a call that arrives to a full
	// queue is refused at once, its answer an error. 0: no bound.
	Limit int
	// LIFO serves the newest call first whenever more calls wait than
	// the server has workers, as Facebook's adaptive LIFO and Netflix's
	// LIFO blocking limiter do: under overload the calls served are those
	// whose callers still wait, and the oldest time out in the queue.
	LIFO bool
	// DropExpired makes a worker drop, rather than serve, a call whose
	// client has given up, or that cannot be answered before its client
	// gives up (the server knows the callers' deadline, as with gRPC's
	// deadline propagation): a call dropped while its client waits is
	// answered with an error at once.
	DropExpired bool
}

// SteadyServer returns the Server of the Overload scenario as earlier
// versions had it: calls started evenly spaced, service times of
// |Normal(20 ms, 2 ms)|, nearly constant. Its no-load p99 is a few
// percent above its no-load mean, where the default Server's (Poisson
// arrivals, lognormal service times) is about 3 times it: a model kinder
// to every guard than most servers are.
func SteadyServer() Server {
	return Server{Service: Delay{Mean: DefaultServiceMean, StdDev: 2 * time.Millisecond}, Tail: Normal, Arrivals: Even}
}

// withDefaults returns s with its zero fields set to their defaults.
func (s Server) withDefaults() Server {
	s.Workers = cmp.Or(s.Workers, DefaultWorkers)
	s.Service = cmp.Or(s.Service, Delay{Mean: DefaultServiceMean, StdDev: DefaultServiceStdDev})
	s.Timeout = cmp.Or(s.Timeout, DefaultTimeout)
	if s.Stages == nil {
		s.Stages = DefaultStages()
	}
	return s
}

// Capacity returns the calls a second the server serves with every
// worker in service: Workers / Service.Mean, with the defaults of a zero
// field.
func (s Server) Capacity() float64 {
	s = s.withDefaults()
	return float64(s.Workers) / s.Service.Mean.Seconds()
}

// NoLoad returns the latency of a call that meets no queue, with the
// network delay d (zero: the default): a delay each way and a mean service
// time. It is what p99_x and the other latencies of an OverloadResult are
// relative to.
func (s Server) NoLoad(d Delay) time.Duration {
	s = s.withDefaults()
	if d == (Delay{}) {
		d.Mean = DefaultDelayMean
	}
	return 2*d.Mean + s.Service.Mean
}

// NoLoadP99 returns the 99th percentile of the latency of a call that
// meets no queue, with the network delay d (zero: the default): two
// delays and a service time, drawn 100,000 times with a fixed seed. It
// is what p99_p99 is relative to: against the no-load mean, a server
// whose service times have a tail looks overloaded when it is idle.
func (s Server) NoLoadP99(d Delay) time.Duration {
	s = s.withDefaults()
	if d == (Delay{}) {
		d = Delay{Mean: DefaultDelayMean, StdDev: DefaultDelayStdDev}
	}
	rng := rand.New(rand.NewPCG(0x6e6f6c6f6164, 0x703939))
	lat := make([]time.Duration, 100_000)
	for i := range lat {
		lat[i] = d.draw(rng) + d.draw(rng) + s.drawService(rng)
	}
	slices.Sort(lat)
	return lat[len(lat)*99/100]
}

// draw draws one network delay, |Normal(Mean, StdDev)|.
func (d Delay) draw(rng *rand.Rand) time.Duration {
	if d.StdDev == 0 {
		return d.Mean
	}
	return time.Duration(math.Min(math.Abs(float64(d.Mean)+rng.NormFloat64()*float64(d.StdDev)), math.MaxInt64/4))
}

// drawService draws one service time of s, defaults set.
func (s Server) drawService(rng *rand.Rand) time.Duration {
	d := s.Service
	if d.StdDev == 0 {
		return d.Mean
	}
	if s.Tail != Normal {
		cv := float64(d.StdDev) / float64(d.Mean)
		sigma := math.Sqrt(math.Log1p(cv * cv))
		mu := math.Log(float64(d.Mean)) - sigma*sigma/2
		return time.Duration(math.Min(math.Exp(mu+sigma*rng.NormFloat64()), math.MaxInt64/4))
	}
	return time.Duration(math.Min(math.Abs(float64(d.Mean)+rng.NormFloat64()*float64(d.StdDev)), math.MaxInt64/4))
}

// HealthyConcurrency returns the calls in flight per client with which
// clients clients keep the server at full capacity without a queue: by
// Little's law, the capacity times the no-load latency, shared among the
// clients, rounded up. It is the size of a fixed bulkhead set for the
// healthy server (see OverloadStrategies).
func (s Server) HealthyConcurrency(clients int, d Delay) int {
	n := s.Capacity() * s.NoLoad(d).Seconds() / float64(max(clients, 1))
	return max(1, int(math.Ceil(n-1e-9)))
}

// validateOverload reports the first setting of the Overload scenario that
// cannot be simulated, in a Config with its defaults set.
func (c Config) validateOverload() error {
	s := c.Server.withDefaults()
	switch {
	case s.Workers < 0 || s.Workers > MaxWorkers:
		return invalid("Server.Workers is %d; it must lie in [1, %d]", s.Workers, MaxWorkers)
	case s.Service.Mean <= 0 || s.Service.StdDev < 0:
		return invalid("Server.Service (%v, %v): the mean must be positive and the deviation not negative", s.Service.Mean, s.Service.StdDev)
	case s.Timeout <= 0:
		return invalid("Server.Timeout is %v; it must be positive", s.Timeout)
	case s.Tail != Normal && s.Tail != Lognormal:
		return invalid("Server.Tail is %q; use %q or %q", clip(string(s.Tail)), Normal, Lognormal)
	case s.Arrivals != Even && s.Arrivals != Poisson && s.Arrivals != "":
		return invalid("Server.Arrivals is %q; use %q or %q", clip(string(s.Arrivals)), Poisson, Even)
	case s.Queue.Limit < 0:
		return invalid("Server.Queue.Limit is %d; it must not be negative", s.Queue.Limit)
	case len(s.Stages) == 0:
		return invalid("Server.Stages is empty; the scenario needs one stage at least")
	}
	var total time.Duration
	calls := 0.0
	for i, st := range s.Stages {
		switch {
		case st.Duration <= 0:
			return invalid("Server.Stages[%d] (%q) lasts %v; it must last some time", i, st.Name, st.Duration)
		case !(st.Load > 0) || math.IsInf(st.Load, 0):
			return invalid("Server.Stages[%d] (%q) has a Load of %v; it must be a positive fraction of the capacity", i, st.Name, st.Load)
		case !(st.Capacity > 0 && st.Capacity <= 1):
			return invalid("Server.Stages[%d] (%q) has a Capacity of %v; it must lie in (0, 1]", i, st.Name, st.Capacity)
		}
		total += st.Duration
		calls += st.Load * s.Capacity() * st.Duration.Seconds()
	}
	switch {
	case total > c.Horizon:
		return invalid("the Server.Stages last %v, longer than the Horizon (%v)", total, c.Horizon)
	case calls > MaxUserCalls:
		return invalid("the Server.Stages start %.3g calls; at most %d", calls, MaxUserCalls)
	}
	return nil
}

// MaxWorkers bounds Server.Workers.
const MaxWorkers = 1_000_000
