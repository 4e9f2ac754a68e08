package testbuild

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// skipHelpers are the helpers that skip a test under -short, by the name
// a caller writes: SkipReduced, and tlctest.Require, the one helper of the
// TLC-backed tests (make test's race pass runs them). Each must be
// defined in the module and skip (TestSkipHelpersExist): renaming one
// fails that test instead of switching the check off. Besides them a
// function skips under -short when it asks testing.Short and calls Skip
// itself (buildFencelab), and so does every function that calls a
// skipping one (conform's checker, tlc's tlcRunner): found from the
// sources, not listed.
var skipHelpers = []string{"testbuild.SkipReduced", "tlctest.Require"}

// raceSkips are the calls that skip a test under the race detector.
var raceSkips = []string{"testbuild.SkipUnderRace", "SkipUnderRace"}

// TestEveryTestRunsInAPassOfMakeTest: a test that skips under the race
// detector (SkipUnderRace) does not skip under -short too, or make test,
// whose two passes are go test -race and go test -short, would run it in
// neither. Read from the module's sources.
func TestEveryTestRunsInAPassOfMakeTest(t *testing.T) {
	m := readModule(t)
	marked, bad := m.testsRunInNoPass()
	assert.Empty(t, bad)
	assert.Positive(t, marked, "no test skips under the race detector: is the module's root %s?", moduleRoot)
}

// TestSkipHelpersExist: every listed helper is defined in the module,
// skips under -short, and is called by a test or a test's helper.
func TestSkipHelpersExist(t *testing.T) {
	m := readModule(t)
	skipping := m.skipping()
	for _, h := range skipHelpers {
		pkg, name, _ := strings.Cut(h, ".")
		fns := m.lookup(pkg, name)
		require.NotEmpty(t, fns, "%s is not defined in the module: renamed? update skipHelpers", h)
		for _, f := range fns {
			assert.True(t, skipping[f], "%s does not skip under -short", h)
		}
		assert.True(t, m.called(h), "%s is called nowhere", h)
	}
	for _, wrapper := range []string{"checker", "tlcRunner", "buildFencelab"} {
		assert.True(t, slices.ContainsFunc(slices.Collect(maps.Keys(skipping)), func(f *funcInfo) bool { return f.name == wrapper }),
			"%s is not found to skip under -short", wrapper)
	}
}

