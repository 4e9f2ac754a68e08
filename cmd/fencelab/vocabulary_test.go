package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/pipeline"
)

// commandFlags is every flag of command c, read from its own help.
func commandFlags(t *testing.T, c string) []string {
	t.Helper()
	code, stdout, stderr := runCLI(t, c, "--help")
	require.Equal(t, exitOK, code, stderr)
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  -([^- \n][^ \n]*)`).FindAllStringSubmatch(stdout, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestFlagVocabulary walks every command's flag set and holds it to the
// rules of one vocabulary: a design is chosen with --design, the delay
// bound is --max-delay, drift is read by one parser (ppm, percent or a
// fraction) wherever it is a flag, names are lower-case words joined by
// hyphens, and a flag of the same name means the same kind of value.
func TestFlagVocabulary(t *testing.T) {
	forbidden := map[string]string{"fencing": "design", "max-spike": "max-delay", "spike": "max-delay", "delay": "max-delay", "drift": "max-drift"}
	kinds := map[string]string{} // flag name → the type word its help prints
	for _, c := range commands() {
		flags := commandFlags(t, c.name)
		code, stdout, _ := runCLI(t, c.name, "--help")
		require.Equal(t, exitOK, code)
		for _, f := range flags {
			assert.Regexp(t, `^[a-z][a-z0-9]*(-[a-z0-9]+)*$`, f, "%s --%s", c.name, f)
			if want, bad := forbidden[f]; bad {
				t.Errorf("%s has --%s: the vocabulary's word is --%s", c.name, f, want)
			}
			kind := regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(f) + `(?: (\S+))?$`).FindStringSubmatch(stdout)
			require.NotNil(t, kind, "%s --%s", c.name, f)
			if f == "design" || f == "max-drift" || f == "out" {
				if prev, ok := kinds[f]; ok {
					assert.Equal(t, prev, kind[1], "--%s is the same kind of value in every command (%s)", f, c.name)
				}
				kinds[f] = kind[1]
			}
		}
		if strings.Contains(stdout, "Flags:") {
			assert.NotEmpty(t, flags, "%s: a Flags: heading over no flags", c.name)
		}
		has := func(f string) bool { return strings.Contains(" "+strings.Join(flags, " ")+" ", " "+f+" ") }
		if has("max-drift") {
			for _, ok := range []string{"50ppm", "0.00005", "0.005%", "0"} {
				code, _, stderr := runCLI(t, c.name, "--max-drift", ok, "--help")
				assert.Equal(t, exitOK, code, "%s --max-drift %s: %s", c.name, ok, stderr)
			}
			for _, bad := range []string{"fast", "0.5", "-1ppm", "NaN"} {
				code, _, stderr := runCLI(t, c.name, "--max-drift", bad, "--help")
				assert.Equal(t, exitBadInput, code, "%s --max-drift %s", c.name, bad)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
			}
		}
		// A command that runs designs chooses them with --design.
		if strings.Contains(stdout, "off, none, writes") {
			assert.True(t, has("design"), "%s lists designs but has no --design", c.name)
		}
	}
	for _, c := range []string{"explore", "sim", "sweep"} {
		assert.Contains(t, commandFlags(t, c), "design", c)
	}
	for _, c := range []string{"bounds", "sim", "sweep"} {
		assert.Contains(t, commandFlags(t, c), "max-delay", c)
	}
}

// TestHelpCommand: fencelab help COMMAND prints what fencelab COMMAND
// --help prints, for every command; an unknown one is bad input.
func TestHelpCommand(t *testing.T) {
	for _, c := range commands() {
		code, want, _ := runCLI(t, c.name, "--help")
		require.Equal(t, exitOK, code)
		code, got, stderr := runCLI(t, "help", c.name)
		assert.Equal(t, exitOK, code, stderr)
		assert.Equal(t, want, got, "fencelab help %s", c.name)
		assert.NotRegexp(t, `Flags:\n*$`, got, "%s: an empty Flags: section", c.name)
	}
	code, _, stderr := runCLI(t, "help", "nosuch")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, `unknown command "nosuch"`)
}

// TestFlagsAfterPositionalArguments: a flag after the file means the same
// as before it; after "--" everything is a file.
func TestFlagsAfterPositionalArguments(t *testing.T) {
	code, before, stderr := runCLI(t, "trace", "--format", "json", walkthroughFixture)
	require.Equal(t, exitOK, code, stderr)
	code, after, stderr := runCLI(t, "trace", walkthroughFixture, "--format", "json")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, before, after)
	assert.True(t, strings.HasPrefix(after, "{"), "JSON, as --format asked")
	code, _, stderr = runCLI(t, "trace", "--", walkthroughFixture, "--format")
	assert.Equal(t, exitBadInput, code)
	assert.NotContains(t, stderr, "flag needs an argument", "after -- nothing is a flag")
	code, _, stderr = runCLI(t, "bounds", "--ttl", "1s", "stray", "--max-pause", "1s")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, `unexpected argument "stray"`)
}

// TestDesignsNamesProducts answers "which row am I?" for the locks people
// deploy: each named on the row that stands for it, and a lock without a
// row said to have none.
func TestDesignsNamesProducts(t *testing.T) {
	code, stdout, stderr := runCLI(t, "designs")
	require.Equal(t, exitOK, code, stderr)
	rowOf := map[string]string{} // product line → the row it is printed under
	row := ""
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(line, " ") {
			row = f[0]
		}
		if strings.Contains(line, "stands for:") {
			rowOf[row] += line
		}
	}
	for _, tc := range []struct{ product, row string }{
		{"SET key value NX PX", "off"}, {"redsync", "redlock"}, {"Redisson's RLock with its watchdog", "renewal"},
		{"etcd's concurrency.Mutex with its revision", "revision"}, {"etcd's concurrency.Mutex when the resource does not check", "renewal"},
		{"etcd's contrib/lock", "version-equality"}, {"ZooKeeper and Curator", "revision"}, {"Consul", "sequencer"},
		{"Chubby", "sequencer"}, {"writes only", "writes"},
	} {
		assert.Contains(t, rowOf[tc.row], tc.product, "row %s stands for %s", tc.row, tc.product)
	}
	assert.Regexp(t, `(?m)^No row: MySQL GET_LOCK`, stdout)
	assert.Contains(t, stdout, "a token checked on writes only (not reads) is row writes")
	for _, d := range impl.Designs() {
		assert.NotEmpty(t, d.Products(), "%s stands for something", d)
	}
}

// TestSimZeroMeansZero: a fault bound given as 0 is zero, one not given
// is the default the help shows (for the TTL given), and --max-delay is
// the one-way bound D: the spike is what it leaves above the network.
func TestSimZeroMeansZero(t *testing.T) {
	e := &env{Env: pipeline.Env{Stdout: &strings.Builder{}, Stderr: &strings.Builder{}}}
	tests := []struct {
		args               []string
		pause, spike, jump string
		ppm                int64
	}{
		{nil, "3s", "3s", "2s", 100_000},
		{[]string{"--ttl", "2s"}, "6s", "6s", "4s", 100_000},
		{[]string{"--max-pause", "0", "--max-jump", "0", "--max-drift", "0", "--max-delay", "3.1ms"}, "0s", "0s", "0s", 0},
		{[]string{"--max-delay", "23.1ms", "--max-drift", "50ppm"}, "3s", "20ms", "2s", 50},
	}
	for _, tc := range tests {
		o, err := parseSimFlags(e, tc.args)
		require.NoError(t, err, tc.args)
		c := o.Cfg
		assert.Equal(t, tc.pause, c.MaxPause.String(), "%v pause", tc.args)
		assert.Equal(t, tc.spike, c.MaxSpike.String(), "%v spike", tc.args)
		assert.Equal(t, tc.jump, c.MaxJump.String(), "%v jump", tc.args)
		assert.Equal(t, tc.ppm, c.MaxDriftPPM, "%v drift", tc.args)
	}
	code, stdout, stderr := runCLI(t, "sim", "--design", "off", "--worst-case", "AtMostOneClientHoldLock", "--max-pause", "0", "--max-jump", "0", "--max-drift", "0", "--out", t.TempDir())
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "under ρ 0, J 0s, D 3.0031s, P 0s", "the worst case of the bounds given, zeros as zeros")
}

// TestNoOneThings runs commands whose counts are 1 (one client, one
// section, one run) and finds no "1 <plural>" in what they print: every
// count goes through words.Count.
func TestNoOneThings(t *testing.T) {
	plural := regexp.MustCompile(`(^|[^0-9.,])1 ([a-zA-Z]+ )?(clients|sections|runs|steps|faults|verdicts|cells|traces|models|retries|seeds|states)\b`)
	for _, args := range [][]string{
		{"sim", "--design", "off", "--clients", "1", "--sections", "1", "--runs", "1", "--faults", "none"},
		{"sim", "--design", "off", "--worst-case", "NoLostUpdate", "--max-pause", "2s"},
		{"sim", "--design", "off", "--replay", "3", "--sections", "1", "--clients", "2", "--shrink"},
		{"sim", "--design", "off", "--runs", "1", "--sections", "1", "--npc"},
		{"sweep", "--grid", "pause:100ms..100ms/1,lock-delay:0..0/1", "--runs", "1", "--sections", "1", "--design", "off"},
	} {
		code, stdout, stderr := runCLI(t, append(args, "--out", t.TempDir())...)
		require.NotEqual(t, exitBadInput, code, "%v: %s", args, stderr)
		assert.NotRegexp(t, plural, stdout, "%v", args)
		assert.NotRegexp(t, plural, stderr, "%v", args)
	}
}

// TestNodesZeroIsNotTheDefault: --nodes shows its default in --help, and
// a 0 given is refused (zero lock nodes is no lock), not read as it.
func TestNodesZeroIsNotTheDefault(t *testing.T) {
	for _, tc := range []struct {
		cmd string
		def string
	}{{"sim", "(default 5)"}, {"explore", "(default 3)"}, {"demo", "(default 3)"}} {
		code, stdout, _ := runCLI(t, tc.cmd, "--help")
		require.Equal(t, exitOK, code)
		i := strings.Index(stdout, "  -nodes int")
		require.GreaterOrEqual(t, i, 0, tc.cmd)
		line, _, _ := strings.Cut(stdout[i:], "\n  -")
		assert.Contains(t, line, tc.def, tc.cmd)
		assert.NotContains(t, line, "(0:", tc.cmd)
		code, _, stderr := runCLI(t, tc.cmd, "--nodes", "0", "--out", t.TempDir())
		assert.Equal(t, exitBadInput, code, tc.cmd)
		assert.Contains(t, stderr, "nodes must be at least 1", tc.cmd)
	}
}
