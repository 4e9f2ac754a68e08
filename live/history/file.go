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
	enc := json.NewEncoder(w)
	if err := enc.Encode(header{
		Kind: "run", Version: Version, Start: h.Start, End: h.End, Clients: h.Clients, Unchecked: h.Unchecked,
		Service: f.Service, Design: f.Design, TTL: int64(f.TTL), Fence: f.Fence,
	}); err != nil {
		return err
	}
	for _, r := range h.Records {
		if err := enc.Encode(struct {
			Kind string `json:"kind"`
			Record
		}{"op", r}); err != nil {
			return err
		}
	}
	for _, fr := range h.Faults {
		if err := enc.Encode(struct {
			Kind string `json:"kind"`
			FaultRecord
		}{"fault", fr}); err != nil {
			return err
		}
	}
	for _, e := range h.Exits {
		if err := enc.Encode(struct {
			Kind string `json:"kind"`
			ClientExit
		}{"exit", e}); err != nil {
			return err
		}
	}
	for _, a := range f.Resource {
		if err := enc.Encode(struct {
			Kind string `json:"kind"`
			Access
		}{"resource", a}); err != nil {
			return err
		}
	}
	return nil
}
