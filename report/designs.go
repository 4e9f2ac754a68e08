package report

import (
	"fmt"
	"io"

	"github.com/fencelab/fencelab/impl"
)

// Designs is fencelab designs: every design, its --design value, its name
// in the tables and the assumption its verdicts rest on, then the products
// it stands for ("which row am I?"); then the products no row stands for.
func Designs(w io.Writer) error {
	width := 0
	for _, d := range impl.Designs() {
		width = max(width, len(d.String()))
	}
	for _, d := range impl.Designs() {
		if _, err := fmt.Fprintf(w, "%-*s  %s — rests on: %s\n", width, d, d.Describe(), d.Assumption()); err != nil {
			return err
		}
		if p := d.Products(); p != "" {
			fmt.Fprintf(w, "%-*s  stands for: %s\n", width, "", p)
		}
	}
	fmt.Fprintf(w, "\nWhich row am I? Find your lock above; a token checked on writes only (not reads) is row %s.\n", impl.DesignFenceWrites)
	for _, p := range impl.WithoutRow() {
		if _, err := fmt.Fprintf(w, "No row: %s\n", p); err != nil {
			return err
		}
	}
	return nil
}