// TestTheCheckFails: the check finds a test that skips under the race
// detector and, through helpers two deep, under -short.
func TestTheCheckFails(t *testing.T) {
	const helpers = `package tlctest
import "testing"
func Require(t testing.TB) { if testing.Short() { t.Skip("short") } }`
	const wrapper = `package p
import "fencelab/internal/tlctest"
func runner(t *testing.T) int { tlctest.Require(t); return 1 }
func outer(t *testing.T) int { return runner(t) }
func sized() int { if testing.Short() { return 1 }; return 2 }`
	for _, tc := range []struct {
		name, test string
		bad        bool
	}{
		{"a helper two deep", `func TestX(t *testing.T) { testbuild.SkipUnderRace(t); outer(t) }`, true},
		{"the helper itself", `func TestX(t *testing.T) { SkipUnderRace(t); tlctest.Require(t) }`, true},
		{"testing.Short itself", `func TestX(t *testing.T) { testbuild.SkipUnderRace(t); if testing.Short() { t.Skip() } }`, true},
		{"SkipReduced", `func TestX(t *testing.T) { testbuild.SkipUnderRace(t); testbuild.SkipReduced(t, "w") }`, true},
		{"a size, no skip", `func TestX(t *testing.T) { testbuild.SkipUnderRace(t); sized() }`, false},
		{"not marked", `func TestX(t *testing.T) { outer(t) }`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &module{}
			m.add(t, "internal/tlctest/t.go", helpers)
			m.add(t, "internal/testbuild/b.go", `package testbuild
import "testing"
func SkipReduced(t testing.TB, what string) { if Reduced() { t.Skip(what) } }`)
			m.add(t, "p/w_test.go", wrapper)
			m.add(t, "p/x_test.go", "package p\n"+tc.test)
			marked, bad := m.testsRunInNoPass()
			assert.Equal(t, boolInt(strings.Contains(tc.test, "SkipUnderRace")), marked)
			assert.Equal(t, tc.bad, len(bad) > 0, "%v", bad)
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// moduleRoot is the module's root from this package's folder.
var moduleRoot = filepath.Join("..", "..")

// funcInfo is a function declaration: where, and what its body calls.
type funcInfo struct {
	dir, pkg, name string
	test           bool // a TestXxx function of a _test.go file
	calls          map[string]bool
	callsSkip      bool // t.Skip, t.Skipf or t.SkipNow
}

// module is the functions of the module's Go files.
type module struct {
	funcs  []*funcInfo
	byName map[string][]*funcInfo // by "dir name" and "pkg.Name", built by callees
}

// readModule parses every Go file under the module's root (the live
// module's too), but testdata and hidden folders.
func readModule(t *testing.T) *module {
	m := &module{}
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			// Gone between its listing and its reading: a folder another
			// package's test made and removed while this one walked (the
			// passes run packages side by side); it held no committed code.
			return nil
		}
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != moduleRoot {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		m.addFile(t, path, nil)
		return nil
	})
	require.NoError(t, err)
	return m
}

// add parses src as the file at path (for the check's own tests).
func (m *module) add(t *testing.T, path, src string) { m.addFile(t, path, src) }

func (m *module) addFile(t *testing.T, path string, src any) {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
	require.NoError(t, err)
	pkg := strings.TrimSuffix(f.Name.Name, "_test")
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil || fn.Recv != nil {
			continue
		}
		info := &funcInfo{dir: filepath.Dir(path), pkg: pkg, name: fn.Name.Name, calls: map[string]bool{}}
		info.test = strings.HasSuffix(path, "_test.go") && strings.HasPrefix(fn.Name.Name, "Test")
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch fun := call.Fun.(type) {
			case *ast.Ident:
				info.calls[fun.Name] = true
			case *ast.SelectorExpr:
				if x, ok := fun.X.(*ast.Ident); ok {
					info.calls[x.Name+"."+fun.Sel.Name] = true
				}
				switch fun.Sel.Name {
				case "Skip", "Skipf", "SkipNow":
					info.callsSkip = true
				}
			}
			return true
		})
		m.funcs = append(m.funcs, info)
	}
}

// lookup is the functions named name in the packages named pkg.
func (m *module) lookup(pkg, name string) []*funcInfo {
	var fns []*funcInfo
	for _, f := range m.funcs {
		if f.pkg == pkg && f.name == name {
			fns = append(fns, f)
		}
	}
	return fns
}

// callees is the module's functions that f calls by name: "g" in f's
// folder, "p.G" in a package named p.
func (m *module) callees(f *funcInfo) []*funcInfo {
	if m.byName == nil {
		m.byName = map[string][]*funcInfo{}
		for _, g := range m.funcs {
			m.byName[g.dir+" "+g.name] = append(m.byName[g.dir+" "+g.name], g)
			m.byName[g.pkg+"."+g.name] = append(m.byName[g.pkg+"."+g.name], g)
		}
	}
	var out []*funcInfo
	for call := range f.calls {
		out = append(out, m.byName[f.dir+" "+call]...)
		out = append(out, m.byName[call]...)
	}
	return out
}

// called reports whether any function calls name ("pkg.F").
func (m *module) called(name string) bool {
	return slices.ContainsFunc(m.funcs, func(f *funcInfo) bool { return f.calls[name] })
}

