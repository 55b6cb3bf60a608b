package pgretry_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/pgretry"
	"github.com/herdsafe/backoff/sqlretry"
	"github.com/jackc/pgx/v5"
)

// The server stopped (a fast shutdown, which terminates every backend) and
// started again while callers of both APIs run transactions: every call
// ends committed, or with an unknown outcome that it reports; none fails
// otherwise, none is applied twice, and the callers reconnect after waits
// drawn from the BackOff, spread by its jitter, not all at once.
func TestRestartUnderLoad(t *testing.T) {
	p, db := newPool(t), newDB(t)
	mustExec(t, p, "DROP TABLE IF EXISTS rs", "CREATE TABLE rs (g int, n int)")
	rec := &record{}
	r := pgretry.NewRunner(sqlretry.WithRetrier(backoff.NewRetrier(
		backoff.WithBackOff(backoff.NewExponentialBackOff(backoff.WithInitialInterval(20*time.Millisecond), backoff.WithMaxInterval(500*time.Millisecond))),
		backoff.WithMaxElapsedTime(60*time.Second), backoff.WithMaxTries(200),
		backoff.WithNotify(rec.notify))))

	const callers = 6
	var (
		started   sync.WaitGroup // each caller committed once before the restart
		restarted atomic.Bool
		wg        sync.WaitGroup
		mu        sync.Mutex
		committed = map[[2]int]bool{}
		unknown   = map[[2]int]bool{}
	)
	started.Add(callers)
	for g := range callers {
		wg.Go(func() {
			after := 0
			for n := 0; n < 1000 && after < 5; n++ {
				fn := func(ctx context.Context, q querier) error {
					return q.exec(ctx, "INSERT INTO rs VALUES ($1, $2)", g, n)
				}
				var err error
				if g%2 == 0 {
					err = pgretry.Run(context.Background(), r, p, func(ctx context.Context, tx pgx.Tx) error { return fn(ctx, pgxQ{tx}) })
				} else {
					err = r.Run(context.Background(), db, func(ctx context.Context, tx *sql.Tx) error { return fn(ctx, sqlQ{tx}) })
				}
				mu.Lock()
				switch {
				case err == nil:
					committed[[2]int{g, n}] = true
				case errors.Is(err, sqlretry.ErrCommitOutcomeUnknown):
					unknown[[2]int{g, n}] = true
				default:
					t.Errorf("caller %d, transaction %d: %v", g, n, err)
				}
				mu.Unlock()
				if n == 0 {
					started.Done()
				}
				if restarted.Load() {
					after++
				}
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
	started.Wait()
	srv.stop()
	time.Sleep(300 * time.Millisecond)
	if err := srv.start(); err != nil {
		t.Fatal(err)
	}
	restarted.Store(true)
	wg.Wait()

	rows, err := p.Query(context.Background(), "SELECT g, n, count(*) FROM rs GROUP BY g, n")
	if err != nil {
		t.Fatal(err)
	}
	found := map[[2]int]bool{}
	for rows.Next() {
		var g, n, c int
		if err := rows.Scan(&g, &n, &c); err != nil {
			t.Fatal(err)
		}
		if c != 1 {
			t.Errorf("transaction (%d, %d) applied %d times", g, n, c)
		}
		found[[2]int{g, n}] = true
	}
	rows.Close()
	for k := range committed {
		if !found[k] {
			t.Errorf("transaction %v committed but not found", k)
		}
	}
	for k := range found {
		if !committed[k] && !unknown[k] {
			t.Errorf("transaction %v found but reported failed", k)
		}
	}
	got := rec.retried()
	if len(got) == 0 {
		t.Fatal("no retry: the restart went unseen")
	}
	kinds := map[string]int{}
	for _, e := range got {
		c := pgretry.Classify(e)
		if c != sqlretry.Connection && c != sqlretry.Retry && c != sqlretry.Unsent { // Unsent: never reached the server
			t.Errorf("retried %v of class %v", e, c)
		}
		if s := sqlstates([]error{e})[0]; s != "" {
			kinds[s]++
		} else {
			kinds[c.String()]++
		}
	}
	rec.mu.Lock()
	distinct := map[time.Duration]bool{}
	for _, w := range rec.waits {
		distinct[w] = true
	}
	rec.mu.Unlock()
	if len(distinct) < len(got)/2 {
		t.Errorf("%d distinct waits of %d: want them spread by the jitter", len(distinct), len(got))
	}
	t.Logf("%d committed, %d unknown outcomes; %d retries: %v", len(committed), len(unknown), len(got), kinds)
}

// A pool pinged while the server is down: Ping waits on the BackOff until
// the server is back, with pgx and with database/sql.
func TestPingAcrossRestart(t *testing.T) {
	p, db := newPool(t), newDB(t)
	rec := &record{}
	r := pgretry.NewRunner(sqlretry.WithRetrier(backoff.NewRetrier(
		backoff.WithBackOff(backoff.NewExponentialBackOff(backoff.WithInitialInterval(20*time.Millisecond), backoff.WithMaxInterval(200*time.Millisecond))),
		backoff.WithMaxElapsedTime(30*time.Second), backoff.WithMaxTries(0), backoff.WithNotify(rec.notify))))
	srv.stop()
	started := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		started <- srv.start()
	}()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = r.Ping(context.Background(), p.Ping) })
	wg.Go(func() { errs[1] = r.Ping(context.Background(), db.PingContext) })
	wg.Wait()
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("Ping: %v", errs)
	}
	got := rec.retried()
	if len(got) < 2 {
		t.Fatalf("retried %v, want each ping to wait for the server", got)
	}
	for _, e := range got {
		if c := pgretry.Classify(e); c != sqlretry.Connection && c != sqlretry.Retry && c != sqlretry.Unsent {
			t.Errorf("retried %v of class %v", e, c)
		}
	}
}
