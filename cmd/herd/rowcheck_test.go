package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cellRange bounds a number of the table: the cell of the strategy's row
// in the column lies in [lo, hi]. A cell ">T" reads as T.
type cellRange struct {
	strategy, column string
	lo, hi           float64
}

// checkRanges checks each bound against the cells of the table, by
// strategy and column (tableCells).
func checkRanges(t *testing.T, table string, cells map[string]map[string]string, bounds []cellRange) {
	t.Helper()
	for _, c := range bounds {
		s := cells[c.strategy][c.column]
		v, err := strconv.ParseFloat(strings.TrimPrefix(s, ">"), 64)
		if err != nil {
			t.Fatalf("%q in the table: %v", s, err)
		}
		if v < c.lo || v > c.hi {
			t.Errorf("%s %s = %v, want it in [%v, %v]:\n%s", c.strategy, c.column, v, c.lo, c.hi, table)
		}
	}
}

// tableCells adds the cells of the rows, lines of a table under header,
// to cells, by strategy (a row's second field) and column, and returns
// the rows' strategies in order.
func tableCells(cells map[string]map[string]string, header, rows []string) []string {
	var strategies []string
	for _, l := range rows {
		f := strings.Fields(l)
		if cells[f[1]] == nil {
			cells[f[1]] = map[string]string{}
		}
		for i, name := range header {
			cells[f[1]][name] = f[i]
		}
		strategies = append(strategies, f[1])
	}
	return strategies
}

// csvAndJSON parses the CSV file and the JSON document of the same rows,
// and checks that they say the same: each JSON object has a key for each
// column of the CSV header and no other, null where the CSV cell is
// empty (if nulls says a figure may be missing; no null otherwise), and
// otherwise the same number (to 0.001) or the same text; the CSV file has
// a record for each object, under its header.
func csvAndJSON(t *testing.T, csvOut, jsonOut string, nulls bool) (recs [][]string, rows []map[string]any) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(jsonOut), &rows); err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || len(rows) != len(recs)-1 {
		t.Fatalf("%d JSON rows, %d CSV records", len(rows), len(recs))
	}
	for i, r := range rows {
		csvRow := recs[i+1]
		if len(r) != len(recs[0]) {
			t.Errorf("JSON row %d has %d keys, the CSV %d columns", i, len(r), len(recs[0]))
		}
		for j, name := range recs[0] {
			v, ok := r[name]
			switch {
			case !ok:
				t.Errorf("JSON row %d lacks %q", i, name)
			case v == nil:
				if !nulls || csvRow[j] != "" {
					t.Errorf("%s of %s: CSV %q, JSON null", name, csvRow[1], csvRow[j])
				}
			default:
				s := fmt.Sprint(v)
				if f, ok := v.(float64); ok {
					s = strconv.FormatFloat(f, 'f', -1, 64)
				}
				if p, err := strconv.ParseFloat(csvRow[j], 64); err == nil {
					if q, _ := strconv.ParseFloat(s, 64); math.Abs(p-q) > 0.001 {
						t.Errorf("%s of %s: CSV %s, JSON %s", name, csvRow[1], csvRow[j], s)
					}
				} else if csvRow[j] != s {
					t.Errorf("%s of %s: CSV %q, JSON %q", name, csvRow[1], csvRow[j], s)
				}
			}
		}
	}
	return recs, rows
}

// checkMixedOutput checks the table and the CSV file of a run of restart
// and scenario, whose rows have the column own and no last_success_s: the
// table has a restart block, then a block of scenario, own in it alone;
// the CSV file has one header over both, the restart row then the other,
// each leaving the other's columns empty. It returns the CSV records.
func checkMixedOutput(t *testing.T, table, csvOut, scenario, own string) [][]string {
	t.Helper()
	blocks := strings.Split(table, "\n\n")
	if len(blocks) < 2 || !strings.HasPrefix(blocks[0], strings.Join(columnsOf(false, 1)[:2], "  ")) ||
		!strings.HasPrefix(blocks[1], "scenario") || !strings.Contains(blocks[1], own) || strings.Contains(blocks[0], own) {
		t.Fatalf("want a restart block, then the %s block:\n%s", scenario, table)
	}
	recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 3 {
		t.Fatalf("CSV %q, want a header and two rows", recs)
	}
	at := func(name string) int { return slices.Index(recs[0], name) }
	restart, other := recs[1], recs[2]
	if at(own) < 0 || at("last_success_s") < 0 ||
		restart[0] != "restart" || restart[at(own)] != "" || restart[at("last_success_s")] == "" ||
		other[0] != scenario || other[at("last_success_s")] != "" || other[at(own)] == "" {
		t.Fatalf("CSV %q", recs)
	}
	return recs
}
