package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
)

// maxServeLayersCalls bounds the calls a layers run of the page may
// make down its chains: user calls × tries^tiers × strategies, the most
// that every tier retrying every call makes, some four seconds of one
// core.
const maxServeLayersCalls = 10_000_000

// layersServeFlags are the flags of serveFlags that apply to the layers
// scenario, which has its own flags (see parseLayers).
var layersServeFlags = []string{"scenario", "tiers", "tries", "rate", "warmup", "down", "healthy", "capacity", "strategies"}

// layersLabels are the labels of the page's fields for the layers
// scenario, where they differ from fieldLabels.
var layersLabels = map[string]string{"tiers": "tiers", "rate": "user calls per second", "tries": "tries per tier",
	"capacity": "server capacity (× the rate)"}

// layersNote is the note under the layers table: what its figures are.
const layersNote = "Each phase: the calls the bottom dependency received per user call (1 when nothing is retried). " +
	"Healthy again after: from when the dependency came back to the first second with at most 1% of the user calls failed " +
	"and at most 1.1 calls at the bottom per user call; - if none came."

// checkLayersForm reports a setting of the form that does not apply to
// the layers scenario.
func checkLayersForm(form map[string]string) error {
	if name := settingOutside(form, layersServeFlags); name != "" {
		return usagef("-%s does not apply to layers; it takes -%s", name, strings.Join(layersServeFlags[1:], ", -"))
	}
	return nil
}

// checkLayersServe reports what makes o too large for the page.
func checkLayersServe(o *layersOptions) error {
	c := o.cfg
	if c.Tiers > 6 || c.Tries > 10 || c.Rate > 100_000 {
		return nil // herd.Layers says what is wrong
	}
	seconds := math.Ceil(c.Warmup.Seconds()) + math.Ceil(c.Down.Seconds()) + math.Ceil(c.Healthy.Seconds())
	calls := float64(c.Rate) * seconds * math.Pow(float64(c.Tries), float64(c.Tiers)) * float64(len(o.strategies))
	if calls > maxServeLayersCalls {
		return usagef("-rate: %.3g calls down the chains (user calls × tries^tiers × strategies); the page runs %d at most (a lower rate, shorter phases, fewer tiers or tries); the command line runs more",
			calls, maxServeLayersCalls)
	}
	return nil
}

// runLayers answers a run of the layers scenario, whose query gave args
// and form: a row per strategy, as the command's table prints it, and
// the chart of their calls at the bottom per user call in each phase.
func (e *explorer) runLayers(w http.ResponseWriter, r *http.Request, args []string, form map[string]string) {
	err := checkLayersForm(form)
	var o *layersOptions
	if err == nil {
		o, err = parseLayers(args, io.Discard)
	}
	if err == nil {
		err = checkLayersServe(o)
	}
	if err != nil {
		reply(w, http.StatusBadRequest, layersFailure(err))
		return
	}
	var rows []layersRow
	answered, err := e.simulate(w, r, func(ctx context.Context) (err error) {
		rows, err = layersRows(ctx, o)
		return err
	})
	var u *usageError
	switch {
	case answered:
		return
	case errors.As(err, &u):
		reply(w, http.StatusBadRequest, layersFailure(err))
		return
	case err != nil:
		reply(w, http.StatusInternalServerError, failure{Error: trimPrefix(err.Error())})
		return
	}
	res := runResult{Command: commandLine(args), Form: form, Runs: 1, Columns: layersColumns,
		Chart: chartData{Kind: layersScenario, Title: fmt.Sprintf("calls the bottom tier receives per user call, %d tiers × %d tries", o.cfg.Tiers, o.cfg.Tries)}}
	for _, c := range layersColumns {
		h := layersHeaders[c]
		if h == "" {
			h = c
		}
		res.Headers = append(res.Headers, h)
	}
	for _, lr := range rows {
		rr := rowResult{Strategy: lr.Strategy, Values: map[string]float64{}, Chart: res.Chart}
		rr.Cells = lr.cells()
		for _, c := range layersColumns {
			if v, ok := numeric(lr.value(c)); ok {
				rr.Values[c] = v
			}
		}
		res.Rows = append(res.Rows, rr)
	}
	res.Cells = res.Rows[0].Cells
	res.Note = layersNote
	reply(w, http.StatusOK, res)
}

// layersFailure is err, an error of the layers flags, as the page says
// it, at its field.
func layersFailure(err error) failure {
	f := pageFailureIn(err, layersFlags(), layersLabels)
	if f.Field != "" && !slices.Contains(layersServeFlags, f.Field) {
		f.Field = "" // -format: not a field of the page
	}
	return f
}
