package specgen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/golden"
)

// outDir is a fencelab tlc --out folder holding the TLC output file of
// testdata under each model's name.
func outDir(t *testing.T, outputs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for model, file := range outputs {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, model), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, model, "tlc.out"), data, 0o644))
	}
	return dir
}

// fencingRow is a row whose one ok model is DistLockFencing_all_2c and
// whose violation model is DistLockFencing_all_2c_AtMostOneClientHoldLock.
func fencingRow() Row {
	return Row{Design: "all", File: "impl/row_all.go", Specs: []impl.SpecModels{{
		Module: "DistLockFencing", Tag: "all",
		Models: []impl.TLCModel{
			{Clients: 2, Invariants: []string{"NoLostUpdate"}},
			{Clients: 2, Suffix: "AtMostOneClientHoldLock", Invariants: []string{"AtMostOneClientHoldLock"}, Violates: "AtMostOneClientHoldLock"},
		},
	}}}
}

// TestRecord: TLC's count of an ok model, and the length of an invariant
// violation's counterexample and the states TLC had found when it stopped,
// replace their pins or record them; an equal pin is no change.
func TestRecord(t *testing.T) {
	dir := outDir(t, map[string]string{
		"DistLockFencing_all_2c":                         "DistLockFencing_all_2c.out",
		"DistLockFencing_all_2c_AtMostOneClientHoldLock": "DistLockFencing_all_2c_AtMostOneClientHoldLock.out",
	})
	key := StatesKey("DistLockFencing_all_2c")
	cex := CounterexampleKey("DistLockFencing_all_2c_AtMostOneClientHoldLock")
	stop := StatesKey("DistLockFencing_all_2c_AtMostOneClientHoldLock")
	for _, tc := range []struct {
		name    string
		pins    golden.Figures
		changes []Change
	}{
		{"not pinned", golden.Figures{"explore.x": "1"}, []Change{{Design: "all", Key: key, Now: "1409"}, {Design: "all", Key: cex, Now: "8"}, {Design: "all", Key: stop, Now: "51"}}},
		{"pinned otherwise", golden.Figures{key: "1400", cex: "9", stop: "50"}, []Change{{Design: "all", Key: key, Was: "1400", Now: "1409"}, {Design: "all", Key: cex, Was: "9", Now: "8"}, {Design: "all", Key: stop, Was: "50", Now: "51"}}},
		{"only the stop changed", golden.Figures{key: "1409", cex: "8", stop: "52"}, []Change{{Design: "all", Key: stop, Was: "52", Now: "51"}}},
		{"pinned alike", golden.Figures{key: "1409", cex: "8", stop: "51"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			updated, changes, compared, err := Record([]Row{fencingRow()}, dir, figures(tc.pins))
			require.NoError(t, err)
			assert.Equal(t, 3, compared)
			assert.Equal(t, tc.changes, changes)
			if tc.changes == nil {
				assert.Empty(t, updated)
				return
			}
			want := golden.Figures{key: "1409", cex: "8", stop: "51"}
			for k, v := range tc.pins {
				if k != key && k != cex && k != stop {
					want[k] = v // the row's other figures are kept
				}
			}
			assert.Equal(t, map[string]golden.Figures{"all": want}, updated)
		})
	}
}

// TestRecordRefuses: an output that is not a passing run of the model's
// own spec, or no output folder at all, records nothing.
func TestRecordRefuses(t *testing.T) {
	other := fencingRow()
	other.Specs[0].Module = "DistLockOther"
	for _, tc := range []struct {
		name string
		row  Row
		dir  string
		want string
	}{
		{"a violation", fencingRow(), outDir(t, map[string]string{"DistLockFencing_all_2c": "DistLockFencing_all_2c_AtMostOneClientHoldLock.out"}), "not a complete run in which TLC found no error"},
		{"no violation where one is expected", fencingRow(), outDir(t, map[string]string{"DistLockFencing_all_2c_AtMostOneClientHoldLock": "DistLockFencing_all_2c.out"}), `TLC reported "" violated, not AtMostOneClientHoldLock`},
		{"another spec", other, outDir(t, map[string]string{"DistLockOther_all_2c": "DistLockFencing_all_2c.out"}), `a run of "DistLockFencing", not of DistLockOther`},
		{"no folder", fencingRow(), filepath.Join(t.TempDir(), "none"), "not a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := Record([]Row{tc.row}, tc.dir, figures(nil))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
