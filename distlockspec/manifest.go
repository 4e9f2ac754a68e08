package distlockspec

import (
	"fmt"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/tlc"
)

// LoadManifest reads the models manifest at path as package tlc does
// (tlc.LoadManifest) and checks that every model's design is a row of the
// matrix (CheckDesigns).
func LoadManifest(path string) (*tlc.Manifest, error) {
	m, err := tlc.LoadManifest(path)
	if err != nil {
		return nil, err
	}
	if err := CheckDesigns(m); err != nil {
		return nil, err
	}
	return m, nil
}

// ParseManifest parses a models manifest as package tlc does
// (tlc.ParseManifest) and checks its designs (CheckDesigns).
func ParseManifest(data []byte) (*tlc.Manifest, error) {
	m, err := tlc.ParseManifest(data)
	if err != nil {
		return nil, err
	}
	if err := CheckDesigns(m); err != nil {
		return nil, err
	}
	return m, nil
}

// CheckDesigns checks that every model of m names a row of the matrix by
// its --design value (impl.ParseDesign); the error names the first model
// that does not.
func CheckDesigns(m *tlc.Manifest) error {
	for i, mod := range m.Models {
		if _, err := impl.ParseDesign(mod.Design); err != nil {
			return fmt.Errorf("models manifest: model %d (%s): design must be %s, got %s", i+1, quote.Q(mod.Name), impl.Flags(), quote.Q(mod.Design))
		}
	}
	return nil
}
