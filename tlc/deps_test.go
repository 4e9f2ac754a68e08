package tlc_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// module is this repository's module path (go.mod).
const module = "github.com/fencelab/fencelab"

// moduleImports lists the packages of this module that the package in dir
// (module path pkg) imports, directly or through others, reading the
// import clauses of every non-test Go file (all build tags: a superset of
// any one build's).
func moduleImports(t *testing.T, root, pkg string) []string {
	t.Helper()
	seen := map[string]bool{pkg: true}
	queue := []string{pkg}
	var deps []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, module), "/")))
		entries, err := os.ReadDir(dir)
		require.NoError(t, err, p)
		files := 0
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			files++
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				require.NoError(t, err)
				if (path == module || strings.HasPrefix(path, module+"/")) && !seen[path] {
					seen[path] = true
					deps = append(deps, path)
					queue = append(queue, path)
				}
			}
		}
		require.Positive(t, files, "package %s has Go files in %s", p, dir)
	}
	return deps
}

// TestImportsNothingOfImpl: package tlc is a generic TLC driver; what the
// specs' variables mean in Go is package distlockspec's, and what a design
// is, package impl's. Neither may leak in, directly or through another
// package.
func TestImportsNothingOfImpl(t *testing.T) {
	deps := moduleImports(t, "..", module+"/tlc")
	for _, d := range deps {
		assert.NotEqual(t, module+"/impl", d, "package tlc imports impl (through one of %v)", deps)
		assert.False(t, strings.HasPrefix(d, module+"/impl/"), "package tlc imports %s", d)
		assert.NotEqual(t, module+"/distlockspec", d, "package tlc imports the specs' adapter")
	}
	// The walk sees through other packages: distlockspec reaches impl.
	assert.Contains(t, moduleImports(t, "..", module+"/distlockspec"), module+"/impl")
}
