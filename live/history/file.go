package history

import (
	"encoding/json"
	"io"
	"time"
)

// Version is the history format's version (docs/history.md,
// docs/history.schema.json): the header's "version". A header without one
// is a file written before the format had versions, read as version 1.
const Version = 1

// File is a history file: a run's history with what judging it needs
// besides the records — the design row, the lease, the resource's fencing
// and, when the resource reported it, its log in the order it decided.
// The live harness writes its runs' history.jsonl as one; any other
// source (a user's harness, production logs) writes the same lines.
type File struct {
	// Version is the header's (0 when it had none); WriteJSONL writes
	// Version.
	Version int
	// Service and Design are what the history is of, when known: the lock
	// service and the design row (impl.Designs' names).
	Service, Design string
	// TTL is the lease the clients asked for: the end of a grant's
	// validity when its acquire's return records none (0: unknown).
	TTL time.Duration
	// Fence is the resource's fencing mode (impl.FenceMode's name: none,
	// writes, all, ...); "" for the design row's.
	Fence   string
	History History
	// Resource is the resource's log in the order it decided each
	// operation; nil when the history has none (the judge then rebuilds
	// it from the operations' returns, where their order allows).
	Resource []Access
}

// Access is one operation in the resource's log: a read or a write of a
// client with its token, as the resource decided it.
type Access struct {
	Client   int    `json:"client"` // 0-based: c1 is 0
	Op       string `json:"op"`     // read or write
	Accepted bool   `json:"accepted"`
	Token    uint64 `json:"token,omitempty"`
	Value    int64  `json:"value"` // the value written, or the one read
}

// header is a history file's first line.
type header struct {
	Kind      string `json:"kind"`
	Version   int    `json:"version,omitempty"`
	Start     int64  `json:"start"`
	End       int64  `json:"end"`
	Clients   int    `json:"clients"`
	Unchecked bool   `json:"unchecked,omitempty"`
	Service   string `json:"service,omitempty"`
	Design    string `json:"design,omitempty"`
	TTL       int64  `json:"ttl_ns,omitempty"`
	Fence     string `json:"fence,omitempty"`
}

// WriteJSONL writes the file as JSON lines: the header, each record, each
// fault, each client exit, then the resource's log; every line an object
// with a "kind".
func (f *File) WriteJSONL(w io.Writer) error {
	h := &f.History
	if err := json.NewEncoder(w).Encode(header{
		Kind: "run", Version: Version, Start: h.Start, End: h.End, Clients: h.Clients, Unchecked: h.Unchecked,
		Service: f.Service, Design: f.Design, TTL: int64(f.TTL), Fence: f.Fence,
	}); err != nil {
		return err
	}
	for _, write := range []func() error{
		func() error { return writeLines(w, "op", h.Records) },
		func() error { return writeLines(w, "fault", h.Faults) },
		func() error { return writeLines(w, "exit", h.Exits) },
		func() error { return writeLines(w, "resource", f.Resource) },
	} {
		if err := write(); err != nil {
			return err
		}
	}
	return nil
}

// writeLines writes each of vs as one line, an object whose first field
// is "kind": kind.
func writeLines[T any](w io.Writer, kind string, vs []T) error {
	for _, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		line := []byte(`{"kind":"` + kind + `"`)
		if len(b) > 2 { // b is an object: {...}
			line = append(line, ',')
		}
		line = append(append(line, b[1:]...), '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}
