package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxLine bounds one line of a saved history: a record is a few hundred
// bytes, a client's exit at most its kept stderr (4 KiB) escaped.
const maxLine = 64 << 10

// ReadJSONL reads a history WriteJSONL wrote: the header line first, then
// records, faults and exits in any order. It rejects what the judge could
// not read: an unknown kind, a second header or a missing one, and what
// Validate rejects.
func ReadJSONL(r io.Reader) (*History, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxLine)
	var h *History
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var head struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if h == nil && head.Kind != "run" {
			return nil, fmt.Errorf("line %d: a %.20q line before the run's header", n, head.Kind)
		}
		var err error
		switch head.Kind {
		case "run":
			if h != nil {
				return nil, fmt.Errorf("line %d: a second run header", n)
			}
			h = &History{}
			err = json.Unmarshal(line, h)
		case "op":
			var rec Record
			err = json.Unmarshal(line, &rec)
			h.Records = append(h.Records, rec)
		case "fault":
			var f FaultRecord
			err = json.Unmarshal(line, &f)
			h.Faults = append(h.Faults, f)
		case "exit":
			var e ClientExit
			err = json.Unmarshal(line, &e)
			h.Exits = append(h.Exits, e)
		default:
			err = fmt.Errorf("unknown kind %.20q", head.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, errors.New("no run header: empty")
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return h, nil
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
