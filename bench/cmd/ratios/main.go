// Command ratios reads the output of the bench module's benchmarks and
// prints, as markdown, the ratios of herdsafe to the other rows (median of
// the runs): first one summary table, a row per scenario and a column per
// peer in the unit each scenario is judged by; then, per benchmark and
// GOMAXPROCS, every herdsafe row against every other row in every unit; then
// how each row's time per operation scales from -cpu 1 to the largest -cpu
// run; and last the targets the library holds itself to, checked.
//
// Usage:
//
//	ratios results.txt [more.txt ...]
//
// With no file it reads standard input. A ratio below 1 means herdsafe
// costs less than that row.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

func main() {
	var in []io.Reader
	for _, name := range os.Args[1:] {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ratios:", err)
			os.Exit(2)
		}
		defer f.Close()
		in = append(in, f)
	}
	if len(in) == 0 {
		in = append(in, os.Stdin)
	}
	res, err := parse(io.MultiReader(in...))
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(2)
	}
	if len(res.groups) == 0 {
		fmt.Fprintln(os.Stderr, "ratios: no benchmark results in the input")
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	writeReport(w, res)
}