// skipping is the functions that skip under -short: the listed helpers,
// those that ask testing.Short and skip, and those that call one of
// these, to any depth.
func (m *module) skipping() map[*funcInfo]bool {
	skips := map[*funcInfo]bool{}
	for _, h := range skipHelpers {
		pkg, name, _ := strings.Cut(h, ".")
		for _, f := range m.lookup(pkg, name) {
			skips[f] = true
		}
	}
	for _, f := range m.funcs {
		if f.calls["testing.Short"] && f.callsSkip {
			skips[f] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, f := range m.funcs {
			if skips[f] {
				continue
			}
			if slices.ContainsFunc(m.callees(f), func(g *funcInfo) bool { return skips[g] }) {
				skips[f], changed = true, true
			}
		}
	}
	return skips
}

// testsRunInNoPass is the number of tests that skip under the race
// detector, and those of them that skip under -short too.
func (m *module) testsRunInNoPass() (marked int, bad []string) {
	skipping := m.skipping()
	for _, f := range m.funcs {
		if !f.test || !slices.ContainsFunc(raceSkips, func(s string) bool { return f.calls[s] }) {
			continue
		}
		marked++
		if f.calls["testing.Short"] || slices.ContainsFunc(m.callees(f), func(g *funcInfo) bool { return skipping[g] }) {
			bad = append(bad, fmt.Sprintf("%s: %s skips under the race detector and under -short: make test runs it in neither pass", f.dir, f.name))
		}
	}
	return marked, bad
}

// TestOneUpdateFlag: the one convention for rewriting what a test
// compares with (internal/golden): every package whose tests import
// internal/golden declares var update = flag.Bool("update", false,
// golden.UpdateUsage), so make golden's go test -update runs in each, and
// no test declares another flag named update.
func TestOneUpdateFlag(t *testing.T) {
	dirs := map[string]*updateFlags{}
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			// Gone between its listing and its reading: a folder another
			// package's test made and removed while this one walked (the
			// passes run packages side by side); it held no committed code.
			return nil
		}
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != moduleRoot {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		if dirs[dir] == nil {
			dirs[dir] = &updateFlags{}
		}
		dirs[dir].read(f)
		return nil
	})
	require.NoError(t, err)
	users := 0
	for dir, u := range dirs {
		for _, bad := range u.others {
			t.Errorf("%s: a flag %s: the one -update flag is var update = flag.Bool(\"update\", false, golden.UpdateUsage)", dir, bad)
		}
		if u.importsGolden && !strings.HasSuffix(filepath.ToSlash(dir), "internal/golden") {
			users++
			assert.True(t, u.declared, "%s: its tests use internal/golden but declare no -update flag (var update = flag.Bool(\"update\", false, golden.UpdateUsage))", dir)
		}
	}
	assert.GreaterOrEqual(t, users, 4, "explore, sim, trace, conform and live use internal/golden: is the module's root %s?", moduleRoot)
}

// updateFlags is what a folder's test files say of -update.
type updateFlags struct {
	importsGolden, declared bool
	others                  []string // flags named update (or updateX) not declared the one way
}

func (u *updateFlags) read(f *ast.File) {
	for _, imp := range f.Imports {
		if strings.HasSuffix(strings.Trim(imp.Path.Value, `"`), "/internal/golden") {
			u.importsGolden = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		if x, ok := fun.X.(*ast.Ident); !ok || x.Name != "flag" {
			return true
		}
		name, ok := call.Args[0].(*ast.BasicLit)
		if !ok || !strings.HasPrefix(strings.Trim(name.Value, "`\""), "update") {
			return true
		}
		usage := ""
		if len(call.Args) == 3 {
			if sel, ok := call.Args[2].(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok {
					usage = x.Name + "." + sel.Sel.Name
				}
			}
		}
		if fun.Sel.Name == "Bool" && name.Value == `"update"` && usage == "golden.UpdateUsage" {
			u.declared = true
		} else {
			u.others = append(u.others, "flag."+fun.Sel.Name+"("+name.Value+", …)")
		}
		return true
	})
}
