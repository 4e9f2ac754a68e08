package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fencelab/fencelab/internal/quote"
)

// ErrNotRunning is returned by the Proc operations that need a running
// process (Pause, Resume, Kill) when it was killed or stopped, and by
// Restart when it still runs (wrapped as "already running").
var ErrNotRunning = errors.New("process is not running")

// ErrPortInUse is wrapped by StartProc's and Restart's errors when the
// port was taken: by someone before the start, or (the process's log says
// "address already in use") between FreePort and the server's bind. A
// service that picks its port itself may retry on a fresh one.
var ErrPortInUse = errors.New("port already in use")

// portAttempts bounds the starts of one server whose free port was taken
// between FreePort and the server's bind (another process's connection
// drew it, which a loaded machine running many tests makes likely): each
// retry draws a fresh port.
const portAttempts = 3

// retryOnPortInUse runs start, which draws a fresh free port each time,
// until it succeeds, fails for another reason, or portAttempts starts in
// a row found their port taken.
func retryOnPortInUse[T any](start func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		v, err := start()
		if err == nil || !errors.Is(err, ErrPortInUse) {
			return v, err
		}
		if attempt == portAttempts {
			return v, fmt.Errorf("%d free ports in a row were taken before the server bound them; the last: %w", portAttempts, err)
		}
	}
}

// Defaults of a ProcSpec.
const (
	// DefaultReadyTimeout bounds the wait for a started process to accept
	// connections on its port.
	DefaultReadyTimeout = 15 * time.Second
	// readyPoll is how often the port is tried while waiting.
	readyPoll = 5 * time.Millisecond
	// logTailBytes is how much of a process's log an error quotes.
	logTailBytes = 2048
	// groupGoneTimeout bounds the wait for the last members of a killed
	// process group to disappear from /proc.
	groupGoneTimeout = 5 * time.Second
)

// ProcSpec says how to run one server process.
type ProcSpec struct {
	// Name names the process in errors and its log file (<Dir>/<Name>.log).
	Name string
	// Dir is the process's data folder, made by the caller (under a
	// temporary folder) just before StartProc. From the call on it belongs
	// to the Proc: StartProc removes it when it fails, Stop removes it.
	Dir string
	// Path and Args are the command; the working directory is Dir.
	Path string
	Args []string
	// Env is added to this process's environment (later entries win).
	Env []string
	// Port is the port on 127.0.0.1 the process listens on (FreePort);
	// the process counts as started when it accepts a connection there.
	Port int
	// Ready, if set, is tried (after the port accepts) until it returns
	// nil, within the same bound: for services that accept a connection
	// before they serve. It is given the address host:port.
	Ready func(ctx context.Context, addr string) error
	// ReadyTimeout bounds start-up (DefaultReadyTimeout if zero).
	ReadyTimeout time.Duration
	// Credential, if set, runs the process as another user (a service
	// that refuses to run as root: postgres, pgbouncer); nil runs it as
	// this process's user.
	Credential *syscall.Credential
}

// Proc is one server process that this package started, in a process
// group of its own (Setpgid), so that a pause, a kill or a stop reaches
// every process the server forks and nothing else: it only ever signals
// the group whose leader it started and has not yet reaped.
//
// A Proc is safe for concurrent use (the nemesis pauses while the harness
// stops).
type Proc struct {
	spec    ProcSpec
	addr    string
	logPath string

	mu      sync.Mutex
	cmd     *exec.Cmd     // the running leader; nil when killed or stopped
	exited  chan struct{} // closed when cmd has been reaped
	removed bool          // Stop removed Dir
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago: the
// kernel picks it for a listener that is closed at once. Another process
// may take it before the server binds it; StartProc then fails clearly.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
	}
	return port, nil
}

