package explore

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"unsafe"
)

// The two breadth-first levels — the one being expanded and the one the
// merges build — are most of the explorer's memory after the fingerprint
// table: a level of a 4-client model holds millions of encodings of about
// 100 bytes, and with sleep sets a few 8-byte keys each. They are stored
// in fixed-size chunks rather than in slices that grow by doubling, so
// that a level never holds twice what it needs, never copies itself while
// growing, and frees its memory as it is consumed: once the search has
// expanded and merged a run of the level being expanded, the chunks
// wholly before the next state go back to a pool from which the level
// being built takes its new chunks. The two levels together then hold
// about as much as the larger of them, not their sum.

// chunkPool keeps the chunks of one element type that the levels gave
// back, for the levels to take again, and counts the capacity it made that
// the levels hold or that waits in the pool. Between levels the search
// gives what waits back to the garbage collector (trim): the level being
// expanded gives its chunks back as it goes, which is what the level being
// built needs, so the chunks of a large level do not stay held through the
// smaller ones after it, beside a fingerprint table that keeps growing.
type chunkPool[T any] struct {
	bits int // a chunk holds 1<<bits elements
	size int // bytes per element
	free [][]T
	made int // elements of capacity made, in the levels or free
}

func newChunkPool[T any](bits, size int) *chunkPool[T] {
	return &chunkPool[T]{bits: bits, size: size}
}

// get returns an empty chunk: a free one, or a new one, small if it is
// the first chunk of its sequence (grown by append up to the full size,
// so that a small search holds little) and full-sized otherwise.
func (p *chunkPool[T]) get(first bool) []T {
	if n := len(p.free); n > 0 {
		c := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		return c[:0]
	}
	capacity := 1 << p.bits
	if first {
		capacity = min(capacity, 64)
	}
	p.made += capacity
	return make([]T, 0, capacity)
}

func (p *chunkPool[T]) put(c []T) { p.free = append(p.free, c[:0]) }

// trim gives the free chunks back to the garbage collector.
func (p *chunkPool[T]) trim() {
	for i, c := range p.free {
		p.made -= cap(c)
		p.free[i] = nil
	}
	p.free = p.free[:0]
}

// grow makes room for one more element in the first chunk of a sequence,
// which starts small: doubling, up to the full size.
func (p *chunkPool[T]) grow(c []T) []T {
	old := cap(c)
	c = slices.Grow(c, max(min(2*old, 1<<p.bits)-len(c), 1))
	p.made += cap(c) - old
	return c
}

func (p *chunkPool[T]) bytes() int { return p.made * p.size }

// chunked is a sequence of elements stored in chunks of the pool's size:
// element i is in chunk i>>bits. Runs appended with appendRun never
// straddle two chunks. Chunks before a position can be released to the
// pool; their elements must not be read again.
type chunked[T any] struct {
	pool   *chunkPool[T]
	chunks [][]T // released and spilled chunks are nil
	n      int   // the position of the next element
	// file, once the sequence spilled, holds chunk c at byte offset
	// c<<bits*size; onDisk[c] is the length of chunk c there (0: not on
	// disk).
	file   *os.File
	onDisk []int
}

// spillBefore writes the chunks wholly before position i that are in
// memory and not yet on disk to the file (created in dir the first time)
// and gives them back to the pool.
func (s *chunked[T]) spillBefore(i int, dir, name string) error {
	for c := range min(i>>s.pool.bits, len(s.chunks)) {
		ch := s.chunks[c]
		if ch == nil {
			continue
		}
		for len(s.onDisk) <= c {
			s.onDisk = append(s.onDisk, 0)
		}
		if s.onDisk[c] == 0 && len(ch) > 0 {
			if s.file == nil {
				f, err := os.CreateTemp(dir, name+"-*")
				if err != nil {
					return fmt.Errorf("spill a breadth-first level: %w", err)
				}
				s.file = f
			}
			raw := unsafe.Slice((*byte)(unsafe.Pointer(&ch[0])), len(ch)*s.pool.size)
			if _, err := s.file.WriteAt(raw, int64(c)<<s.pool.bits*int64(s.pool.size)); err != nil {
				return fmt.Errorf("spill a breadth-first level: %w", err)
			}
			s.onDisk[c] = len(ch)
		}
		s.pool.put(ch)
		s.chunks[c] = nil
	}
	return nil
}

