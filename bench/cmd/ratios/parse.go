package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// key names one measured quantity: a row of a benchmark, at a GOMAXPROCS,
// in a unit.
type key struct {
	group, row string
	procs      int
	unit       string
}

// results holds every sample, and the order in which the benchmarks and
// their rows first appeared.
type results struct {
	samples map[key][]float64
	groups  []string            // benchmark names without "Benchmark"
	rows    map[string][]string // per group, row names
	procs   map[string][]int    // per group, GOMAXPROCS values seen
	units   map[string][]string // per group, units seen
}

var procsSuffix = regexp.MustCompile(`-(\d+)$`)

// parse reads benchmark output in the standard format: a line
// "BenchmarkGroup/row-P  N  value unit  value unit ...". Other lines are
// skipped. A benchmark with no sub-benchmark is its own row.
func parse(r io.Reader) (*results, error) {
	res := &results{
		samples: map[key][]float64{},
		rows:    map[string][]string{},
		procs:   map[string][]int{},
		units:   map[string][]string{},
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // not a result line
		}
		name, procs := f[0], 1
		if m := procsSuffix.FindStringSubmatch(name); m != nil {
			procs, _ = strconv.Atoi(m[1])
			name = name[:len(name)-len(m[0])]
		}
		name = strings.TrimPrefix(name, "Benchmark")
		group, row, ok := strings.Cut(name, "/")
		if !ok {
			row = group
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: value %q: %v", line, f[i], err)
			}
			unit := f[i+1]
			if unit == "ns/op" {
				unit, v = "sec/op", v/1e9
			}
			k := key{group, row, procs, unit}
			res.samples[k] = append(res.samples[k], v)
			res.note(group, row, procs, unit)
		}
	}
	return res, sc.Err()
}

func (r *results) note(group, row string, procs int, unit string) {
	if !slices.Contains(r.groups, group) {
		r.groups = append(r.groups, group)
	}
	if !slices.Contains(r.rows[group], row) {
		r.rows[group] = append(r.rows[group], row)
	}
	if !slices.Contains(r.procs[group], procs) {
		r.procs[group] = append(r.procs[group], procs)
		slices.Sort(r.procs[group])
	}
	if !slices.Contains(r.units[group], unit) {
		r.units[group] = append(r.units[group], unit)
	}
}

// median returns the median of the samples of k, and whether there are any.
func (r *results) median(k key) (float64, bool) {
	s := r.samples[k]
	if len(s) == 0 {
		return 0, false
	}
	s = slices.Clone(s)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2], true
	} else {
		return (s[n/2-1] + s[n/2]) / 2, true
	}
}

// isOurs reports whether a row measures herdsafe/backoff; isBaseline,
// whether it is a bare baseline rather than a library.
func isOurs(row string) bool     { return strings.HasPrefix(row, "herdsafe") }
func isBaseline(row string) bool { return strings.HasPrefix(row, "bare") }