// FreePorts returns n distinct ports of 127.0.0.1 that were free a moment
// ago: all n listeners are open at once, so that servers started side by
// side do not draw the same port (FreePort called n times may).
func FreePorts(n int) ([]int, error) {
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close() // a listener that never accepted: nothing to lose
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding free ports on 127.0.0.1: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// StartProc starts spec's command in its own process group and waits until
// it accepts connections on 127.0.0.1:spec.Port. On any failure it ends
// what it started, removes spec.Dir and returns an error quoting the tail
// of the process's log.
func StartProc(ctx context.Context, spec ProcSpec) (*Proc, error) {
	// The name makes the log's file name, so it may not leave Dir.
	badName := spec.Name == "" || strings.ContainsAny(spec.Name, "/\x00") || spec.Name == "." || spec.Name == ".."
	if badName || spec.Dir == "" || spec.Path == "" || spec.Port <= 0 || spec.Port > 65535 {
		if spec.Dir != "" {
			_ = os.RemoveAll(spec.Dir)
		}
		return nil, fmt.Errorf("starting a process: the spec needs a name (a file name), a data folder, a command and a port (got name %s, port %d)", quote.Q(spec.Name), spec.Port)
	}
	if spec.ReadyTimeout <= 0 {
		spec.ReadyTimeout = DefaultReadyTimeout
	}
	p := &Proc{
		spec:    spec,
		addr:    net.JoinHostPort("127.0.0.1", strconv.Itoa(spec.Port)),
		logPath: filepath.Join(spec.Dir, spec.Name+".log"),
	}
	if err := p.start(ctx); err != nil {
		_ = os.RemoveAll(spec.Dir)
		p.removed = true
		return nil, err
	}
	return p, nil
}

// Addr is the process's address, 127.0.0.1:port.
func (p *Proc) Addr() string { return p.addr }

// Port is the process's port on 127.0.0.1.
func (p *Proc) Port() int { return p.spec.Port }

// Dir is the process's data folder.
func (p *Proc) Dir() string { return p.spec.Dir }

// LogPath is the file the process's stdout and stderr go to.
func (p *Proc) LogPath() string { return p.logPath }

// start runs the command once (StartProc and Restart) and waits until it
// serves. p.cmd is nil on entry.
func (p *Proc) start(ctx context.Context) error {
	name := p.spec.Name
	// A port that already answers would make the wait below succeed
	// against someone else's server: refuse it before starting.
	if l, err := net.Listen("tcp", p.addr); err != nil {
		return fmt.Errorf("starting %s: port %d on 127.0.0.1 is already in use (%w): %w", name, p.spec.Port, ErrPortInUse, err)
	} else if err := l.Close(); err != nil {
		return fmt.Errorf("starting %s: probing port %d: %w", name, p.spec.Port, err)
	}
	logFile, err := os.OpenFile(p.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	cmd := exec.Command(p.spec.Path, p.spec.Args...)
	cmd.Dir = p.spec.Dir
	cmd.Env = append(os.Environ(), p.spec.Env...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// Its own group, so signals reach its children too; and killed if
	// this process dies without running its clean-up (SIGKILL). The
	// kernel sends Pdeathsig when the OS thread that started the child
	// ends, not the process: Go ends a thread only when a goroutine
	// locked to it (runtime.LockOSThread) exits locked, so do not start
	// servers from such a goroutine.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: p.spec.Credential}
	err = cmd.Start()
	closeErr := logFile.Close() // the child has its own descriptor
	if err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the exit status shows in the log and in ready's error
		close(exited)
	}()
	p.mu.Lock()
	p.cmd, p.exited = cmd, exited
	p.mu.Unlock()
	if closeErr != nil {
		_ = p.Kill()
		return fmt.Errorf("starting %s: %w", name, closeErr)
	}
	if err := p.waitReady(ctx, exited); err != nil {
		_ = p.Kill()
		tail := p.LogTail()
		if strings.Contains(strings.ToLower(tail), "address already in use") {
			err = fmt.Errorf("%w (%w)", err, ErrPortInUse)
		}
		return fmt.Errorf("starting %s: %w; %s", name, err, logEnd(tail))
	}
	return nil
}

// Bounds of the log's end that a start-up error quotes.
const (
	logEndLines    = 4
	logEndLineSize = 240
)

// logEnd is the last few non-blank lines of a log tail, on one line (the
// callers print an error as one line, and a reason after a newline would
// be cut off), each line bounded: why a server would not start. The tail
// is read once the process has exited, so it holds all it wrote.
func logEnd(tail string) string {
	var lines []string
	for _, l := range strings.Split(tail, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, quote.Cut(l, logEndLineSize))
		}
	}
	if len(lines) == 0 {
		return "its log is empty"
	}
	if len(lines) > logEndLines {
		lines = lines[len(lines)-logEndLines:]
	}
	return "its log ends: " + strings.Join(lines, " | ")
}

