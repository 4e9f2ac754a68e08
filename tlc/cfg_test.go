package tlc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCfgSectionsAsTLCReadsThem: the invariants and properties of a cfg
// are read as TLC reads them, each once: a name repeated (TLC checks it
// once), several on a line or spread over lines, either keyword form,
// comments of both kinds (nested block comments too) anywhere, a keyword
// inside a comment ignored.
func TestCfgSectionsAsTLCReadsThem(t *testing.T) {
	tests := []struct {
		name, cfg  string
		invariants []string
		properties []string
	}{
		{"one each", "INVARIANT A\nPROPERTY P\n", []string{"A"}, []string{"P"}},
		{"repeated", "INVARIANT A\nINVARIANT A\nINVARIANTS A B A\nPROPERTY P\nPROPERTIES P\n", []string{"A", "B"}, []string{"P"}},
		{"one line", "INVARIANTS A B PROPERTY P SPECIFICATION Spec", []string{"A", "B"}, []string{"P"}},
		{"tabs and CRLF", "INVARIANTS\r\n\tA\r\n\tB\r\nPROPERTY\tP\r\n", []string{"A", "B"}, []string{"P"}},
		{"line comments", "INVARIANT A \\* B\n\\* INVARIANT C\nPROPERTY P\n", []string{"A"}, []string{"P"}},
		{"block comments", "INVARIANT A (* B\nINVARIANT C *) D\n(* PROPERTY Q (* nested *) PROPERTY R *)PROPERTY P\n", []string{"A", "D"}, []string{"P"}},
		{"none", "SPECIFICATION Spec\nCONSTANTS N = 3\n", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.invariants, CfgInvariants(tc.cfg))
			assert.Equal(t, tc.properties, CfgProperties(tc.cfg))
		})
	}
}
