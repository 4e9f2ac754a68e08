package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// maxLine bounds one line of a saved history: a record is a few hundred
// bytes, a client's exit at most its kept stderr (4 KiB) escaped.
const maxLine = 64 << 10

// Bounds of a history file's header: what a hostile file could otherwise
// make the judge allocate or wait for.
const (
	maxClients = 1000
	maxTTL     = time.Hour
	// maxRecords bounds the op lines (and the resource's): the judge
	// compares beliefs pairwise and draws every step, in seconds for this
	// many; a live run records hundreds.
	maxRecords = 100_000
	// maxFaults bounds the fault lines, each held against every belief.
	maxFaults = 1000
)

// ReadJSONL reads a history WriteJSONL wrote: ReadFile's history alone.
func ReadJSONL(r io.Reader) (*History, error) {
	f, err := ReadFile(r)
	if err != nil {
		return nil, err
	}
	return &f.History, nil
}

// ReadFile reads a history file (docs/history.md): the header line
// first, then records, faults, exits and the resource's log in any
// order. Every error names the line it is about ("line N: ..."): an
// unknown kind or field, a second header or a missing one, a version
// this reader does not know, what Record.Validate rejects, a return
// without its call, a call while the client's previous one is pending,
// a client's time that goes back, a record outside the run's span.
func ReadFile(r io.Reader) (*File, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxLine)
	var (
		f     *File
		order = &clientOrder{}
		n     int
	)
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := f.readLine(line, order); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if f == nil {
			var err error
			if f, err = readHeader(line); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", n+1, maxLine)
		}
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	if f == nil {
		return nil, fmt.Errorf("line %d: no run header (an empty history)", n+1)
	}
	return f, nil
}

// required are the fields each kind of line must have (the schema's
// "required", docs/history.schema.json): a zero a file left out is not
// a zero it says.
func required() map[string][]string {
	return map[string][]string{
		"run":      {"kind", "start", "end", "clients"},
		"op":       {"kind", "client", "op", "ev", "wall"},
		"fault":    {"kind", "fault", "start", "end"},
		"exit":     {"kind", "client"},
		"resource": {"kind", "client", "op", "accepted"},
	}
}

// kindOf is the "kind" of a line, one JSON object, after checking it has
// the fields its kind requires.
func kindOf(line []byte) (string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return "", err
	}
	var kind string
	if err := json.Unmarshal(fields["kind"], &kind); err != nil {
		return "", fmt.Errorf("no \"kind\" string: %w", err)
	}
	for _, name := range required()[kind] {
		if _, ok := fields[name]; !ok {
			return "", fmt.Errorf("a %.20q line without its %q", kind, name)
		}
	}
	return kind, nil
}