// load reads back from disk the spilled chunks that elements lo to hi-1
// are in.
func (s *chunked[T]) load(lo, hi int) error {
	if hi <= lo {
		return nil
	}
	for c := lo >> s.pool.bits; c <= (hi-1)>>s.pool.bits && c < len(s.onDisk); c++ {
		if s.chunks[c] != nil || s.onDisk[c] == 0 {
			continue
		}
		ch := s.pool.get(false)
		for cap(ch) < s.onDisk[c] {
			ch = s.pool.grow(ch)
		}
		ch = ch[:s.onDisk[c]]
		raw := unsafe.Slice((*byte)(unsafe.Pointer(&ch[0])), len(ch)*s.pool.size)
		if _, err := s.file.ReadAt(raw, int64(c)<<s.pool.bits*int64(s.pool.size)); err != nil {
			return fmt.Errorf("read back a spilled breadth-first level: %w", err)
		}
		s.chunks[c] = ch
	}
	return nil
}

// reserve makes sure the chunk that position n falls in exists and has
// room for k more elements, and returns it.
func (s *chunked[T]) reserve(k int) []T {
	c := s.n >> s.pool.bits
	for len(s.chunks) <= c {
		s.chunks = append(s.chunks, s.pool.get(len(s.chunks) == 0))
	}
	ch := s.chunks[c]
	if len(ch)+k > cap(ch) {
		ch = s.pool.grow(ch)
		s.chunks[c] = ch
	}
	return ch
}

func (s *chunked[T]) push(v T) {
	c := s.n >> s.pool.bits
	s.chunks[c] = append(s.reserve(1), v)
	s.n++
}

// appendRun appends vs in one chunk — the rest of the current chunk is
// left unused if they do not fit in it — and returns the position of
// their first element. A run longer than a chunk cannot be stored.
func (s *chunked[T]) appendRun(vs []T) (int, error) {
	size := 1 << s.pool.bits
	if len(vs) > size {
		return 0, errRunTooLong
	}
	if len(vs) == 0 {
		return s.n, nil
	}
	if s.n%size+len(vs) > size {
		s.n = (s.n>>s.pool.bits + 1) << s.pool.bits
	}
	start := s.n
	c := s.n >> s.pool.bits
	ch := s.reserve(0)
	ch = ch[:s.n%size]
	for len(ch)+len(vs) > cap(ch) {
		ch = s.pool.grow(ch)
	}
	s.chunks[c] = append(ch, vs...)
	s.n += len(vs)
	return start, nil
}

func (s *chunked[T]) at(i int) T { return s.chunks[i>>s.pool.bits][i&(1<<s.pool.bits-1)] }

func (s *chunked[T]) set(i int, v T) { s.chunks[i>>s.pool.bits][i&(1<<s.pool.bits-1)] = v }

// run is the elements from start to end, which appendRun stored in one
// chunk.
func (s *chunked[T]) run(start, end int) []T {
	if start == end {
		return nil
	}
	off := start & (1<<s.pool.bits - 1)
	return s.chunks[start>>s.pool.bits][off : off+end-start]
}

// releaseBefore gives the chunks that hold only elements before position
// i back to the pool.
func (s *chunked[T]) releaseBefore(i int) {
	for c := range min(i>>s.pool.bits, len(s.chunks)) {
		if s.chunks[c] != nil {
			s.pool.put(s.chunks[c])
			s.chunks[c] = nil
		}
	}
}

func (s *chunked[T]) releaseAll() { s.releaseBefore((len(s.chunks) + 1) << s.pool.bits) }

// reset releases every chunk and empties the sequence, on disk too.
func (s *chunked[T]) reset() error {
	s.releaseAll()
	s.chunks, s.n = s.chunks[:0], 0
	s.onDisk = s.onDisk[:0]
	if s.file != nil {
		if err := s.file.Truncate(0); err != nil {
			return fmt.Errorf("empty a spilled breadth-first level: %w", err)
		}
	}
	return nil
}

func (s *chunked[T]) close() {
	if s.file != nil {
		s.file.Close()
	}
}

// errRunTooLong: a state's encoding or sleep set does not fit in a chunk.
var errRunTooLong = errors.New("a state's encoding or sleep set exceeds a chunk of a breadth-first level")

// Chunk sizes: 256 KiB of encodings, 64 KiB of sleep-set offsets, 512 KiB
// of sleep keys or of the encodings' ends (64-bit: a level of a
// billion-state model holds more than 4 GiB of encodings). Larger chunks waste more at the end of a level and of the pool;
// smaller ones cost more slice headers. An encoding never straddles two
// chunks, so at most a chunk's worth of the longest encoding is left
// unused per chunk.
const (
	levelDataBits  = 18
	levelIndexBits = 14
	levelKeyBits   = 16
)

// levelPools are the pools the two levels of a search share.
type levelPools struct {
	data  *chunkPool[byte]
	index *chunkPool[uint32]
	keys  *chunkPool[uint64]
}

func newLevelPools() levelPools {
	return levelPools{
		data:  newChunkPool[byte](levelDataBits, 1),
		index: newChunkPool[uint32](levelIndexBits, 4),
		keys:  newChunkPool[uint64](levelKeyBits, 8),
	}
}

