package redisguard

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
	"github.com/redis/go-redis/v9"
)

// The fleet test runs its instances as separate OS processes: the test
// binary started again, running only TestHelperProcess, told by these
// variables what to do.
const (
	helperEnv      = "REDISGUARD_HELPER" // "shared" or "local": the budget each process uses
	helperAddrEnv  = "REDISGUARD_HELPER_ADDR"
	helperNameEnv  = "REDISGUARD_HELPER_NAME"
	helperCallsEnv = "REDISGUARD_HELPER_CALLS"
)

// The fleet's workload: each process makes fleetCalls calls in a row,
// each of at most fleetTries attempts with no wait between them, during a
// full outage (every attempt fails), through a budget of fleetTokens.
const (
	fleetProcesses = 4
	fleetCalls     = 10
	fleetTries     = 3
	fleetTokens    = 20
)

// workload runs the fleet's calls through g and returns the attempts made.
func workload(g guard.Guard, calls int) (attempts int) {
	p := policy.New(
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(fleetTries)),
		policy.Guard(g),
	)
	for range calls {
		_ = p.DoErr(context.Background(), func(context.Context) error {
			attempts++
			return errDown
		})
	}
	return attempts
}

// TestHelperProcess is one instance of the fleet when the test binary is
// run by TestFleetSharesOneBudget; otherwise it does nothing. It says
// "ready", waits for a line on its input so that the fleet starts
// together, runs the workload, and prints its figures.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("run by TestFleetSharesOneBudget only")
	}
	calls, _ := strconv.Atoi(os.Getenv(helperCallsEnv))
	var g guard.Guard
	var shared *Budget
	if mode == "shared" {
		client := redis.NewClient(&redis.Options{Addr: os.Getenv(helperAddrEnv), ContextTimeoutEnabled: true, MaxRetries: -1})
		defer client.Close()
		shared = NewTokenBucket(client, os.Getenv(helperNameEnv), WithBudget(budget.WithMaxTokens(fleetTokens)), WithTimeout(5*time.Second))
		g = shared
	} else {
		g = budget.NewTokenBucket(budget.WithMaxTokens(fleetTokens))
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatalf("waiting for the start: %v", err)
	}
	attempts := workload(g, calls)
	var fallbacks, roundTrips uint64
	if shared != nil {
		l := shared.Stats().Link
		fallbacks, roundTrips = l.Fallbacks, l.RoundTrips
	}
	fmt.Printf("result attempts=%d retries=%d fallbacks=%d roundtrips=%d\n", attempts, attempts-calls, fallbacks, roundTrips)
}

// helperResult is what one process of the fleet printed.
type helperResult struct{ attempts, retries, fallbacks, roundTrips int }

// runFleet runs n processes of the workload, started together, with the
// budget mode, and returns their figures.
func runFleet(t *testing.T, n int, mode, addr, name string) []helperResult {
	t.Helper()
	type proc struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Reader
	}
	procs := make([]proc, n)
	for i := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(),
			helperEnv+"="+mode, helperAddrEnv+"="+addr, helperNameEnv+"="+name,
			helperCallsEnv+"="+strconv.Itoa(fleetCalls))
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting process %d: %v", i, err)
		}
		procs[i] = proc{cmd, in, bufio.NewReader(out)}
	}
	for i, p := range procs {
		if line := readLine(t, p.out, ""); line != "ready" {
			t.Fatalf("process %d said %q, want ready", i, line)
		}
	}
	for _, p := range procs {
		io.WriteString(p.in, "go\n")
		p.in.Close()
	}
	results := make([]helperResult, n)
	for i, p := range procs {
		line := readLine(t, p.out, "result ")
		r := &results[i]
		if _, err := fmt.Sscanf(line, "result attempts=%d retries=%d fallbacks=%d roundtrips=%d",
			&r.attempts, &r.retries, &r.fallbacks, &r.roundTrips); err != nil {
			t.Fatalf("process %d: %q: %v", i, line, err)
		}
		io.Copy(io.Discard, p.out)
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
	}
	return results
}

// readLine returns the first line from r that begins with prefix.
func readLine(t *testing.T, r *bufio.Reader, prefix string) string {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading a process's output: %v (last: %q)", err, line)
		}
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
}

// TestFleetSharesOneBudget runs a fleet of processes through a full
// outage twice: each with a local budget of fleetTokens, and all with one
// shared budget of fleetTokens. The local budgets let the fleet make n
// times the retries of one process; the shared one caps the fleet's at
// ⌈fleetTokens/2⌉, what one budget allows, however many processes there
// are.
func TestFleetSharesOneBudget(t *testing.T) {
	addr := needRedis(t)
	one := workload(budget.NewTokenBucket(budget.WithMaxTokens(fleetTokens)), fleetCalls) - fleetCalls

	local := runFleet(t, fleetProcesses, "local", addr, "")
	localTotal := 0
	for i, r := range local {
		if r.retries != one {
			t.Errorf("local budget, process %d: %d retries, want %d as one process alone", i, r.retries, one)
		}
		localTotal += r.retries
	}
	if localTotal != fleetProcesses*one {
		t.Errorf("local budgets: the fleet made %d retries, want %d×%d = %d", localTotal, fleetProcesses, one, fleetProcesses*one)
	}

	n := name(t)
	shared := runFleet(t, fleetProcesses, "shared", addr, n)
	sharedTotal, roundTrips, attempts := 0, 0, 0
	for i, r := range shared {
		if r.fallbacks != 0 {
			t.Errorf("shared budget, process %d fell back %d times", i, r.fallbacks)
		}
		sharedTotal += r.retries
		roundTrips += r.roundTrips
		attempts += r.attempts
	}
	limit := (fleetTokens + 1) / 2
	if sharedTotal < 1 || sharedTotal > limit {
		t.Errorf("shared budget: the fleet made %d retries, want 1 to %d (one budget's limit)", sharedTotal, limit)
	}
	left, err := admin(t, addr).Get(context.Background(), "backoff:{"+n+"}:tokens").Int()
	if err != nil || left != 0 {
		t.Errorf("the shared count after the outage = %d, %v; want 0", left, err)
	}
	t.Logf("%d processes × %d calls of ≤%d tries, full outage, %d tokens: local budgets %d retries (%d each), one shared budget %d retries (limit %d); shared: %d attempts, %d round trips",
		fleetProcesses, fleetCalls, fleetTries, fleetTokens, localTotal, one, sharedTotal, limit, attempts, roundTrips)
}
