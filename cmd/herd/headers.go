package main

// columnHeaders are the columns of the tables in words, for the page:
// what each measures, with its unit.
var columnHeaders = map[string]string{
	"scenario":            "scenario",
	"strategy":            "strategy",
	"clients":             "clients",
	"runs":                "runs",
	"calls":               "calls sent",
	"last_success_s":      "last success (s)",
	"peak_per_10ms":       "busiest 10 ms (calls)",
	"failed":              "clients that failed",
	"unfinished":          "clients still retrying",
	"outage_x":            "load while down (× normal)",
	"outage_peak_x":       "busiest window while down (× normal)",
	"degraded_x":          "load while degraded (× normal)",
	"total_x":             "load over the run (× normal)",
	"recovery_s":          "load back to normal after (s)",
	"recovered":           "load back to normal",
	"user_calls":          "user calls",
	"user_failed":         "user calls failed",
	"warmup_failed_pct":   "failed while healthy (%)",
	"down_failed_pct":     "failed while down (%)",
	"degraded_failed_pct": "failed while degraded (%)",
	"healthy_failed_pct":  "failed once healthy again (%)",
	"success_s":           "user calls succeed again after (s)",
	"success_recovered":   "user calls succeed again",
	"goodput":             "goodput (× capacity)",
	"p50_x":               "median latency (× no load)",
	"p99_x":               "p99 latency (× no load)",
	"p99_p99":             "p99 latency (× no-load p99)",
	"server_refused":      "share of calls the server refused",
	"timed_out":           "share of calls timed out",
	"refused":             "share of calls refused",
	"load_up_s":           "limit settled after the load rose (s)",
	"capacity_down_s":     "limit settled after capacity fell (s)",
	"capacity_up_s":       "limit settled after capacity came back (s)",
	"settled":             "limit settled",
}

// headersOf returns the headers of the columns, in words; a column
// without words keeps its name.
func headersOf(columns []string) []string {
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = c
		if h, ok := columnHeaders[c]; ok {
			out[i] = h
		}
	}
	return out
}
