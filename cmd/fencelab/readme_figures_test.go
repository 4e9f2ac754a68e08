package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boundsPath is the page that quotes the bounds and worst-case commands.
const boundsPath = "../../docs/bounds.md"

// readmeCommands are the text blocks of docs/bounds.md that quote a
// fencelab command and its output: the command line and the lines shown
// ("…" where the page leaves lines out).
func readmeCommands(t *testing.T, prefixes ...string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(boundsPath)
	require.NoError(t, err)
	out := map[string][]string{}
	blocks := strings.Split(string(data), "```text\n")
	for _, b := range blocks[1:] {
		body, _, _ := strings.Cut(b, "```")
		lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		for _, p := range prefixes {
			if strings.HasPrefix(lines[0], "$ "+p) {
				out[strings.TrimPrefix(lines[0], "$ fencelab ")] = lines[1:]
			}
		}
	}
	return out
}

// TestREADMEFiguresReproduce runs the README's bounds and worst-case
// commands and checks that every line the README quotes is printed, in
// order (all of them where the README elides nothing): the figures a user
// reads are the ones the command gives.
func TestREADMEFiguresReproduce(t *testing.T) {
	cmds := readmeCommands(t, "fencelab bounds", "fencelab sim --design off --worst-case")
	require.GreaterOrEqual(t, len(cmds), 3, "the README quotes two bounds commands and a worst case")
	for cmd, want := range cmds {
		t.Run(cmd, func(t *testing.T) {
			args := strings.Fields(cmd)
			if args[0] == "sim" {
				args = append(args, "--out", t.TempDir())
			}
			if slices.Contains(args, "--from-live") {
				// Its folder is named from the repository's root, as a
				// user runs it, and printed as given.
				t.Chdir(filepath.Join("..", ".."))
			}
			code, stdout, stderr := runCLI(t, args...)
			require.Contains(t, []int{exitOK, exitFailure}, code, stderr)
			got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			elided := false
			k := 0
			for _, line := range want {
				if line == "…" {
					elided = true
					continue
				}
				for k < len(got) && got[k] != line {
					if !elided {
						break
					}
					k++
				}
				if !assert.Less(t, k, len(got), "README line %q not printed (in order) by fencelab %s", line, cmd) {
					return
				}
				assert.Equal(t, line, got[k], "fencelab %s", cmd)
				k++
			}
			if !elided {
				assert.Equal(t, len(got), k, "the README quotes the whole output of fencelab %s", cmd)
			}
		})
	}
}
