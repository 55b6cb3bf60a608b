package mysqlretry_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/mysqlretry"
	"github.com/herdsafe/backoff/sqlretry"
)

// The server stopped and started again while callers run transactions:
// every call ends committed, or with an unknown outcome that it reports;
// none fails otherwise, none is applied twice, and the callers reconnect
// after waits drawn from the BackOff, spread by its jitter.
func TestRestartUnderLoad(t *testing.T) {
	db := open(t, "app")
	mustExec(t, db, "DROP TABLE IF EXISTS rs", "CREATE TABLE rs (g int, n int) ENGINE=InnoDB")
	rec := &record{}
	r := mysqlretry.NewRunner(sqlretry.WithRetrier(backoff.NewRetrier(
		backoff.WithBackOff(backoff.NewExponentialBackOff(backoff.WithInitialInterval(20*time.Millisecond), backoff.WithMaxInterval(500*time.Millisecond))),
		backoff.WithMaxElapsedTime(60*time.Second), backoff.WithMaxTries(300),
		backoff.WithNotify(rec.notify))))

	const callers = 4
	var (
		started   sync.WaitGroup
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
				err := r.Run(background, db, func(ctx context.Context, tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, "INSERT INTO rs VALUES (?, ?)", g, n)
					return err
				})
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

	rows, err := db.Query("SELECT g, n, count(*) FROM rs GROUP BY g, n")
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
		c := mysqlretry.Classify(e)
		if c != sqlretry.Connection && c != sqlretry.Retry && c != sqlretry.Unsent { // Unsent: never reached the server
			t.Errorf("retried %v of class %v", e, c)
		}
		kinds[e.Error()]++
	}
	t.Logf("%d committed, %d unknown outcomes; %d retries: %v", len(committed), len(unknown), len(got), kinds)
}