// bytes is the memory the levels hold, free chunks included.
func (p levelPools) bytes() int { return p.data.bytes() + p.index.bytes() + p.keys.bytes() }

// trim gives the free chunks back to the garbage collector.
func (p levelPools) trim() {
	p.data.trim()
	p.index.trim()
	p.keys.trim()
}

// level is one breadth-first level: the encodings of its states in
// chunks, where each ends (state i's starts where state i-1's ends, or at
// the start of its chunk if it did not fit in the previous one), and,
// with sleep sets, each state's sleep set.
type level struct {
	data  chunked[byte]
	ends  chunked[uint64]
	sleep sleepLevel
}

func newLevel(p levelPools) level {
	return level{
		data:  chunked[byte]{pool: p.data},
		ends:  chunked[uint64]{pool: p.keys},
		sleep: sleepLevel{keys: chunked[uint64]{pool: p.keys}, start: chunked[uint32]{pool: p.index}, size: chunked[uint32]{pool: p.index}},
	}
}

// add appends a state's encoding, and its sleep set if the search uses
// sleep sets.
func (l *level) add(enc []byte, sleep []uint64, sleepSets bool) error {
	start, err := l.data.appendRun(enc)
	if err != nil {
		return err
	}
	l.ends.push(uint64(start + len(enc)))
	if sleepSets {
		return l.sleep.add(sleep)
	}
	return nil
}

func (l *level) state(i int) []byte {
	end := int(l.ends.at(i))
	start := 0
	if i > 0 {
		start = int(l.ends.at(i - 1))
	}
	if end == start {
		return nil
	}
	// The encoding is in the chunk of its last byte.
	bits := l.data.pool.bits
	start = max(start, (end-1)>>bits<<bits)
	return l.data.run(start, end)
}

func (l *level) len() int { return l.ends.n }

// release gives back the chunks that only states before i use: the
// search has expanded them and will not read them again. The level keeps
// its length.
func (l *level) release(i int) {
	if i >= l.len() {
		l.data.releaseAll()
		l.ends.releaseAll()
		l.sleep.keys.releaseAll()
		l.sleep.start.releaseAll()
		l.sleep.size.releaseAll()
		return
	}
	if i > 0 {
		l.data.releaseBefore(int(l.ends.at(i - 1)))
		l.ends.releaseBefore(i - 1)
	}
	if l.sleep.start.n > i {
		l.sleep.keys.releaseBefore(int(l.sleep.start.at(i)))
		l.sleep.start.releaseBefore(i)
		l.sleep.size.releaseBefore(i)
	}
}

// reset empties the level; its chunks go back to the pool.
func (l *level) reset() error {
	l.sleep.keys.reset()
	l.sleep.start.reset()
	l.sleep.size.reset()
	return errors.Join(l.data.reset(), l.ends.reset())
}

// spill writes the encodings of the level and where they end, but for the
// chunks still being filled, to files in dir named after name, and gives
// their memory back to the pool. Sleep sets stay in memory: the merges
// change them in place.
func (l *level) spill(dir, name string) error {
	size := 1 << l.data.pool.bits
	if err := l.data.spillBefore(l.data.n/size*size, dir, name+".states"); err != nil {
		return err
	}
	size = 1 << l.ends.pool.bits
	return l.ends.spillBefore(l.ends.n/size*size, dir, name+".ends")
}

// load reads back the spilled parts of states lo to hi-1, before the
// workers read them.
func (l *level) load(lo, hi int) error {
	if hi <= lo {
		return nil
	}
	if err := l.ends.load(max(lo-1, 0), hi); err != nil {
		return err
	}
	start := 0
	if lo > 0 {
		start = int(l.ends.at(lo - 1))
	}
	return l.data.load(start, int(l.ends.at(hi-1)))
}

func (l *level) close() {
	l.data.close()
	l.ends.close()
}

// errLevelTooLarge guards the 32-bit offsets of a level's sleep sets (its
// encodings' offsets are 64-bit: a level of a billion-state model holds
// more than 4 GiB of them).
var errLevelTooLarge = errors.New("a breadth-first level holds more than 4 billion sleep-set keys")

// encodings is a flat run of encodings laid end to end, with where each
// ends: a worker's successors of one run of states, reused from chunk to
// chunk.
type encodings struct {
	data []byte
	ends []uint32
}

func (l *encodings) add(enc []byte) {
	l.data = append(l.data, enc...)
	l.ends = append(l.ends, uint32(len(l.data)))
}

func (l *encodings) state(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.data[start:l.ends[i]]
}

func (l *encodings) bytes() int { return cap(l.data) + 4*cap(l.ends) }

func (l *encodings) reset() { l.data, l.ends = l.data[:0], l.ends[:0] }
