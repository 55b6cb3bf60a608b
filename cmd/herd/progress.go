package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws a bar on a terminal while a sweep runs. It stays silent for
// the first moments, so a quick sweep leaves no trace, and erases itself
// when done. It is safe for concurrent use.
type progress struct {
	mu    sync.Mutex
	w     io.Writer // nil: draw nothing
	total int
	done  int
	start time.Time
	delay time.Duration // how long to stay silent
	drawn bool
	last  time.Time // of the last drawing
	now   func() time.Time
}

const (
	barWidth = 30
	redraw   = 50 * time.Millisecond // at most 20 drawings a second
)

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, total: total, now: time.Now, start: time.Now(), delay: 300 * time.Millisecond}
}

// tick records one finished unit of work and redraws the bar.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	now := p.now()
	if p.w == nil || now.Sub(p.start) < p.delay || (now.Sub(p.last) < redraw && p.done < p.total) {
		return
	}
	p.drawn, p.last = true, now
	fmt.Fprintf(p.w, "\r%s", bar(p.done, p.total))
}

// finish erases the bar, if it was drawn.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", barWidth+24))
		p.drawn = false
	}
}

// bar renders done of total as "[#####-----]  3/10 runs".
func bar(done, total int) string {
	filled := 0
	if total > 0 {
		filled = min(barWidth, done*barWidth/total)
	}
	return fmt.Sprintf("[%s%s] %d/%d runs", strings.Repeat("#", filled), strings.Repeat("-", barWidth-filled), done, total)
}
