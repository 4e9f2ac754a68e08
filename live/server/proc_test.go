package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/internal/quietlog"
)

// helperRole is the environment variable that turns the test binary into
// a helper server process (TestMain): a listener that forks a child, so
// that the tests see a group of more than one process.
const helperRole = "FENCELAB_PROC_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperRole) {
	case "":
		quietlog.Libraries()
		os.Exit(m.Run())
	case "listen":
		// Args: -test.run=^$ listen <port>
		port := os.Args[len(os.Args)-1]
		l, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(3)
		}
		fmt.Println("helper listening on", l.Addr())
		for {
			c, err := l.Accept()
			if err != nil {
				os.Exit(4)
			}
			_ = c.Close()
		}
	}
	fmt.Fprintln(os.Stderr, "unknown helper role")
	os.Exit(5)
}

// helperSpec is a spec that runs the listening helper in a fresh folder
// under t's temporary folder, on a free port.
func helperSpec(t *testing.T, forkChild bool) ProcSpec {
	t.Helper()
	dir, err := os.MkdirTemp(t.TempDir(), "helper-")
	require.NoError(t, err)
	port, err := FreePort()
	require.NoError(t, err)
	self, err := os.Executable()
	require.NoError(t, err)
	spec := ProcSpec{
		Name: "helper", Dir: dir, Port: port, ReadyTimeout: 10 * time.Second,
		Path: self, Args: []string{"-test.run=^$", "listen", strconv.Itoa(port)},
		Env: []string{helperRole + "=listen"},
	}
	if forkChild {
		// sh forks the helper and a sleeping sibling: three processes in
		// one group, the shell its leader.
		spec.Path = "/bin/sh"
		spec.Args = []string{"-c", `sleep 60 & exec "$0" "$@"`, self, "-test.run=^$", "listen", strconv.Itoa(port)}
	}
	return spec
}

// processAlive says whether a pid is in /proc and not a zombie (a dead
// orphan waiting for pid 1 to reap it).
func processAlive(pid int) bool {
	_, state, ok := procGroup(pid)
	return ok && state != "Z"
}

// procState is a process's state letter in /proc (R, S, T for stopped, Z).
func procState(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	require.NoError(t, err)
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return fields[0]
}

func TestProcStartStopLeavesNothing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		forkChild bool
		wantPids  int
	}{
		{"one process", false, 1},
		{"a group of three", true, 2}, // sh exec's the helper: helper + sleep
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := helperSpec(t, tc.forkChild)
			p, err := StartProc(context.Background(), spec)
			require.NoError(t, err)
			t.Cleanup(func() { _ = p.Stop() })

			// Witness it served: a client connects.
			conn, err := net.DialTimeout("tcp", p.Addr(), time.Second)
			require.NoError(t, err)
			require.NoError(t, conn.Close())
			require.Equal(t, "127.0.0.1:"+strconv.Itoa(spec.Port), p.Addr())
			pids := p.Pids()
			require.Len(t, pids, tc.wantPids, "pids %v", pids)
			for _, pid := range pids {
				g, _, ok := procGroup(pid)
				require.True(t, ok)
				require.Equal(t, pids[0], g, "every pid is in the group the leader leads")
			}
			require.DirExists(t, spec.Dir)
			require.FileExists(t, p.LogPath())

			require.NoError(t, p.Stop())
			require.NoError(t, p.Stop(), "Stop is idempotent")
			for _, pid := range pids {
				require.False(t, processAlive(pid), "pid %d still in /proc", pid)
			}
			require.Empty(t, groupMembers(pids[0]))
			require.NoDirExists(t, spec.Dir)
			require.Empty(t, p.Pids())
			require.False(t, p.Running())
		})
	}
}

func TestProcStartFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mutate  func(t *testing.T, spec *ProcSpec)
		wantErr []string
		wantIs  error
	}{
		{
			name: "exits at once",
			mutate: func(t *testing.T, spec *ProcSpec) {
				spec.Path, spec.Args, spec.Env = "/bin/sh", []string{"-c", "echo config-broken-marker >&2; exit 3"}, nil
			},
			wantErr: []string{"exited before serving", "exit status 3", "config-broken-marker"},
		},
		{
			name: "never listens",
			mutate: func(t *testing.T, spec *ProcSpec) {
				spec.Path, spec.Args, spec.Env = "/bin/sh", []string{"-c", "echo waiting-marker; exec sleep 60"}, nil
				spec.ReadyTimeout = 300 * time.Millisecond
			},
			wantErr: []string{"not serving", "300ms", "waiting-marker"},
		},
		{
			name: "port in use",
			mutate: func(t *testing.T, spec *ProcSpec) {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				require.NoError(t, err)
				t.Cleanup(func() { _ = l.Close() })
				spec.Port = l.Addr().(*net.TCPAddr).Port
			},
			wantErr: []string{"already in use"},
			wantIs:  ErrPortInUse,
		},
		{
			name: "port taken before its bind",
			mutate: func(t *testing.T, spec *ProcSpec) {
				spec.Path, spec.Args, spec.Env = "/bin/sh", []string{"-c", "echo 'bind: Address already in use' >&2; exit 1"}, nil
			},
			wantErr: []string{"exited before serving"},
			wantIs:  ErrPortInUse,
		},
		{
			name: "no such command",
			mutate: func(t *testing.T, spec *ProcSpec) {
				spec.Path = filepath.Join(spec.Dir, "no-such-binary")
			},
			wantErr: []string{"no-such-binary"},
		},
		{
			name:    "no port",
			mutate:  func(t *testing.T, spec *ProcSpec) { spec.Port = 0 },
			wantErr: []string{"needs a name (a file name), a data folder, a command and a port"},
		},
		{
			name:    "a name that leaves the folder",
			mutate:  func(t *testing.T, spec *ProcSpec) { spec.Name = "../escape" },
			wantErr: []string{"needs a name (a file name)", `"../escape"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := helperSpec(t, false)
			tc.mutate(t, &spec)
			before := time.Now()
			p, err := StartProc(context.Background(), spec)
			require.Error(t, err)
			require.Nil(t, p)
			for _, want := range tc.wantErr {
				require.ErrorContains(t, err, want)
			}
			if tc.wantIs != nil {
				require.ErrorIs(t, err, tc.wantIs)
			} else {
				require.NotErrorIs(t, err, ErrPortInUse)
			}
			require.Less(t, time.Since(before), 5*time.Second)
			require.NoDirExists(t, spec.Dir, "a failed start removes the data folder")
		})
	}
}

func TestProcStartFailureLeavesNoProcess(t *testing.T) {
	// A command that forks a child and never listens: after the failed
	// start, no process of its group is left.
	spec := helperSpec(t, false)
	marker := filepath.Join(filepath.Dir(spec.Dir), "pgid")
	spec.Path, spec.Args, spec.Env = "/bin/sh", []string{"-c", `echo $$ > "$0"; sleep 60 & exec sleep 61`, marker}, nil
	spec.ReadyTimeout = 300 * time.Millisecond
	_, err := StartProc(context.Background(), spec)
	require.Error(t, err)
	b, err := os.ReadFile(marker)
	require.NoError(t, err)
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.Empty(t, groupMembers(pgid))
}

func TestProcPauseKillRestart(t *testing.T) {
	spec := helperSpec(t, false)
	p, err := StartProc(context.Background(), spec)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	pid := p.Pids()[0]

	require.NoError(t, p.Pause())
	require.Equal(t, "T", procState(t, pid), "paused: stopped by SIGSTOP")
	require.NoError(t, p.Resume())
	require.NotEqual(t, "T", procState(t, pid), "resumed")

	// A paused process is killed too.
	require.NoError(t, p.Pause())
	require.NoError(t, p.Kill())
	require.False(t, processAlive(pid))
	require.Empty(t, p.Pids())
	require.DirExists(t, spec.Dir, "Kill keeps the data folder")
	for name, op := range map[string]func() error{"pause": p.Pause, "resume": p.Resume, "kill": p.Kill} {
		require.ErrorIs(t, op(), ErrNotRunning, name)
	}

	require.NoError(t, p.Restart(context.Background()))
	require.ErrorContains(t, p.Restart(context.Background()), "already running")
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(spec.Port), time.Second)
	require.NoError(t, err, "restarted on the same port")
	require.NoError(t, conn.Close())
	newPid := p.Pids()[0]
	require.NotEqual(t, pid, newPid)
	log, err := os.ReadFile(p.LogPath())
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(string(log), "helper listening"), "the log is appended to")

	require.NoError(t, p.Stop())
	require.False(t, processAlive(newPid))
	require.NoDirExists(t, spec.Dir)
	err = p.Restart(context.Background())
	require.Error(t, err)
	require.ErrorContains(t, err, "removed")
}

func TestProcRestartAfterPortTaken(t *testing.T) {
	spec := helperSpec(t, false)
	p, err := StartProc(context.Background(), spec)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	require.NoError(t, p.Kill())
	l, err := net.Listen("tcp", p.Addr())
	require.NoError(t, err)
	defer l.Close()
	err = p.Restart(context.Background())
	require.ErrorContains(t, err, "already in use")
	require.DirExists(t, spec.Dir, "a failed restart keeps the folder until Stop")
	require.NoError(t, p.Stop())
	require.NoDirExists(t, spec.Dir)
}

func TestProcGroupParsesOddNames(t *testing.T) {
	// A process whose name holds ") (" must still parse: start one and
	// read its group.
	dir := t.TempDir()
	odd := filepath.Join(dir, "a) (b")
	require.NoError(t, os.Symlink("/bin/sleep", odd))
	spec := helperSpec(t, false)
	spec.Path, spec.Args = "/bin/sh", []string{"-c", `exec "$0" 60 & exec "$1" "$2" "$3" "$4"`, odd, spec.Path, spec.Args[0], spec.Args[1], spec.Args[2]}
	p, err := StartProc(context.Background(), spec)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	require.Len(t, p.Pids(), 2)
}

func TestLookPathNamesThePackage(t *testing.T) {
	for _, tc := range []struct {
		program, pkg string
		found        bool
	}{
		{"sh", "dash", true},
		{"fencelab-no-such-program", "fencelab-pkg", false},
	} {
		t.Run(tc.program, func(t *testing.T) {
			path, err := LookPath(tc.program, tc.pkg)
			if tc.found {
				require.NoError(t, err)
				require.NotEmpty(t, path)
				return
			}
			var missing *MissingError
			require.ErrorAs(t, err, &missing)
			require.Equal(t, tc.pkg, missing.Package)
			require.Equal(t, "fencelab-no-such-program is not installed (Debian package fencelab-pkg; make live-deps installs it)", err.Error())
			require.ErrorIs(t, err, exec.ErrNotFound)
		})
	}
}

func TestFreePortsAreDistinct(t *testing.T) {
	for _, n := range []int{1, 5, 50} {
		ports, err := FreePorts(n)
		require.NoError(t, err)
		require.Len(t, ports, n)
		seen := map[int]bool{}
		for _, p := range ports {
			require.False(t, seen[p], "port %d twice", p)
			seen[p] = true
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			require.NoError(t, err, "free again once returned")
			require.NoError(t, l.Close())
		}
	}
}

// TestRetryOnPortInUse: a start whose port was taken is tried again on a
// fresh port, up to portAttempts starts; any other failure, or success,
// ends the retries at once.
func TestRetryOnPortInUse(t *testing.T) {
	taken := fmt.Errorf("starting x: %w", ErrPortInUse)
	other := errors.New("starting x: no such file")
	tests := []struct {
		name      string
		results   []error // one a start; past its end, success
		wantCalls int
		wantErr   error
	}{
		{"first start serves", nil, 1, nil},
		{"one port taken", []error{taken}, 2, nil},
		{"two ports taken", []error{taken, taken}, 3, nil},
		{"every port taken", []error{taken, taken, taken, taken}, portAttempts, ErrPortInUse},
		{"another failure is not retried", []error{other}, 1, other},
		{"another failure after a taken port", []error{taken, other}, 2, other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			v, err := retryOnPortInUse(func() (int, error) {
				calls++
				if calls <= len(tt.results) && tt.results[calls-1] != nil {
					return 0, tt.results[calls-1]
				}
				return 42, nil
			})
			require.Equal(t, tt.wantCalls, calls)
			if tt.wantErr == nil {
				require.NoError(t, err)
				require.Equal(t, 42, v)
				return
			}
			require.ErrorIs(t, err, tt.wantErr)
			require.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}
