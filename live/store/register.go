package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/impl"
)

// The register's wire protocol is one line per request and one per answer,
// so that a person can drive it with nc:
//
//	R <client> <token>          read the counter
//	W <client> <token> <value>  set the counter
//	OK <value>                  accepted (a read's value; a write echoes its own)
//	NO                          refused by the fencing check
//	ERR <reason>                a malformed request (the connection stays)
//
// <client> is the 0-based client index the resource's log names the
// operation by (impl.ClientNode); <token> is the fencing token, 0 for none.

// maxLine bounds a request line: a longer one is hostile or broken, and the
// connection is closed rather than buffered without limit.
const maxLine = 128

// Register is fencelab's fenced register served over TCP on 127.0.0.1: the
// pure impl.Resource actor of one fencing mode behind one lock, so each
// operation is checked and applied in one atomic step, in the order the
// lock is taken. Its log, in acceptance order, is what the live judge
// checks TokenIsMonotonical and NoLostUpdate on.
type Register struct {
	ln net.Listener

	mu    sync.Mutex
	res   impl.Resource
	at    []int64 // wall UnixNano at which each logged operation was handled
	out   impl.Effects
	conns map[net.Conn]struct{}
	done  bool
	// cmd, when set, decides every operation instead of res: the user's
	// store as a process (ServeStoreCommand), which serializes them.
	cmd *StoreCommand

	wg sync.WaitGroup
}

// ServeRegister starts a register of the given mode on a free port of
// 127.0.0.1. Close stops it.
func ServeRegister(mode impl.FenceMode) (*Register, error) {
	switch mode {
	case impl.FenceNone, impl.FenceWrites, impl.FenceAll, impl.FenceCAS, impl.FenceVersion:
	default:
		// The sequencer mode asks the lock service about each token: a
		// register on its own cannot answer that.
		return nil, fmt.Errorf("register: fencing mode %v is not served over TCP", mode)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("register: listen on 127.0.0.1: %w", err)
	}
	r := &Register{ln: ln, res: impl.NewResource(mode), conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// ServeStoreCommand serves the register's protocol on a free port of
// 127.0.0.1 with cmd deciding every operation in place of impl.Resource:
// the clients dial it with DialRegister as ever. A store's error answer
// or its breach is an ERR answer (the client's call fails); the breach is
// cmd.Err. Close stops the serving, not cmd.
func ServeStoreCommand(cmd *StoreCommand) (*Register, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("store command: listen on 127.0.0.1: %w", err)
	}
	r := &Register{ln: ln, res: impl.NewResource(cmd.mode), conns: map[net.Conn]struct{}{}, cmd: cmd}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Addr is host:port for DialRegister.
func (r *Register) Addr() string { return r.ln.Addr().String() }

// Mode is the register's fencing check.
func (r *Register) Mode() impl.FenceMode {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.res.Mode()
}

// Resource returns a copy of the actor's state: its counter and its log
// of every operation in the order handled (accepted or refused).
func (r *Register) Resource() *impl.Resource {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.res.Clone()
	return &c
}

// HandledAt is the wall time (UnixNano) at which each operation of the
// log was handled, index for index.
func (r *Register) HandledAt() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.at...)
}

// Close stops accepting, closes every connection and waits for their
// goroutines. It is idempotent.
func (r *Register) Close() error {
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return nil
	}
	r.done = true
	err := r.ln.Close()
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
	return err
}

func (r *Register) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		r.mu.Lock()
		if r.done {
			r.mu.Unlock()
			c.Close()
			return
		}
		r.conns[c] = struct{}{}
		r.wg.Add(1)
		r.mu.Unlock()
		go r.serve(c)
	}
}

func (r *Register) serve(c net.Conn) {
	defer r.wg.Done()
	defer func() {
		r.mu.Lock()
		delete(r.conns, c)
		r.mu.Unlock()
		c.Close()
	}()
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, maxLine), maxLine)
	w := bufio.NewWriter(c)
	for sc.Scan() {
		answer := r.handle(sc.Text())
		if _, err := w.WriteString(answer + "\n"); err != nil {
			return
		}
		if err := w.Flush(); err != nil {
			return
		}
	}
}

