package main

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxEcho is how much of a user's input an error quotes back, and
// maxErrorLine how long an error's line may be.
const (
	maxEcho      = 40
	maxErrorLine = 300
)

// clip returns s cut to maxEcho bytes, at a character's start and ended
// with "…", if it is longer: an error quotes what it refuses, not pages
// of it.
func clip(s string) string {
	return clipTo(s, maxEcho)
}

func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// quoted is a string as %q writes it.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// clipLine clips each quoted input of an error line of the flag package
// (invalid value "…" for flag -seed), and the line itself to
// maxErrorLine bytes (flag provided but not defined: -…).
func clipLine(line string) string {
	line = quoted.ReplaceAllStringFunc(line, func(q string) string {
		if len(q) <= maxEcho+2 {
			return q
		}
		return `"` + clip(q[1:len(q)-1]) + `"`
	})
	return clipTo(line, maxErrorLine)
}

// clipFlagOutput clips the error line of what the flag package printed,
// its first, if it printed one before the usage.
func clipFlagOutput(out string) string {
	first, rest, ok := strings.Cut(out, "\n")
	if !ok || strings.HasPrefix(first, "Usage") {
		return out
	}
	return clipLine(first) + "\n" + rest
}
