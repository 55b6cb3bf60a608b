package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/herdsafe/backoff/herd"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

var (
	hexColour = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	rgbColour = regexp.MustCompile(`^rgba?\(\s*(\d+%?)\s*,\s*(\d+%?)\s*,\s*(\d+%?)\s*(,\s*[0-9.]+\s*)?\)$`)
	// The CSS basic colour keywords, and none.
	namedColours = strings.Fields("none transparent currentColor black silver gray white maroon red purple fuchsia green lime olive yellow navy blue teal aqua")
	// A time label of the time axis: 10ms, 100ms, 1s, 10s.
	timeTick = regexp.MustCompile(`^[0-9.]+(µs|ms|s)$`)
)

// validColour reports whether v is a colour every SVG renderer reads.
func validColour(v string) bool {
	if hexColour.MatchString(v) {
		return true
	}
	if m := rgbColour.FindStringSubmatch(v); m != nil {
		for _, c := range m[1:4] {
			limit := 255
			if strings.HasSuffix(c, "%") {
				c, limit = strings.TrimSuffix(c, "%"), 100
			}
			if n, err := strconv.Atoi(c); err != nil || n > limit {
				return false
			}
		}
		return true
	}
	for _, name := range namedColours {
		if strings.EqualFold(v, name) {
			return true
		}
	}
	return false
}

