package main

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/herdsafe/backoff/herd"
)

// runResult is what a run gives the page: a row per strategy and fleet
// size, as the table prints it, with the notes the table prints under it
// and each row's chart; the options as the command line reads them, and
// that command line. Cells and Chart are those of the first row.
type runResult struct {
	Command string            `json:"command"`
	Form    map[string]string `json:"form"`
	Guards  []guardForm       `json:"guards,omitempty"`
	Columns []string          `json:"columns"`
	// Headers are the columns in words, for people.
	Headers []string    `json:"headers"`
	Cells   []string    `json:"cells"`
	Rows    []rowResult `json:"rows"`
	Runs    int         `json:"runs"`
	Note    string      `json:"note,omitempty"`
	Chart   chartData   `json:"chart"`
}

// rowResult is one row of a run: a strategy on a fleet size, the mean of
// its runs. With several runs, Low and High are each column's least and
// greatest value over them ("" where a column is not a number). Values
// are the numeric columns' means, for the page's sweep chart.
type rowResult struct {
	Strategy string             `json:"strategy"`
	Clients  int                `json:"clients"`
	Cells    []string           `json:"cells"`
	Low      []string           `json:"low,omitempty"`
	High     []string           `json:"high,omitempty"`
	Values   map[string]float64 `json:"values"`
	Chart    chartData          `json:"chart"`
}

// guardForm is one guard of the stack, with every setting.
type guardForm struct {
	Kind   string            `json:"kind"`
	Params map[string]string `json:"params"`
}

// failure is the body of a run that did not give rows: what is wrong, in
// the page's words, and the field of the form it is about, if one.
type failure struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
	// Guard is the kind of guard the error is about, if one, and
	// Setting its setting, if one.
	Guard   string `json:"guard,omitempty"`
	Setting string `json:"setting,omitempty"`
}

func (e *explorer) run(w http.ResponseWriter, r *http.Request) {
	args, form, err := queryArgs(r.URL.Query())
	if err == nil && form["scenario"] == layersScenario {
		e.runLayers(w, r, args, form)
		return
	}
	if _, ok := form["tiers"]; ok && err == nil {
		err = usagef("-tiers applies to the layers scenario alone")
	}
	if err == nil {
		err = checkOverloadForm(form)
	}
	var o *options
	if err == nil {
		o, err = parseArgs(append(append([]string(nil), args...), "-chart", "none", "-quiet"), io.Discard)
	}
	if err == nil {
		err = checkServe(o)
	}
	if err != nil {
		reply(w, http.StatusBadRequest, pageFailure(err))
		return
	}
	o.workers, o.keepRuns = 1, o.runs > 1
	o.overloadServer = e.overloadServer
	var rows []row
	answered, err := e.simulate(w, r, func(ctx context.Context) (err error) {
		rows, err = sweep(ctx, o, func() {})
		return err
	})
	switch {
	case answered:
		return
	case err != nil:
		reply(w, http.StatusInternalServerError, failure{Error: trimPrefix(err.Error())})
		return
	case len(rows) == 0:
		reply(w, http.StatusInternalServerError, failure{Error: "no rows"})
		return
	}
	res := runResult{Command: commandLine(args), Form: form, Runs: o.runs}
	res.Columns = tableColumns(rows[0])
	res.Headers = headersOf(res.Columns)
	for _, rw := range rows {
		rr := rowResult{Strategy: rw.Strategy, Clients: rw.Clients, Cells: cells(rw, res.Columns, true),
			Values: map[string]float64{}, Chart: chartOf(rw)}
		for _, c := range res.Columns {
			if v, ok := numeric(rw.value(c)); ok {
				rr.Values[c] = v
			}
		}
		if len(rw.seeds) > 1 {
			rr.Low, rr.High = spread(rw.seeds, res.Columns)
		}
		res.Rows = append(res.Rows, rr)
	}
	res.Cells, res.Chart = res.Rows[0].Cells, res.Rows[0].Chart
	res.Note = strings.TrimSpace(overloadFooter(rows))
	if rows[0].isOutage() && len(o.outageStrategies) == 1 {
		res.Guards = guardForms(o)
	}
	reply(w, http.StatusOK, res)
}

// simulate runs sim in a turn of its own (see begin), with the run's
// context, and returns its error once the turn has ended. When the run
// got no turn, took longer than its bound or lost its request, it has
// answered the page already, and returns answered true; any other error
// of sim is the caller's to answer.
func (e *explorer) simulate(w http.ResponseWriter, r *http.Request, sim func(ctx context.Context) error) (answered bool, err error) {
	ctx, end, err := e.begin(r.Context())
	if err != nil {
		reply(w, http.StatusServiceUnavailable, failure{Error: err.Error()})
		return true, nil
	}
	defer end()
	if e.started != nil {
		e.started(ctx)
	}
	err = sim(ctx)
	switch {
	case err != nil && errors.Is(context.Cause(ctx), errTooLong):
		reply(w, http.StatusServiceUnavailable, failure{Error: errTooLong.Error()})
		return true, nil
	case err != nil && r.Context().Err() != nil:
		reply(w, http.StatusServiceUnavailable, failure{Error: errGone.Error()})
		return true, nil
	}
	return false, err
}

// numeric returns v, a column's value, as a number, if it is a finite
// one.
func numeric(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int:
		f = float64(x)
	default:
		return 0, false
	}
	return f, !math.IsNaN(f) && !math.IsInf(f, 0)
}

// spread returns each column's least and greatest value over the runs,
// as the table prints numbers; "" for a column that is not a number.
func spread(runs []row, columns []string) (low, high []string) {
	low, high = make([]string, len(columns)), make([]string, len(columns))
	for i, c := range columns {
		lo, hi, ok := math.Inf(1), math.Inf(-1), true
		for _, r := range runs {
			v, isNum := numeric(r.value(c))
			if !isNum || c == "clients" || c == "runs" {
				ok = false
				break
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		if ok {
			low[i], high[i] = spreadFigure(lo), spreadFigure(hi)
		}
	}
	return low, high
}

// spreadFigure writes a bound of a spread with the digits a reader needs:
// whole numbers from 100, two decimals from 1, three significant digits
// below.
func spreadFigure(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// tableColumns are the columns the table prints for r, in order.
func tableColumns(r row) []string {
	if r.isOverload() {
		return overloadColumnsOf(true)
	}
	if !r.isOutage() {
		return columnsOf(false, 1)
	}
	return append(columnsOf(true, 1), columnsOf(true, 2)[3:]...)
}

// guardForms returns every guard of the outage strategy of o, with each
// of its settings.
func guardForms(o *options) []guardForm {
	stack, err := herd.ParseStack(o.outageStrategies[0].Name)
	if err != nil {
		return nil
	}
	var out []guardForm
	for _, g := range stack.Guards {
		f := guardForm{Kind: g.Kind(), Params: map[string]string{}}
		for _, p := range g.Params() {
			f.Params[p.Name] = p.String()
		}
		out = append(out, f)
	}
	return out
}
