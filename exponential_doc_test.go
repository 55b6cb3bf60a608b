package backoff

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The 9-try table of ExponentialBackOff's doc says its figures are
// rounded, and they are the defaults' sequence to within that rounding.
func TestExponentialDocTable(t *testing.T) {
	src, err := os.ReadFile("exponential.go")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	if !strings.Contains(text, "for 9 tries the sequence\n// will be (the figures rounded") {
		t.Error("the table does not say its figures are rounded")
	}
	row := regexp.MustCompile(`(?m)^//\s+(\d)\s+([\d.]+)\s+\[([\d.]+),\s*([\d.]+)\]$`)
	rows := row.FindAllStringSubmatch(text, -1)
	if len(rows) != 9 {
		t.Fatalf("%d rows, want 9", len(rows))
	}
	near := func(got string, want float64) bool {
		f, err := strconv.ParseFloat(got, 64)
		return err == nil && math.Abs(f-want) <= 0.001*want+0.0005
	}
	for i, r := range rows {
		d := DefaultInitialInterval.Seconds() * math.Pow(DefaultMultiplier, float64(i))
		lo, hi := d*(1-DefaultRandomizationFactor), d*(1+DefaultRandomizationFactor)
		if r[1] != strconv.Itoa(i+1) || !near(r[2], d) || !near(r[3], lo) || !near(r[4], hi) {
			t.Errorf("row %s: %s [%s, %s], want about %.4f [%.4f, %.4f]", r[1], r[2], r[3], r[4], d, lo, hi)
		}
	}
}