// checkSVG parses an SVG file and reports every fill or stroke that is not
// a valid colour, every opacity outside [0, 1], and every number that is
// NaN or infinite. It returns the text of the file's text elements.
func checkSVG(t *testing.T, name string, r io.Reader) []string {
	t.Helper()
	var texts []string
	inText := false
	dec := xml.NewDecoder(r)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return texts
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
			for _, a := range tok.Attr {
				checkAttr(t, name, tok.Name.Local, a.Name.Local, a.Value)
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
}

func checkAttr(t *testing.T, file, elem, attr, value string) {
	t.Helper()
	if strings.Contains(value, "NaN") || strings.Contains(value, "Inf") {
		t.Errorf("%s: <%s %s=%q>: not a number", file, elem, attr, value)
	}
	props := map[string]string{attr: value}
	if attr == "style" {
		props = map[string]string{}
		for decl := range strings.SplitSeq(value, ";") {
			if k, v, ok := strings.Cut(decl, ":"); ok {
				props[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
	}
	for k, v := range props {
		switch k {
		case "fill", "stroke":
			if !validColour(v) {
				t.Errorf("%s: <%s> %s:%s is not a colour", file, elem, k, v)
			}
		case "fill-opacity", "stroke-opacity", "opacity":
			if f, err := strconv.ParseFloat(v, 64); err != nil || f < 0 || f > 1 {
				t.Errorf("%s: <%s> %s:%s is not an opacity", file, elem, k, v)
			}
		}
	}
}

func TestValidColour(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"#000000", "#FFF", "none", "black", "rgb(1,2,3)", "rgba(255, 0, 10%, 0.5)"} {
		if !validColour(v) {
			t.Errorf("%q is a colour", v)
		}
	}
	for _, v := range []string{"#-8000000000000000-8000000000000000-8000000000000000", "#12345", "rgb(256,0,0)", "blak", ""} {
		if validColour(v) {
			t.Errorf("%q is not a colour", v)
		}
	}
}

// Every chart herd writes as SVG uses valid colours only (the outage
// timeline's shaded phases and dashed base line included), and writes
// each label of the time axis once: under the last panel, not hidden in
// the others.
func TestSVGChartsAreValid(t *testing.T) {
	t.Parallel()
	args := small(t, "-chart", "svg", "-quiet", "-strategies", "full,no-jitter,retry,breaker")
	if code, _, errs := runCmd(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	paths, _ := filepath.Glob(filepath.Join(args[3], "*.svg"))
	if len(paths) != 8 {
		t.Fatalf("%d SVG files, want 8, two of them outage-timeline", len(paths))
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		texts := checkSVG(t, filepath.Base(p), f)
		f.Close()
		if !strings.Contains(p, "timeline") {
			continue
		}
		seen := map[string]int{}
		for _, s := range texts {
			if timeTick.MatchString(s) {
				seen[s]++
			}
		}
		for s, n := range seen {
			if n != 1 {
				t.Errorf("%s: the time label %q is written %d times", filepath.Base(p), s, n)
			}
		}
		if len(seen) < 2 {
			t.Errorf("%s: time labels %v, want two at least", filepath.Base(p), seen)
		}
	}
}

// A real renderer, rsvg-convert, draws a timeline chart as herd's own PNG
// does: no time label shows under any panel but the last. Where each panel
// would have its labels is taken from the layout: the strip just under
// its tick marks, across its data area. The strip is blank under every
// panel but the last, and inked under the last, whose labels show.
//
// Without rsvg-convert (Debian: librsvg2-bin) the test is skipped, unless
// CI_REQUIRE_RSVG=1 says it must run.
func TestSVGRendersAsThePNG(t *testing.T) {
	t.Parallel()
	rsvg, err := exec.LookPath("rsvg-convert")
	if err != nil {
		if os.Getenv("CI_REQUIRE_RSVG") == "1" {
			t.Fatal("CI_REQUIRE_RSVG=1, but rsvg-convert is not on PATH: apt-get install -y librsvg2-bin")
		}
		t.Skip("rsvg-convert is not on PATH (apt-get install -y librsvg2-bin); CI_REQUIRE_RSVG=1 makes this a failure")
	}
	for _, args := range [][]string{
		{"-clients", "20", "-scenario", "occ", "-strategies", "no-jitter,full,immediate"},
		append([]string{"-clients", "20", "-scenario", "outage", "-strategies", "retry,breaker,throttle"}, shortOutage...),
	} {
		o, err := parseArgs(args, new(bytes.Buffer))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := sweep(context.Background(), o, func() {})
		if err != nil {
			t.Fatal(err)
		}
		f := timeline("occ", 20, rows)
		if o.scenarios[0] == herd.Outage {
			f = amplification(20, rows)
		}
		checkRendered(t, rsvg, f, rows)
	}
}

// checkRendered renders f, a timeline of rows, with rsvg-convert, and
// checks where its time labels show.
func checkRendered(t *testing.T, rsvg string, f figure, rows []row) {
	t.Helper()
	dir := t.TempDir()
	svg, out := filepath.Join(dir, "chart.svg"), filepath.Join(dir, "chart.png")
	if err := save(svg, "svg", f); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(rsvg, "-o", out, svg).CombinedOutput(); err != nil {
		t.Fatalf("rsvg-convert: %v\n%s", err, msg)
	}
	file, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(file)
	file.Close()
	if err != nil {
		t.Fatal(err)
	}
	scale := float64(img.Bounds().Dx()) / f.w.Points()
	if h := float64(img.Bounds().Dy()) / scale; h < f.h.Points()-1 || h > f.h.Points()+1 {
		t.Fatalf("rendered %v for a chart of %v×%v points", img.Bounds(), f.w, f.h)
	}

	canvases := place(f, draw.New(vgsvg.New(f.w, f.h)))
	for i, ps := range f.plots {
		p, tile := ps[0], canvases[i][0]
		data := p.DataCanvas(tile)
		bottom := tickBottom(p, tile)
		strip := image.Rect(
			int((data.Min.X.Points()+1)*scale), int((f.h.Points()-bottom+1)*scale),
			int((data.Max.X.Points()-1)*scale), int((f.h.Points()-bottom+4)*scale))
		inked := ink(img, strip)
		switch last := i == len(f.plots)-1; {
		case last && inked == 0:
			t.Errorf("panel %d (%s): no label shows under the last panel, in %v", i, rows[i].Strategy, strip)
		case !last && inked > 0:
			t.Errorf("panel %d (%s): %d dark pixels under the tick marks, in %v: hidden labels show", i, rows[i].Strategy, inked, strip)
		}
	}
}

// tickBottom is the height, in points from the bottom of the figure, of
// the lower end of p's time-axis tick marks when p is drawn in tile: above
// the axis label and the tick labels, if any, as gonum draws them.
func tickBottom(p *plot.Plot, tile draw.Canvas) float64 {
	y := tile.Min.Y
	if p.X.Label.Text != "" {
		y += p.X.Label.TextStyle.Height(p.X.Label.Text) + p.X.Label.Padding
	}
	var labels vg.Length
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			r := p.X.Tick.Label.Rectangle(tk.Label)
			labels = max(labels, r.Max.Y-r.Min.Y)
		}
	}
	return (y + labels).Points()
}

// ink counts the dark pixels of img in r.
func ink(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, ca := img.At(x, y).RGBA()
			// Dark: at least half opaque and darker than mid-grey, on white.
			if ca > 0x8000 && (cr+cg+cb)/3 < 0x8000 {
				n++
			}
		}
	}
	return n
}
