// Package jsonline is what the line protocols of fencelab-live share
// (docs/protocol.md, docs/store-protocol.md): a reply line read strictly,
// a line quoted for an error, and the head of a process's stderr kept.
package jsonline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
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
