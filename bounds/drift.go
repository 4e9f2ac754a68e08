package bounds

import (
	"errors"
	"fmt"
	"github.com/fencelab/fencelab/internal/quote"
	"math"
	"strconv"
	"strings"
)

// ParseDrift reads a clock rate drift bound ρ as a user writes it: parts
// per million with the unit ("50ppm", "100000 ppm"), a percentage ("10%")
// or a plain fraction ("0.00005", "0.1"). It is the one parser of drift for every command and
// the sweep's drift axis, and it returns the fraction. It refuses what is
// not a number, negative drift and drift of MaxDrift or more (a clock that
// may stop); a bounded prefix of a bad value is echoed.
func ParseDrift(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	num := t
	if n, ok := strings.CutSuffix(t, "ppm"); ok {
		num, scale = n, 1e6
	} else if n, ok := strings.CutSuffix(t, "%"); ok {
		num, scale = n, 100
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if errors.Is(err, strconv.ErrRange) {
		// Beyond float64 (±Inf: refused below) or below its smallest
		// magnitude (0, which it is).
		err = nil
	}
	if err != nil || math.IsNaN(f) || strings.ContainsAny(strings.ToLower(num), "in") {
		return 0, fmt.Errorf("drift %s is not a number: write a fraction (0.00005), a percentage (0.005%%) or parts per million (50ppm)", quote.Q(s))
	}
	f /= scale
	if f == 0 {
		f = 0 // -0 ("-0%") is 0: it must never print as "-0"
	}
	if f < 0 || f >= MaxDrift {
		return 0, fmt.Errorf("drift %s must be at least 0 and below %g (%gppm)", quote.Q(s), MaxDrift, MaxDrift*1e6)
	}
	return f, nil
}

// FormatDrift prints ρ the way ParseDrift reads it back, in the unit that
// suits it: parts per million below a tenth of a percent (50ppm), else a
// percentage (10%). It prints the fewest digits that read back as ρ
// exactly, so a value just under a limit never reads as the limit
// (0.4999999999999999 is "49.99999999999999%", not "50%"), and it prints
// -0 as 0.
func FormatDrift(f float64) string {
	if f == 0 {
		return "0%" // -0 too
	}
	unit, scale := "%", 100.0
	if math.Abs(f) < 0.001 {
		unit, scale = "ppm", 1e6
	}
	for prec := 0; prec <= 17; prec++ {
		s := strconv.FormatFloat(f*scale, 'f', prec, 64)
		if back, err := strconv.ParseFloat(s, 64); err == nil && back/scale == f {
			return s + unit
		}
	}
	// No decimal in the unit reads back as f: the plain fraction does.
	return strconv.FormatFloat(f, 'f', -1, 64)
}
