package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/policy"
)

// policyTarget calls through policy.Do with a Policy of, outermost first,
// a bulkhead, a retry stage, a breaker and a timeout per attempt: the order
// the policy package's documentation recommends. Each attempt is
// a plain GET over the counting base.
type policyTarget struct {
	url    string
	bt     *counting
	client *http.Client
	bh     *bulkhead.Bulkhead
	cb     *breaker.Breaker
	policy *policy.Policy

	mu       sync.Mutex    // guards what follows, which the breaker's hook writes
	opened   int           // trips: changes to Open
	openFor  time.Duration // time spent open or half-open, until the last close
	openedAt time.Time     // when it last left Closed, if it has not closed since
}

// stateChanged is the breaker's hook: it times the spells away from
// Closed.
func (p *policyTarget) stateChanged(from, to breaker.State) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	switch {
	case to == breaker.Open:
		p.opened++
		if from == breaker.Closed {
			p.openedAt = now
		}
	case to == breaker.Closed && !p.openedAt.IsZero():
		p.openFor += now.Sub(p.openedAt)
		p.openedAt = time.Time{}
	}
}

func newPolicyTarget(cfg config, url string, base *counting) (*policyTarget, error) {
	var bopts []bulkhead.Option
	if cfg.bulkheadQueue > 0 {
		bopts = append(bopts, bulkhead.WithQueue(cfg.bulkheadQueue))
	}
	if cfg.bulkheadWait > 0 {
		bopts = append(bopts, bulkhead.WithMaxWait(cfg.bulkheadWait))
	}
	var p *policyTarget
	p = &policyTarget{
		url:    url,
		bt:     base,
		client: &http.Client{Transport: base},
		bh:     bulkhead.New(cfg.bulkhead, bopts...),
		cb: breaker.New(
			breaker.WithFailureRate(cfg.breakerRate, cfg.breakerMin, cfg.breakerWindow),
			breaker.WithOpenDuration(cfg.breakerOpen),
			breaker.WithStateChange(func(from, to breaker.State) { p.stateChanged(from, to) }),
		),
	}
	p.policy = policy.New(
		policy.Guard(p.bh),
		policy.Retry(
			backoff.WithMaxTries(uint(cfg.maxTries)),
			backoff.WithBackOff(newBackOff(cfg)),
		),
		policy.Guard(p.cb),
		policy.Timeout(cfg.attemptTimeout),
	)
	// A Policy that cannot be used fails every call: find out now, with a
	// call whose context is already done, which runs nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c, e, _ := classify(p.policy.DoErr(ctx, func(context.Context) error { return nil })); c == causeInvalid {
		return nil, fmt.Errorf("the policy cannot be used: %v", e.Cause)
	}
	return p, nil
}

// call runs one GET through the Policy. An attempt fails on a transport
// error, a body that could not be read and a 503, which carries the
// server's Retry-After as a backoff.RetryAfter.
func (p *policyTarget) call(ctx context.Context) outcome {
	n := 0
	_, err := policy.Do(ctx, p.policy, func(actx context.Context) (struct{}, error) {
		n++
		return struct{}{}, p.get(actx)
	})
	if err != nil {
		return failedWith(err, int32(n))
	}
	return outcome{ok: true, attempts: n, reported: -1}
}

// get is one attempt.
func (p *policyTarget) get(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return backoff.Permanent(err)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		return err
	case resp.StatusCode == http.StatusOK:
		return nil
	}
	serr := &statusError{code: resp.StatusCode}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		return backoff.RetryAfter(time.Duration(s)*time.Second, serr)
	}
	return serr
}

func (p *policyTarget) close() { p.client.CloseIdleConnections() }

func (p *policyTarget) base() *counting { return p.bt }

// check finds the bulkhead empty, as it must be once every call has
// returned, and reports the guards' figures.
func (p *policyTarget) check() (problems, figures []string) {
	bs := p.bh.Stats()
	if bs.InFlight != 0 || bs.Queued != 0 {
		problems = append(problems, fmt.Sprintf("the bulkhead still holds %d slots and %d queued callers after every call returned", bs.InFlight, bs.Queued))
	}
	cs := p.cb.Counts()
	p.mu.Lock()
	opened, openFor := p.opened, p.openFor
	if !p.openedAt.IsZero() {
		openFor += time.Since(p.openedAt)
	}
	p.mu.Unlock()
	figures = append(figures,
		fmt.Sprintf("bulkhead: capacity %d, in flight %d, queued %d, refused %d, turned away cancelled %d",
			bs.Capacity, bs.InFlight, bs.Queued, bs.Refused, bs.Canceled),
		fmt.Sprintf("breaker: %v now; opened %d times, %.1fs open or half-open in all; %d transitions; successes %d, failures %d, neutral %d, ignored %d, rejections %d",
			p.cb.State(), opened, openFor.Seconds(), cs.Transitions, cs.Successes, cs.Failures, cs.Neutral, cs.Ignored, cs.Rejections),
	)
	return problems, figures
}
