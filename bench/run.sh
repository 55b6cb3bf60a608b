#!/usr/bin/env bash
# Runs every benchmark of this module against the peer libraries (the retry
# scenarios, the composed policy and the guards alone), then prints
# benchstat's summary and the ratios: one summary table (herdsafe ÷ each peer,
# a row per scenario), the detailed tables, and the targets checked.
#
#   bench/run.sh                  # the full run: -count 6, about 8 minutes on 2 cores
#   COUNT=1 BENCHTIME=100ms bench/run.sh    # a quick look
#
# Settings (environment): COUNT (6), BENCHTIME for the timed benchmarks
# (500ms), WAITERS_BENCHTIME for the 10,000-goroutine rounds (3x), OUT, the
# directory for results.txt, benchstat.txt and ratios.md (a new temporary
# directory).
set -euo pipefail
cd "$(dirname "$0")"

COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-500ms}
WAITERS_BENCHTIME=${WAITERS_BENCHTIME:-3x}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

go test -c -o "$OUT/bench.test" .
run() {
	"$OUT/bench.test" -test.run '^$' -test.benchmem -test.count "$COUNT" "$@"
}

{
	run -test.bench '^Benchmark(SuccessFirstTry|ThreeAttemptsZeroDelay|NextDelay|Transport|ComposedSuccess|BreakerSuccess|BulkheadSuccess|ThrottleSuccess|RateLimiterSuccess|LimiterSuccess|RetryBudgetSuccess)$' \
		-test.benchtime "$BENCHTIME"
	# -cpu 1,2: a lock on the success path, or in the random source of the
	# delays, shows as a slower op at -cpu 2.
	run -test.bench '^BenchmarkParallel(Success|NextDelay)$' -test.benchtime "$BENCHTIME" -test.cpu 1,2
	run -test.bench '^BenchmarkWaiters$' -test.benchtime "$WAITERS_BENCHTIME"
} | tee "$OUT/results.txt"

echo
go run "$BENCHSTAT" "$OUT/results.txt" | tee "$OUT/benchstat.txt"
echo
go run ./cmd/ratios "$OUT/results.txt" | tee "$OUT/ratios.md"
echo
echo "results in $OUT"