// waitReady polls the port (then spec.Ready) until it answers, the
// process exits, ctx ends or the bound passes.
func (p *Proc) waitReady(ctx context.Context, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, p.spec.ReadyTimeout)
	defer cancel()
	var dialer net.Dialer
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	portOpen := false
	var lastErr error
	for {
		if !portOpen {
			attempt, cancelAttempt := context.WithTimeout(ctx, time.Second)
			conn, err := dialer.DialContext(attempt, "tcp", p.addr)
			cancelAttempt()
			if err == nil {
				_ = conn.Close()
				portOpen = true
			} else {
				lastErr = err
			}
		}
		if portOpen {
			if p.spec.Ready == nil {
				return nil
			}
			if lastErr = p.spec.Ready(ctx, p.addr); lastErr == nil {
				return nil
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("it exited before serving on %s (%s)", p.addr, p.exitStatus())
		case <-ctx.Done():
			return fmt.Errorf("not serving on %s after %v: %w", p.addr, p.spec.ReadyTimeout, errors.Join(ctx.Err(), lastErr))
		case <-tick.C:
		}
	}
}

// probe is one try of a readiness check that speaks the service's
// protocol: it dials addr, sends request and returns what read takes from
// the answer, all within bound (and ctx).
func probe(ctx context.Context, addr, request string, bound time.Duration, read func(io.Reader) ([]byte, error)) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(deadline); err != nil {
			return nil, err
		}
	}
	if _, err := io.WriteString(conn, request); err != nil {
		return nil, err
	}
	return read(conn)
}

// exitStatus describes how the last leader exited.
func (p *Proc) exitStatus() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.ProcessState == nil {
		return "status unknown"
	}
	return p.cmd.ProcessState.String()
}

// LogTail is the last couple of kilobytes of the process's log, for
// errors ("" if there is none).
func (p *Proc) LogTail() string {
	f, err := os.Open(p.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > logTailBytes {
		if _, err := f.Seek(-logTailBytes, io.SeekEnd); err != nil {
			return ""
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, logTailBytes))
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(bytes.ToValidUTF8(b, []byte("?"))), "\n")
}

// running returns the live leader's pid (its group id), or ErrNotRunning.
// The caller holds p.mu.
func (p *Proc) runningPid() (int, error) {
	if p.cmd == nil {
		return 0, fmt.Errorf("%s: %w", p.spec.Name, ErrNotRunning)
	}
	select {
	case <-p.exited:
		return 0, fmt.Errorf("%s exited by itself (%s): %w", p.spec.Name, p.cmd.ProcessState, ErrNotRunning)
	default:
		return p.cmd.Process.Pid, nil
	}
}

// Running says whether the process runs (it may be paused).
func (p *Proc) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.runningPid()
	return err == nil
}

