// Package jsonline is what the line protocols of fencelab-live share
// (docs/protocol.md, docs/store-protocol.md): the user's program as a
// process read line by line (Proc), a reply line read strictly, a line
// quoted for an error, and the head of a process's stderr kept.
package jsonline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// DecodeStrict decodes line into v, a struct of pointer fields: one JSON
// value, no field v lacks, and no null field at the top (a pointer left
// nil would read a null as absent, and no schema of the protocols allows
// one).
func DecodeStrict(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not a reply object: %w", err)
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err == nil {
		for name, raw := range fields {
			if string(bytes.TrimSpace(raw)) == "null" {
				return fmt.Errorf("field %q is null", name)
			}
		}
	}
	return nil
}

// Quote quotes the start of a line for an error.
func Quote(b []byte) string {
	const max = 80
	if len(b) > max {
		return fmt.Sprintf("%q…", b[:max])
	}
	return fmt.Sprintf("%q", b)
}

// HeadBuffer keeps the first Max bytes written to it: a process's
// stderr, for the error that names what went wrong.
type HeadBuffer struct {
	Max int

	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *HeadBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.Max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *HeadBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Line is one line of a process's output, or, last, the error that ended
// its reading (io.EOF: the output's end).
type Line struct {
	Text []byte
	Err  error
}

// Proc is a process started with sh -c whose output is read line by
// line (Lines) and which is reaped by itself: the user's program behind
// a line protocol.
type Proc struct {
	Cmd *exec.Cmd
	// In is the process's standard input.
	In io.WriteCloser
	// Lines are its output's lines, in order, then the error that ended
	// them.
	Lines chan Line

	ownGroup bool
	quit     chan struct{} // closed when no more lines are taken
	stopOnce sync.Once
	exited   chan struct{} // closed once the process is reaped
	waitErr  error         // its end, set before exited closes
}

// Start starts command with sh -c, in a process group of its own when
// ownGroup (killed whole by Stop), killed with its parent in any case;
// stderr (nil: discarded) gets its standard error; a line longer than
// maxLine ends the reading with an error.
func Start(command string, ownGroup bool, stderr io.Writer, maxLine int) (*Proc, error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: ownGroup, Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = stderr
	// A process that left a child holding its output must not hold Wait.
	cmd.WaitDelay = time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{Cmd: cmd, In: in, Lines: make(chan Line, 16), ownGroup: ownGroup, quit: make(chan struct{}), exited: make(chan struct{})}
	go p.read(out, maxLine)
	return p, nil
}

// read sends the output's lines to p.Lines, then its end, then reaps the
// process.
func (p *Proc) read(out io.Reader, maxLine int) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 512), maxLine+1)
	for sc.Scan() {
		select {
		case p.Lines <- Line{Text: bytes.Clone(sc.Bytes())}:
		case <-p.quit: // nobody takes more: the rest is dropped
		}
	}
	err := sc.Err()
	if errors.Is(err, bufio.ErrTooLong) {
		err = fmt.Errorf("a line longer than %d bytes", maxLine)
	} else if err == nil {
		err = io.EOF
	}
	select {
	case p.Lines <- Line{Err: err}:
	case <-p.quit:
	}
	// Nothing more is read: what the process still writes must not block
	// it before it is reaped.
	go io.Copy(io.Discard, out)
	p.waitErr = p.Cmd.Wait()
	close(p.exited)
}

// Exited is closed once the process is reaped.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// WaitErr is the process's end (nil: exit status 0), once Exited is
// closed.
func (p *Proc) WaitErr() error { return p.waitErr }

// Status is the process's end in words, once Exited is closed.
func (p *Proc) Status() string {
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

// AwaitExit waits grace for the process to exit once its input is
// closed, reading what it still writes: the first such line (extra, a
// reply to nothing), an error reading the output, or timedOut when it did
// not exit in time. The exit is taken once the output has ended too: a
// process that writes a line and exits has both ready at once, and the
// line, read first or not, is returned.
func (p *Proc) AwaitExit(grace time.Duration) (extra []byte, readErr error, timedOut bool) {
	p.In.Close() // end of input means close too
	timer := time.NewTimer(grace)
	defer timer.Stop()
	lines, exited := p.Lines, p.exited
	for lines != nil || exited != nil {
		select {
		case l := <-lines:
			if l.Err == nil {
				return l.Text, nil, false
			}
			if l.Err != io.EOF {
				return nil, l.Err, false
			}
			lines = nil // the output ended: wait for the exit
		case <-exited:
			exited = nil // read what it wrote before it exited
		case <-timer.C:
			if exited != nil {
				return nil, nil, true
			}
			lines = nil // it exited; a process it left keeps the output open
		}
	}
	return nil, nil, false
}

// Stop ends the process and waits until it is reaped: its input closed,
// its output no longer taken, the process (its group, when it has its
// own: its children too) killed. It is idempotent.
func (p *Proc) Stop() {
	p.stopOnce.Do(func() {
		p.In.Close()
		close(p.quit)
		select {
		case <-p.exited:
			if p.ownGroup {
				syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL) // its children may outlive it
			}
		default:
			if p.ownGroup {
				syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
			} else {
				p.Cmd.Process.Kill()
			}
		}
		<-p.exited
	})
}