// handle answers one request line.
func (r *Register) handle(line string) string {
	msg, err := parseRequest(line)
	if err != nil {
		return "ERR " + err.Error()
	}
	if r.cmd != nil {
		return r.forward(msg)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out.Reset()
	r.res.Step(&impl.Input{Kind: impl.InputMessage, Msg: msg}, &r.out)
	r.at = append(r.at, time.Now().UnixNano())
	for _, m := range r.out.Send {
		switch m.Kind {
		case impl.MsgReadReply, impl.MsgWriteReply:
			if !m.OK {
				return "NO"
			}
			if m.Kind == impl.MsgWriteReply {
				return "OK " + strconv.FormatInt(msg.Value, 10)
			}
			return "OK " + strconv.FormatInt(m.Value, 10)
		}
	}
	// Every mode served here answers every read and write at once.
	return "ERR no answer"
}

// forward has the store command decide msg.
func (r *Register) forward(msg impl.Message) string {
	op := impl.Op{Client: msg.From, Kind: impl.OpRead, Token: msg.Token}
	if msg.Kind == impl.MsgWrite {
		op.Kind, op.Value = impl.OpWrite, msg.Value
	}
	done, err := r.cmd.Do(op)
	switch {
	case err != nil:
		return "ERR " + oneLine(err.Error())
	case !done.Accepted:
		return "NO"
	}
	return "OK " + strconv.FormatInt(done.Value, 10)
}

// parseRequest reads "R <client> <token>" or "W <client> <token> <value>".
func parseRequest(line string) (impl.Message, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return impl.Message{}, errors.New("empty request")
	}
	var m impl.Message
	switch {
	case f[0] == "R" && len(f) == 3:
		m.Kind = impl.MsgRead
	case f[0] == "W" && len(f) == 4:
		m.Kind = impl.MsgWrite
		v, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return impl.Message{}, errors.New("bad value")
		}
		m.Value = v
	default:
		return impl.Message{}, errors.New("want R <client> <token> or W <client> <token> <value>")
	}
	client, err := strconv.Atoi(f[1])
	if err != nil || client < 0 || client >= impl.MaxClients {
		return impl.Message{}, fmt.Errorf("bad client (want 0 to %d)", impl.MaxClients-1)
	}
	token, err := strconv.ParseUint(f[2], 10, 64)
	if err != nil {
		return impl.Message{}, errors.New("bad token")
	}
	m.From, m.To, m.Token = impl.ClientNode(client), impl.ResourceNode, token
	return m, nil
}

// RegisterOption configures DialRegister.
type RegisterOption func(*registerClient)

// AsClient names the client (0-based index) whose operations the
// register's log records; the default is client 0.
func AsClient(i int) RegisterOption { return func(c *registerClient) { c.client = i } }

// registerClient is one connection to a Register.
type registerClient struct {
	client int
	mu     sync.Mutex
	conn   net.Conn
	rd     *bufio.Reader
}

// DialRegister connects to the register at addr.
func DialRegister(addr string, opts ...RegisterOption) (Store, error) {
	c := &registerClient{}
	for _, o := range opts {
		o(c)
	}
	if c.client < 0 || c.client >= impl.MaxClients {
		return nil, fmt.Errorf("register: client %d out of range", c.client)
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("register: %w", err)
	}
	c.conn, c.rd = conn, bufio.NewReaderSize(conn, maxLine)
	return c, nil
}

func (c *registerClient) Read(ctx context.Context, token uint64) (int64, bool, error) {
	return c.call(ctx, fmt.Sprintf("R %d %d", c.client, token))
}

func (c *registerClient) Write(ctx context.Context, token uint64, value int64) (bool, error) {
	_, ok, err := c.call(ctx, fmt.Sprintf("W %d %d %d", c.client, token, value))
	return ok, err
}

func (c *registerClient) Close() error { return c.conn.Close() }

// call sends one request and reads its answer, within ctx's deadline.
func (c *registerClient) call(ctx context.Context, req string) (int64, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Time{}
	}
	if err := c.conn.SetDeadline(deadline); err != nil {
		return 0, false, fmt.Errorf("register: %w", err)
	}
	// A cancelled ctx without a deadline still ends the call: the
	// connection's deadline is moved to now.
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := c.conn.Write([]byte(req + "\n")); err != nil {
		return 0, false, fmt.Errorf("register: %w", err)
	}
	line, err := c.rd.ReadString('\n')
	if err != nil {
		return 0, false, fmt.Errorf("register: %w", err)
	}
	line = strings.TrimSuffix(line, "\n")
	switch {
	case line == "NO":
		return 0, false, nil
	case strings.HasPrefix(line, "OK "):
		v, err := strconv.ParseInt(line[3:], 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("register: bad answer %.40q", line)
		}
		return v, true, nil
	}
	return 0, false, fmt.Errorf("register: %.60s", line)
}