// Pids are the processes of the running group (the leader first); empty
// when the process is killed or stopped.
func (p *Proc) Pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	pgid, err := p.runningPid()
	if err != nil {
		return nil
	}
	pids := []int{pgid}
	for _, pid := range groupMembers(pgid) {
		if pid != pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// signalGroup sends sig to the running group.
func (p *Proc) signalGroup(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	pgid, err := p.runningPid()
	if err != nil {
		return err
	}
	// The leader is not reaped (the wait goroutine has not returned), so
	// pgid still names the group this Proc created.
	if err := syscall.Kill(-pgid, sig); err != nil {
		return fmt.Errorf("%s: sending %v to group %d: %w", p.spec.Name, sig, pgid, err)
	}
	return nil
}

// Pause stops every process of the group (SIGSTOP): a server pause. A
// signal is delivered asynchronously; Pause returns once /proc shows every
// member stopped (bounded), so a pause has taken effect when it returns.
func (p *Proc) Pause() error {
	if err := p.signalGroup(syscall.SIGSTOP); err != nil {
		return err
	}
	return p.waitGroup("stopped", func(state string) bool { return state == "T" })
}

// Resume continues a paused group (SIGCONT) and returns once no member
// shows stopped (bounded).
func (p *Proc) Resume() error {
	if err := p.signalGroup(syscall.SIGCONT); err != nil {
		return err
	}
	return p.waitGroup("running again", func(state string) bool { return state != "T" })
}

// waitGroup waits, bounded by groupGoneTimeout, until every live member of
// the running group is in a state that ok accepts.
func (p *Proc) waitGroup(what string, ok func(state string) bool) error {
	p.mu.Lock()
	pgid, err := p.runningPid()
	p.mu.Unlock()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(groupGoneTimeout)
	for {
		pending := 0
		for _, pid := range groupMembers(pgid) {
			if _, state, found := procGroup(pid); found && !ok(state) {
				pending++
			}
		}
		if pending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %d processes of group %d not %s after %v", p.spec.Name, pending, pgid, what, groupGoneTimeout)
		}
		time.Sleep(time.Millisecond)
	}
}

