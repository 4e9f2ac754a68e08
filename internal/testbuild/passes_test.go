package testbuild

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// skipsInShortMode are the calls that skip a test under -short: the
// helpers of the TLC-backed tests skip there (make test's race pass runs
// them), as does a test that asks testing.Short itself.
var skipsInShortMode = []string{"testing.Short", "testbuild.SkipReduced", "SkipReduced", "requireTLC", "checker", "tlcRunner", "buildFencelab"}

// TestEveryTestRunsInAPassOfMakeTest: a test that skips under the race
// detector (SkipUnderRace) does not skip under -short too, or make test,
// whose two passes are go test -race and go test -short, would run it in
// neither. Read from the module's test files.
func TestEveryTestRunsInAPassOfMakeTest(t *testing.T) {
	root := filepath.Join("..", "..")
	marked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			calls := calledNames(fn.Body)
			if !calls["testbuild.SkipUnderRace"] && !calls["SkipUnderRace"] {
				continue
			}
			marked++
			for _, skip := range skipsInShortMode {
				assert.False(t, calls[skip], "%s: %s skips under the race detector and calls %s, which skips under -short: make test runs it in neither pass", path, fn.Name.Name, skip)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Positive(t, marked, "no test skips under the race detector: is the module's root %s?", root)
}

// calledNames is the set of functions body calls, as written: "f" or
// "pkg.F".
func calledNames(body *ast.BlockStmt) map[string]bool {
	names := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch fun := call.Fun.(type) {
		case *ast.Ident:
			names[fun.Name] = true
		case *ast.SelectorExpr:
			if x, ok := fun.X.(*ast.Ident); ok {
				names[x.Name+"."+fun.Sel.Name] = true
			}
		}
		return true
	})
	return names
}