// strict decodes one line (one JSON value: kindOf checked) into v,
// refusing a field v lacks: a misspelt field is an error, not a zero.
func strict(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// readHeader reads the header line (kind "run") and checks it.
func readHeader(line []byte) (*File, error) {
	var h header
	if err := strict(line, &h); err != nil {
		return nil, err
	}
	switch {
	case h.Version < 0 || h.Version > Version:
		return nil, fmt.Errorf("version %d (this reader reads versions up to %d)", h.Version, Version)
	case h.Clients < 1 || h.Clients > maxClients:
		return nil, fmt.Errorf("a run of %d clients (want 1 to %d)", h.Clients, maxClients)
	case h.End < h.Start:
		return nil, fmt.Errorf("a run of %d clients from %d to %d: it ends before it starts", h.Clients, h.Start, h.End)
	case h.TTL < 0 || time.Duration(h.TTL) > maxTTL:
		return nil, fmt.Errorf("ttl_ns %d (want 0 to %d)", h.TTL, int64(maxTTL))
	}
	return &File{
		Version: h.Version, Service: h.Service, Design: h.Design, TTL: time.Duration(h.TTL), Fence: h.Fence,
		History: History{Start: h.Start, End: h.End, Clients: h.Clients, Unchecked: h.Unchecked},
	}, nil
}

// readLine reads one line after the header into f (nil: the line must be
// the header, which ReadFile reads).
func (f *File) readLine(line []byte, order *clientOrder) error {
	kind, err := kindOf(line)
	if err != nil {
		return err
	}
	if f == nil {
		if kind != "run" {
			return fmt.Errorf("a %.20q line before the run's header", kind)
		}
		return nil
	}
	h := &f.History
	switch kind {
	case "run":
		return errors.New("a second run header")
	case "op":
		var l struct {
			Kind string `json:"kind"`
			Record
		}
		if err := strict(line, &l); err != nil {
			return err
		}
		if err := l.Record.Validate(h.Clients); err != nil {
			return err
		}
		if l.Wall < h.Start || l.Wall > h.End {
			return fmt.Errorf("%s's %s %s at %d is outside the run (%d to %d)", ClientName(l.Client), l.Op, l.Ev, l.Wall, h.Start, h.End)
		}
		if err := order.add(l.Record); err != nil {
			return err
		}
		if len(h.Records) == maxRecords {
			return fmt.Errorf("more than %d op lines (the judge's bound)", maxRecords)
		}
		h.Records = append(h.Records, l.Record)
	case "fault":
		var l struct {
			Kind string `json:"kind"`
			FaultRecord
		}
		if err := strict(line, &l); err != nil {
			return err
		}
		if l.Fault == "" || l.End < l.Start {
			return fmt.Errorf("a fault %.20q from %d to %d", l.Fault, l.Start, l.End)
		}
		if len(h.Faults) == maxFaults {
			return fmt.Errorf("more than %d fault lines", maxFaults)
		}
		h.Faults = append(h.Faults, l.FaultRecord)
	case "exit":
		var l struct {
			Kind string `json:"kind"`
			ClientExit
		}
		if err := strict(line, &l); err != nil {
			return err
		}
		if l.Client < 0 || l.Client >= h.Clients {
			return fmt.Errorf("exit of client %d out of range", l.Client)
		}
		if len(h.Exits) == maxClients {
			return fmt.Errorf("more than %d exit lines", maxClients)
		}
		h.Exits = append(h.Exits, l.ClientExit)
	case "resource":
		var l struct {
			Kind string `json:"kind"`
			Access
		}
		if err := strict(line, &l); err != nil {
			return err
		}
		if l.Op != OpRead && l.Op != OpWrite {
			return fmt.Errorf("unknown resource operation %.20q (want read or write)", l.Op)
		}
		if l.Client < 0 || l.Client >= h.Clients {
			return fmt.Errorf("client %d out of range", l.Client)
		}
		if f.Resource == nil {
			f.Resource = []Access{}
		}
		if len(f.Resource) == maxRecords {
			return fmt.Errorf("more than %d resource lines", maxRecords)
		}
		f.Resource = append(f.Resource, l.Access)
	default:
		return fmt.Errorf("unknown kind %.20q (want run, op, fault, exit or resource)", kind)
	}
	return nil
}

// clientOrder checks each client's records as a client makes them: one
// operation at a time, each return after its call, time never going back.
type clientOrder struct {
	pending map[int]Record // a client's call without its return yet
	last    map[int]int64  // a client's last record's time
}

func (o *clientOrder) add(r Record) error {
	if o.pending == nil {
		o.pending, o.last = map[int]Record{}, map[int]int64{}
	}
	c := ClientName(r.Client)
	if last, ok := o.last[r.Client]; ok && r.Wall < last {
		return fmt.Errorf("%s's %s %s at %d is before its previous record (%d): a client's records go forward in time", c, r.Op, r.Ev, r.Wall, last)
	}
	o.last[r.Client] = r.Wall
	p, calling := o.pending[r.Client]
	switch {
	case r.Ev == Call && calling:
		return fmt.Errorf("%s calls %s while its %s is pending: a client makes one call at a time", c, r.Op, p.Op)
	case r.Ev == Call:
		o.pending[r.Client] = r
	case r.Op == OpExpire && calling:
		return fmt.Errorf("%s's expire while its %s is pending", c, p.Op)
	case r.Op == OpExpire:
	case !calling || p.Op != r.Op:
		return fmt.Errorf("%s's %s return without its call", c, r.Op)
	default:
		delete(o.pending, r.Client)
	}
	return nil
}

// Validate checks a history read back from a file for what the judge
// relies on: a run of at least one client that ends after it starts,
// records the judge knows (Record.Validate) and exits of its clients.
func (h *History) Validate() error {
	if h.Clients < 1 || h.End < h.Start {
		return fmt.Errorf("a run of %d clients from %d to %d", h.Clients, h.Start, h.End)
	}
	for i, r := range h.Records {
		if err := r.Validate(h.Clients); err != nil {
			return fmt.Errorf("record %d: %w", i+1, err)
		}
	}
	for i, e := range h.Exits {
		if e.Client < 0 || e.Client >= h.Clients {
			return fmt.Errorf("exit %d: client %d out of range", i+1, e.Client)
		}
	}
	return nil
}
