// Package hedge cuts tail latency by hedging: when an attempt has not
// answered after a delay, another is started, and the first to succeed
// wins; the others are cancelled through their contexts.
//
//	h := hedge.New(hedge.WithDelay(50*time.Millisecond), hedge.WithMaxAttempts(3))
//	v, err := hedge.Do(ctx, h, inner, hedge.Idempotent(read))
//
// Each attempt runs read through the inner [policy.Policy], with
// [policy.Do] (nil: read alone): a timeout or a breaker for each attempt
// goes there, as policy.Timeout or policy.Guard. Stages that must see the
// whole hedged call, such as a bulkhead or a fallback, go in a Policy
// around it:
//
//	v, err := policy.Do(ctx, outer, func(ctx context.Context) (T, error) {
//		return hedge.Do(ctx, h, inner, hedge.Idempotent(read))
//	})
//
// # Only for idempotent operations
//
// A hedged operation runs more than once, at the same time. [Do] takes
// an [Op], which only [Idempotent] makes, so that every hedged call site
// says, in its own words, that the operation may be run so; see [Op] for
// why the declaration is not carried by the context.
//
// # Why hedging is not a Policy stage
//
// Hedging must run the caller's function on other goroutines, so that the
// call can return the moment any attempt answers. A Policy stage that did
// so would move every call's function through every Policy to the heap,
// and a Policy's calls allocate nothing. Hedging is therefore an entry
// point of its own that takes a Policy for its attempts, and it allocates
// (see the Cost section of [Do]).
//
// # Load
//
// Every hedge is extra load on the dependency. The delay sets how much:
// about the dependency's 95th percentile latency makes a second attempt on
// about one call in twenty, as Dean and Barroso recommend ("The Tail at
// Scale", CACM 2013; in their BigTable benchmark, hedging after 10 ms cut
// the 99.9th percentile from 1,800 ms to 74 ms for 2% more requests).
// [WithBudget] can bound the load further, with a
// guard such as a retry budget that is asked before every extra attempt
// and whose refusal only suppresses that attempt.
//
// # Time
//
// The delay is measured on the Hedger's clock ([WithClock]), so that a test
// drives it with a *clock.Mock or inside a testing/synctest bubble.
package hedge