// Kill ends the group at once (SIGKILL, which also ends a paused group)
// and waits until the leader is reaped and no member is left. The data
// folder stays for Restart. Kill of a process that is not running returns
// an error wrapping ErrNotRunning (after reaping it if it exited by
// itself).
func (p *Proc) Kill() error {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	if cmd == nil {
		p.mu.Unlock()
		return fmt.Errorf("kill %s: %w", p.spec.Name, ErrNotRunning)
	}
	pgid := cmd.Process.Pid
	var sigErr error
	select {
	case <-exited:
		sigErr = fmt.Errorf("kill %s: it had exited by itself (%s): %w", p.spec.Name, cmd.ProcessState, ErrNotRunning)
		// Forks it left behind keep the group id alive (the kernel does
		// not reuse a pid while it names a group), so the group is still
		// the one this Proc created.
		if len(groupMembers(pgid)) > 0 {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	default:
		if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
			sigErr = fmt.Errorf("kill %s: group %d: %w", p.spec.Name, pgid, err)
		}
	}
	p.mu.Unlock()
	<-exited
	// Members of the group other than the leader (a server's forks) get
	// the same SIGKILL; wait, bounded, until the kernel has removed them.
	deadline := time.Now().Add(groupGoneTimeout)
	for len(groupMembers(pgid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(readyPoll)
	}
	p.mu.Lock()
	if p.cmd == cmd {
		p.cmd, p.exited = nil, nil
	}
	p.mu.Unlock()
	if sigErr != nil {
		return sigErr
	}
	if left := groupMembers(pgid); len(left) > 0 {
		return fmt.Errorf("kill %s: processes %v of group %d still there after %v", p.spec.Name, left, pgid, groupGoneTimeout)
	}
	return nil
}

// Restart starts the process again with the same command on the same
// port, after a Kill (or after it exited by itself); its log is appended
// to. What the data folder holds is the caller's business (a service
// wipes its data before a restart without persistence).
func (p *Proc) Restart(ctx context.Context) error {
	p.mu.Lock()
	if p.removed {
		p.mu.Unlock()
		return fmt.Errorf("restart %s: it was stopped and its data folder removed", p.spec.Name)
	}
	if _, err := p.runningPid(); err == nil {
		p.mu.Unlock()
		return fmt.Errorf("restart %s: it is already running", p.spec.Name)
	}
	cmd := p.cmd
	p.mu.Unlock()
	if cmd != nil { // exited by itself: reap the record first
		_ = p.Kill()
	}
	return p.start(ctx)
}

// Stop ends the group if it runs (SIGKILL: the data is thrown away, so
// there is nothing to shut down gracefully), waits for it and removes the
// data folder. It is idempotent.
func (p *Proc) Stop() error {
	var errs []error
	if err := p.Kill(); err != nil && !errors.Is(err, ErrNotRunning) {
		errs = append(errs, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.removed {
		if err := os.RemoveAll(p.spec.Dir); err != nil {
			errs = append(errs, fmt.Errorf("stop %s: %w", p.spec.Name, err))
		} else {
			p.removed = true
		}
	}
	return errors.Join(errs...)
}

// groupMembers lists the live pids in process group pgid, read from
// /proc. A zombie is left out: it is dead and holds nothing (no port, no
// file), and a killed server's orphaned forks become zombies of pid 1,
// which reaps them on its own schedule (here up to seconds later).
func groupMembers(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, state, ok := procGroup(pid); ok && g == pgid && state != "Z" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procGroup reads a process's group id and state letter (R, S, T, Z ...)
// from /proc/<pid>/stat; its second field (the command name, in
// parentheses) may hold spaces or parentheses, so the fields are counted
// from the last ')'.
func procGroup(pid int) (pgid int, state string, ok bool) {
	fields, ok := procStat(pid)
	if !ok || len(fields) < 3 {
		return 0, "", false
	}
	g, err := strconv.Atoi(fields[2])
	return g, fields[0], err == nil
}

// procStat reads /proc/<pid>/stat's fields after the command name (the
// state first, field 3 of proc(5)).
func procStat(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(b[i+1:])), true
}

// ProcStartTime is when process pid started, in clock ticks after boot
// (field 22 of /proc/<pid>/stat), and whether it is alive (a zombie is
// not): with the pid, it names one process, whatever pid reuse follows.
func ProcStartTime(pid int) (uint64, bool) {
	if pid <= 0 {
		return 0, false
	}
	fields, ok := procStat(pid)
	// Field 22 of stat is index 19 after the command name (field 3 is 0).
	if !ok || len(fields) < 20 || fields[0] == "Z" {
		return 0, false
	}
	t, err := strconv.ParseUint(fields[19], 10, 64)
	return t, err == nil
}

// MissingError says that a service's program is not installed: callers
// (tests, the live command) turn it into a one-line skip that names the
// Debian package, never into a verdict.
type MissingError struct {
	Program string // the program looked up on PATH ("redis-server")
	Package string // the Debian package that installs it
	// Build, when set, says how the program is built instead (a program
	// no Debian package has, built from Package, a Go module).
	Build string
	Err   error // exec.LookPath's error
}

func (e *MissingError) Error() string {
	if e.Build != "" {
		return fmt.Sprintf("%s is not built (from %s: %s)", e.Program, e.Package, e.Build)
	}
	return fmt.Sprintf("%s is not installed (Debian package %s; make live-deps installs it)", e.Program, e.Package)
}

func (e *MissingError) Unwrap() error { return e.Err }

// LookPath finds program on PATH, or returns a *MissingError naming the
// Debian package pkg.
func LookPath(program, pkg string) (string, error) {
	path, err := exec.LookPath(program)
	if err != nil {
		return "", &MissingError{Program: program, Package: pkg, Err: err}
	}
	return path, nil
}
