package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// differentFlags are the names that two commands use for two different
// flags (another type, another meaning), each declared once per meaning.
var differentFlags = map[string]string{
	"replay":  "sim: a seed to run; conform: whether to replay TLC's counterexamples",
	"workers": "tlc: TLC's threads, auto or a number; elsewhere goroutines (workersFlag)",
	"clients": "demo: a list of the explorer's model sizes; elsewhere one number (clientsFlag)",
}

// flagDefiners are the methods of flag.FlagSet that declare a flag, with
// the index of the flag's name among their arguments.
var flagDefiners = map[string]int{
	"Bool": 0, "BoolFunc": 0, "Duration": 0, "Float64": 0, "Func": 0, "Int": 0, "Int64": 0, "String": 0, "Uint": 0, "Uint64": 0,
	"BoolVar": 1, "DurationVar": 1, "Float64Var": 1, "IntVar": 1, "Int64Var": 1, "StringVar": 1, "TextVar": 1, "UintVar": 1, "Uint64Var": 1, "Var": 1,
}

// flagDeclarations maps each flag name declared by an fs.X call in files
// to the functions that declare it; a name that is not a string literal
// is returned in bad, since this check could not see it.
func flagDeclarations(fset *token.FileSet, files []*ast.File) (decls map[string][]string, bad []string) {
	decls = map[string][]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				recv, ok := sel.X.(*ast.Ident)
				i, definer := flagDefiners[sel.Sel.Name]
				if !ok || recv.Name != "fs" || !definer || len(call.Args) <= i {
					return true
				}
				lit, ok := call.Args[i].(*ast.BasicLit)
				name, err := strconv.Unquote(litValue(lit))
				if !ok || lit.Kind != token.STRING || err != nil {
					bad = append(bad, fset.Position(call.Pos()).String())
					return true
				}
				if fns := decls[name]; len(fns) == 0 || fns[len(fns)-1] != fn.Name.Name {
					decls[name] = append(fns, fn.Name.Name)
				}
				return true
			})
		}
	}
	return decls, bad
}

func litValue(lit *ast.BasicLit) string {
	if lit == nil {
		return ""
	}
	return lit.Value
}

// declaredTwice lists the flags declared in more than one function, but
// those of differentFlags, declared at most once per meaning.
func declaredTwice(decls map[string][]string) []string {
	var twice []string
	for name, fns := range decls {
		most := 1
		if _, ok := differentFlags[name]; ok {
			most = 2
		}
		if len(fns) > most {
			twice = append(twice, "--"+name+" in "+strings.Join(fns, ", "))
		}
	}
	sort.Strings(twice)
	return twice
}

// TestSharedFlagsDeclaredOnce: every flag of fencelab's commands is
// declared in one function (the shared ones in flags.go), so that --out
// or --design cannot grow a second declaration with its own default or
// help. The check itself is tried on sources with a second declaration.
func TestSharedFlagsDeclaredOnce(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	decls, bad := flagDeclarations(fset, files)
	assert.Empty(t, bad, "flags declared with a name that is not a literal: this test cannot see them")
	assert.Empty(t, declaredTwice(decls), "declare a shared flag once, in flags.go, and call its helper")
	// The check sees the commands' flags: the shared ones among them.
	for _, name := range []string{"out", "design", "runs", "seed", "clients", "workers", "no-cache", "shard", "ttl", "max-drift", "specs"} {
		assert.Contains(t, decls, name)
	}
	assert.Greater(t, len(decls), 50, "flags found")

	for _, tc := range []struct {
		name, src string
		twice     []string
		bad       int
	}{
		{"one helper", `package p
func outFlag(fs *flag.FlagSet) *string { return fs.String("out", "", "") }
func a(fs *flag.FlagSet) { outFlag(fs) }
func b(fs *flag.FlagSet) { outFlag(fs) }`, nil, 0},
		{"a second --out", `package p
func outFlag(fs *flag.FlagSet) *string { return fs.String("out", "", "") }
func b(fs *flag.FlagSet) { var s string; fs.StringVar(&s, "out", "", "") }`, []string{"--out in outFlag, b"}, 0},
		{"a second --max-drift by Var", `package p
func a(fs *flag.FlagSet) { fs.Var(v, "max-drift", "") }
func b(fs *flag.FlagSet) { fs.Var(v, "max-drift", "") }`, []string{"--max-drift in a, b"}, 0},
		{"one function, two branches", `package p
func w(fs *flag.FlagSet, r bool) { if r { fs.Int("workers", 0, "") }; fs.Int("workers", 1, "") }`, nil, 0},
		{"a third --replay", `package p
func a(fs *flag.FlagSet) { fs.Bool("replay", true, "") }
func b(fs *flag.FlagSet) { fs.String("replay", "", "") }
func c(fs *flag.FlagSet) { fs.String("replay", "", "") }`, []string{"--replay in a, b, c"}, 0},
		{"a name in a variable", `package p
func a(fs *flag.FlagSet) { n := "out"; fs.String(n, "", "") }`, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parser.ParseFile(fset, tc.name+".go", tc.src, 0)
			require.NoError(t, err)
			decls, bad := flagDeclarations(fset, []*ast.File{f})
			assert.Equal(t, tc.twice, declaredTwice(decls))
			assert.Len(t, bad, tc.bad)
		})
	}
}
