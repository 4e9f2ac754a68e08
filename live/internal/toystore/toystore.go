// Package toystore is a fenced store in Go speaking the resource
// protocol (docs/store-protocol.md), for tests: the test binary becomes
// it when EnvVar names a behaviour (Command), and each behaviour but
// "good" breaks the protocol, or the fencing, one way.
package toystore

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
)

// EnvVar names the behaviour of the store the test binary becomes.
const EnvVar = "FENCELAB_TOY_STORE"

// The behaviours.
const (
	Good       = "good"        // impl.Resource of the hello's mode, logged as answered
	ExitAtOnce = "exit"        // exits with status 3 before its hello
	Garbage    = "garbage"     // answers the first read with a line that is not JSON
	WrongOp    = "wrong-op"    // answers a read as a write
	Silent     = "silent"      // never answers a read
	Huge       = "huge"        // answers a read with a line of 2 MiB
	Long       = "long"        // answers a read with a line of 5000 bytes
	Extra      = "extra"       // answers the first read twice
	LogMissing = "log-missing" // its log leaves the first operation out
	LogFlipped = "log-flipped" // its log flips the first decision
	LogOrder   = "log-order"   // its log swaps the first two operations
	RefuseAll  = "refuse-all"  // refuses every read and write
	AcceptAll  = "accept-all"  // fences nothing, whatever its hello said
	Failing    = "failing"     // answers every write with an error
	BadClose   = "bad-close"   // exits with status 1 after close
	BadHello   = "bad-hello"   // refuses its hello
	CloseLine  = "close-line"  // writes a line after close, then exits with status 0
	Linger     = "linger"      // does not exit after close
)

// Command is the shell command that runs the test binary as the store of
// behaviour.
func Command(behaviour string) string {
	return EnvVar + "=" + behaviour + " '" + strings.ReplaceAll(os.Args[0], "'", `'\''`) + "'"
}

// MaybeServe is a test package's TestMain's first call: when EnvVar is
// set the test binary is the store, on stdin and stdout, and exits.
func MaybeServe() {
	b := os.Getenv(EnvVar)
	if b == "" {
		return
	}
	if b == ExitAtOnce {
		os.Exit(3)
	}
	code := 0
	if err := Serve(b, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "toystore:", err)
		code = 1
	}
	os.Exit(code)
}

type request struct {
	Op     string `json:"op"`
	Mode   string `json:"mode"`
	Client int    `json:"client"`
	Token  uint64 `json:"token"`
	Value  int64  `json:"value"`
}

type logOp struct {
	Client   int    `json:"client"`
	Kind     string `json:"kind"`
	Token    uint64 `json:"token"`
	Value    int64  `json:"value"`
	Accepted bool   `json:"accepted"`
}

// Serve is the store of behaviour b until close or the end of input.
func Serve(b string, in io.Reader, out io.Writer) error {
	w := bufio.NewWriter(out)
	reply := func(v any) {
		line, _ := json.Marshal(v)
		w.Write(append(line, '\n'))
		w.Flush()
	}
	res := impl.NewResource(impl.FenceAll)
	var log []logOp
	reads := 0
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var req request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return err
		}
		switch req.Op {
		case "hello":
			if b == BadHello {
				reply(map[string]any{"op": "hello", "ok": false, "error": "no such mode here"})
				continue
			}
			mode, err := parseMode(req.Mode)
			if err != nil {
				return err
			}
			if b == AcceptAll {
				mode = impl.FenceNone
			}
			res = impl.NewResource(mode)
			reply(map[string]any{"op": "hello", "ok": true, "store": "toystore " + b})
		case "read", "write":
			if req.Op == "read" {
				reads++
				switch {
				case b == Garbage:
					fmt.Fprintln(w, "garbage{")
					w.Flush()
					continue
				case b == WrongOp:
					reply(map[string]any{"op": "write", "ok": true})
					continue
				case b == Silent:
					time.Sleep(time.Hour)
				case b == Huge:
					fmt.Fprintln(w, `{"op":"read","ok":true,"value":1,"pad":"`+strings.Repeat("x", 2<<20)+`"}`)
					w.Flush()
					continue
				case b == Long:
					fmt.Fprintln(w, `{"op":"read","ok":true,"value":1}`+strings.Repeat(" ", 5000))
					w.Flush()
					continue
				}
			}
			if b == Failing && req.Op == "write" {
				reply(map[string]any{"op": "write", "ok": false, "error": "disk full"})
				continue
			}
			m := impl.Message{Kind: impl.MsgRead, From: impl.ClientNode(req.Client), To: impl.ResourceNode, Token: req.Token}
			if req.Op == "write" {
				m.Kind, m.Value = impl.MsgWrite, req.Value
			}
			var eff impl.Effects
			res.Step(&impl.Input{Kind: impl.InputMessage, Msg: m}, &eff)
			op := res.Log()[len(res.Log())-1]
			if b == RefuseAll {
				op.Accepted = false
			}
			lo := logOp{Client: req.Client, Kind: req.Op, Token: req.Token, Value: req.Value, Accepted: op.Accepted}
			if req.Op == "read" {
				lo.Value = 0
				if op.Accepted {
					lo.Value = op.Value
				}
			}
			log = append(log, lo)
			switch {
			case !op.Accepted:
				reply(map[string]any{"op": req.Op, "ok": false, "refused": true})
			case req.Op == "read":
				reply(map[string]any{"op": "read", "ok": true, "value": lo.Value})
			default:
				reply(map[string]any{"op": "write", "ok": true})
			}
			if b == Extra && reads == 1 && req.Op == "read" {
				reply(map[string]any{"op": "read", "ok": true, "value": lo.Value})
			}
		case "log":
			ops := append([]logOp(nil), log...)
			switch {
			case b == LogMissing && len(ops) > 0:
				ops = ops[1:]
			case b == LogFlipped && len(ops) > 0:
				ops[0].Accepted = !ops[0].Accepted
			case b == LogOrder && len(ops) > 1:
				ops[0], ops[1] = ops[1], ops[0]
			}
			if ops == nil {
				ops = []logOp{}
			}
			reply(map[string]any{"op": "log", "ok": true, "ops": ops})
		case "close":
			switch b {
			case BadClose:
				os.Exit(1)
			case CloseLine:
				reply(map[string]any{"op": "log", "ok": true, "ops": []logOp{}})
			case Linger:
				time.Sleep(time.Hour)
			}
			return nil
		default:
			return fmt.Errorf("unknown op %q", req.Op)
		}
	}
	return sc.Err()
}

func parseMode(s string) (impl.FenceMode, error) {
	for m := impl.FenceNone; m <= impl.FenceSequencer; m++ {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q", s)
}
