package live

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is live/'s module path, the prefix of its packages' imports.
const module = "github.com/fencelab/fencelab/live"

// floors is each package's floor in the drawing of docs/design/live.md
// ("Rooms"): a package imports only packages on lower floors, never one
// on its own floor or above. Helpers (internal/, examples/) stand where
// their imports put them.
var floors = map[string]int{
	"history": 0, "server": 0,
	"internal/jsonschema": 0, "internal/quietlog": 0, "internal/toystore": 0,
	"lock": 1, "store": 1, "nemesis": 1, "check": 1,
	"internal/etcdtest": 1, "internal/servertest": 1,
	"examples/fencedlock": 2,
	"setup":               2, "story": 2,
	"run": 3, "conform": 3,
	"examples/mylock":   3,
	"report":            4,
	"internal/livetest": 4,
	"campaign":          5, "fencetest": 5,
	"cli": 6, ".": 6,
	"cmd/fencelab-live": 7, "cmd/build-kube-apiserver": 7, "examples/mylock/cmd/mylock": 7,
}

// TestImportsRunDown: no package of live/ imports one on its own floor or
// above (floors), and every package has a floor, so that a new room is
// placed in the drawing before it imports anything. Test files are left
// out: an external test package may import any room.
func TestImportsRunDown(t *testing.T) {
	imports := moduleImports(t)
	var pkgs []string
	for pkg := range imports {
		pkgs = append(pkgs, pkg)
	}
	slices.Sort(pkgs)
	for _, pkg := range pkgs {
		floor, ok := floors[pkg]
		if !ok {
			t.Errorf("package %s has no floor in floors (docs/design/live.md's rooms): place it", pkg)
			continue
		}
		for _, imp := range imports[pkg] {
			if f, ok := floors[imp]; ok && f >= floor {
				t.Errorf("%s (floor %d) imports %s (floor %d): an import that runs up or sideways", pkg, floor, imp, f)
			}
		}
	}
	for pkg := range floors {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("floors names %s, which is no package of live/ any more", pkg)
		}
	}
}

// TestImportsRunDownCatchesAnUpwardImport: the check itself fails on an
// import that runs up (check importing run) or sideways (lock importing
// store), and passes the real shape.
func TestImportsRunDownCatchesAnUpwardImport(t *testing.T) {
	for _, tc := range []struct {
		pkg, imp string
		up       bool
	}{
		{"check", "run", true},
		{"lock", "store", true},
		{"history", "server", true},
		{"run", "check", false},
		{"cli", "campaign", false},
	} {
		if got := floors[tc.imp] >= floors[tc.pkg]; got != tc.up {
			t.Errorf("%s importing %s: upward %v, want %v", tc.pkg, tc.imp, got, tc.up)
		}
	}
}

// moduleImports reads, for every package folder of live/, the live/
// packages its non-test Go files import (relative to the module: "run",
// "internal/wait"; the module's own root is ".").
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			rel, ok := strings.CutPrefix(p, module+"/")
			if p == module {
				rel, ok = ".", true
			}
			if ok && !slices.Contains(out[pkg], rel) {
				out[pkg] = append(out[pkg], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("go.mod"); err != nil {
		t.Fatalf("not at live/'s root: %v", err)
	}
	return out
}
