package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func TestDefaultsAreValid(t *testing.T) {
	cfg := defaults()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	if cfg.callers != 10000 || cfg.duration != 30*time.Second {
		t.Errorf("defaults: %d callers for %v, want 10000 for 30s", cfg.callers, cfg.duration)
	}
}

func TestFlags(t *testing.T) {
	cfg := defaults()
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.register(fs)
	args := []string{"-mode", "policy", "-callers", "7", "-duration", "2s", "-seed", "42", "-p503", "0.3", "-outage-slot", "250ms", "-bulkhead", "3"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if cfg.mode != modePolicy || cfg.callers != 7 || cfg.duration != 2*time.Second || cfg.mix.seed != 42 ||
		cfg.mix.unavailable != 0.3 || cfg.mix.outageSlot != 250*time.Millisecond || cfg.bulkhead != 3 {
		t.Errorf("the flags did not reach the config: %+v", cfg)
	}
	if err := cfg.validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*config)
		want string
	}{
		{"mode", func(c *config) { c.mode = "both" }, "-mode"},
		{"no callers", func(c *config) { c.callers = 0 }, "-callers"},
		{"zero duration", func(c *config) { c.duration = 0 }, "-duration"},
		{"zero call timeout", func(c *config) { c.callTimeout = 0 }, "-call-timeout"},
		{"negative think", func(c *config) { c.think = -time.Second }, "-think"},
		{"cancel above 1", func(c *config) { c.cancel = 1.1 }, "-cancel"},
		{"no tries", func(c *config) { c.maxTries = 0 }, "-max-tries"},
		{"backoff cap below start", func(c *config) { c.boMax = time.Millisecond }, "-backoff-max"},
		{"negative conns", func(c *config) { c.maxConns = -1 }, "-max-conns"},
		{"zero sample", func(c *config) { c.sample = 0 }, "-sample"},
		{"policy: no bulkhead", func(c *config) { c.mode, c.bulkhead = modePolicy, 0 }, "-bulkhead"},
		{"policy: wait without queue", func(c *config) { c.mode, c.bulkheadQueue = modePolicy, 0 }, "-bulkhead-wait"},
		{"the mix", func(c *config) { c.mix.reset = 2 }, "-preset"},
	}
	for _, tt := range tests {
		cfg := defaults()
		tt.edit(&cfg)
		err := cfg.validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: validate() = %v, want an error naming %s", tt.name, err, tt.want)
		}
	}
	// A bulkhead setting that policy mode alone uses is not checked in
	// transport mode.
	cfg := defaults()
	cfg.bulkhead = 0
	if err := cfg.validate(); err != nil {
		t.Errorf("transport mode with -bulkhead 0: %v", err)
	}
}
