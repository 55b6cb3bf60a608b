package pgretry_test

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/pgretry"
	"github.com/herdsafe/backoff/sqlretry"
	"github.com/jackc/pgx/v5"
)

// soak is how long TestSoak runs: go test -run TestSoak -soak 1m. The
// suite runs a short one.
var soak = flag.Duration("soak", 0, "how long TestSoak transfers money (0: a short run)")

// errInsufficient is the refusal of a transfer larger than its source's
// balance: a failure with a cause, not retried.
var errInsufficient = errors.New("insufficient funds")

// Transfers between accounts under SERIALIZABLE by many goroutines, half
// of them with pgx and half with database/sql, while
// backends are terminated at random and the server restarts once. Then:
// the total balance is unchanged, no transfer is in the ledger twice, each
// account's balance is what the ledger says, and every call is accounted
// for: committed (in the ledger), failed with a cause (not in it), or of
// unknown outcome (reported, in it or not).
func TestSoak(t *testing.T) {
	needPG(t)
	d := *soak
	if d == 0 {
		d = 3 * time.Second
	}
	const (
		accounts = 20
		initial  = 1000
		workers  = 16
	)
	conn := srv.connString() + " application_name=soak"
	pool, db := poolOf(t, conn+" pool_max_conns=8"), dbOf(t, conn)
	db.SetMaxOpenConns(8)
	admin := newPool(t)
	mustExec(t, admin, "DROP TABLE IF EXISTS account, ledger",
		"CREATE TABLE account (id int PRIMARY KEY, balance int NOT NULL)",
		"CREATE TABLE ledger (transfer_id text NOT NULL, src int, dst int, amount int)", // no unique key: a duplicate must be found, not refused
		fmt.Sprintf("INSERT INTO account SELECT g, %d FROM generate_series(1, %d) g", initial, accounts))

	var attempts, retries atomic.Int64 // calls of the function; retries of the driver
	r := pgretry.NewRunner(sqlretry.WithIsolation(sql.LevelSerializable), sqlretry.WithRetrier(backoff.NewRetrier(
		backoff.WithBackOff(backoff.NewExponentialBackOff(backoff.WithInitialInterval(5*time.Millisecond), backoff.WithMaxInterval(500*time.Millisecond))),
		backoff.WithMaxElapsedTime(30*time.Second), backoff.WithMaxTries(100),
		backoff.WithNotify(func(error, time.Duration) { retries.Add(1) }))))

	type outcome struct {
		id  string
		err error
	}
	var (
		mu       sync.Mutex
		outcomes []outcome
		wg       sync.WaitGroup
		stop     atomic.Bool
	)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for seq := 0; !stop.Load() && seq < 1_000_000; seq++ {
				id := fmt.Sprintf("%d-%d", w, seq)
				src := 1 + rng.IntN(accounts)
				dst := 1 + (src+rng.IntN(accounts-1))%accounts
				amount := 1 + rng.IntN(100)
				transfer := func(ctx context.Context, q querier) error {
					attempts.Add(1)
					bal, err := q.int(ctx, "SELECT balance FROM account WHERE id = $1", src)
					if err != nil {
						return err
					}
					if bal < int64(amount) {
						return errInsufficient
					}
					if err := q.exec(ctx, "UPDATE account SET balance = balance - $2 WHERE id = $1", src, amount); err != nil {
						return err
					}
					if err := q.exec(ctx, "UPDATE account SET balance = balance + $2 WHERE id = $1", dst, amount); err != nil {
						return err
					}
					return q.exec(ctx, "INSERT INTO ledger VALUES ($1, $2, $3, $4)", id, src, dst, amount)
				}
				var err error
				if w%2 == 0 { // half the workers with pgx, half with database/sql
					err = pgretry.Run(context.Background(), r, pool, func(ctx context.Context, tx pgx.Tx) error { return transfer(ctx, pgxQ{tx}) })
				} else {
					err = r.Run(context.Background(), db, func(ctx context.Context, tx *sql.Tx) error { return transfer(ctx, sqlQ{tx}) })
				}
				mu.Lock()
				outcomes = append(outcomes, outcome{id, err})
				mu.Unlock()
			}
		})
	}

	// The killer terminates a backend of the transfers every 10 to 50 ms;
	// half way, the server restarts.
	var kills int
	start := time.Now()
	restarted := false
	for time.Since(start) < d {
		time.Sleep(time.Duration(10+rand.IntN(40)) * time.Millisecond)
		if !restarted && time.Since(start) > d/2 {
			restarted = true
			srv.stop()
			time.Sleep(200 * time.Millisecond)
			if err := srv.start(); err != nil {
				stop.Store(true)
				wg.Wait()
				t.Fatal(err)
			}
			continue
		}
		var n int
		err := admin.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM (
			SELECT pid FROM pg_stat_activity WHERE application_name = 'soak' AND pid <> pg_backend_pid() ORDER BY random() LIMIT 1) p`).Scan(&n)
		if err == nil {
			kills += n
		}
	}
	stop.Store(true)
	wg.Wait()

	// The books.
	var total int64
	if err := admin.QueryRow(context.Background(), "SELECT sum(balance) FROM account").Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != accounts*initial {
		t.Errorf("total balance %d, want %d", total, accounts*initial)
	}
	inLedger := map[string]int{}
	rows, err := admin.Query(context.Background(), "SELECT transfer_id FROM ledger")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		inLedger[id]++
	}
	rows.Close()
	var mismatched int
	if err := admin.QueryRow(context.Background(), fmt.Sprintf(`SELECT count(*) FROM account a WHERE a.balance <> %d
		- coalesce((SELECT sum(amount) FROM ledger WHERE src = a.id), 0)
		+ coalesce((SELECT sum(amount) FROM ledger WHERE dst = a.id), 0)`, initial)).Scan(&mismatched); err != nil {
		t.Fatal(err)
	}
	if mismatched != 0 {
		t.Errorf("%d accounts' balances differ from the ledger's", mismatched)
	}
	for id, n := range inLedger {
		if n != 1 {
			t.Errorf("transfer %s applied %d times", id, n)
		}
	}
	var committed, unknown, unknownCommitted int
	causes := map[string]int{}
	for _, o := range outcomes {
		switch {
		case o.err == nil:
			committed++
			if inLedger[o.id] != 1 {
				t.Errorf("transfer %s committed but in the ledger %d times", o.id, inLedger[o.id])
			}
		case errors.Is(o.err, sqlretry.ErrCommitOutcomeUnknown):
			unknown++
			causes["unknown outcome: "+o.err.Error()]++
			if inLedger[o.id] == 1 {
				unknownCommitted++
			}
		default:
			var be *backoff.Error
			if !errors.As(o.err, &be) {
				t.Errorf("transfer %s failed without a cause: %v", o.id, o.err)
				continue
			}
			causes[fmt.Sprintf("%v: %v", be.Cause, be.LastErr)]++
			if errors.Is(be.Cause, backoff.ErrPermanent) && !errors.Is(o.err, errInsufficient) {
				t.Errorf("transfer %s failed for good: %v", o.id, o.err) // nothing but the funds is permanent here
			}
			if inLedger[o.id] != 0 {
				t.Errorf("transfer %s failed (%v) but is in the ledger", o.id, o.err)
			}
		}
	}
	if len(inLedger) != committed+unknownCommitted {
		t.Errorf("%d transfers in the ledger, want %d committed + %d of unknown outcome that committed", len(inLedger), committed, unknownCommitted)
	}
	if committed == 0 {
		t.Fatal("no transfer committed")
	}
	calls := len(outcomes)
	report := fmt.Sprintf("soak %v: %d workers (pgx and database/sql), %d calls: %d committed, %d failed with a cause, %d of unknown outcome (%d of which committed); "+
		"%d backends terminated, 1 restart; %d calls of the function, %d retries, %.3f retries per committed transfer; total balance %d (unchanged), no duplicate transfer",
		d, workers, calls, committed, calls-committed-unknown, unknown, unknownCommitted, kills, attempts.Load(), retries.Load(),
		float64(retries.Load())/float64(committed), total)
	t.Log(report)
	keys := make([]string, 0, len(causes))
	for k := range causes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %5d: %s", causes[k], k)
	}
}
