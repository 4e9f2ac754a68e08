package explore

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// fingerprint is the 64-bit hash of a canonical state encoding. 0 marks an
// empty slot of the table, so a state hashing to 0 is stored as 1: that
// merges two fingerprints out of 2^64, no worse than any other collision.
//
// Like TLC, the explorer trusts fingerprints: two distinct states with the
// same fingerprint would be taken for one, and the second's successors
// might go unexplored. With n states the chance of any collision is about
// n²/2⁶⁵: about 4·10⁻⁸ for the 1.1 million states of the largest model
// the tests and 'make explore' run, 3·10⁻⁵ for the 34 million of a
// 4-client run without symmetry's reduction.
func fingerprint(b []byte) uint64 {
	if fp := xxhash.Sum64(b); fp != 0 {
		return fp
	}
	return 1
}

// tableShards is the number of independent parts of the seen-set; a
// fingerprint's top bits choose its part.
const (
	tableShardBits = 8
	tableShards    = 1 << tableShardBits
	minShardSlots  = 1 << 6
)

// fpTable is the set of seen states: fingerprints only, 8 bytes a slot,
// in tableShards open-addressing tables with linear probing, each one flat
// pointer-free slice, and, once those reach their memory budget, a sorted
// file of fingerprints on disk — TLC's DiskFPSet.
//
// The shards grow one at a time, each by a quarter on its own when four
// fifths full, so growing never holds more than one shard's old slots
// beside the new ones: the peak while resizing is 1/256 above the table,
// not twice it. A fingerprint in memory costs 8 bytes divided by the load
// factor (between 0.64 and 0.8): 10 to 12.5 bytes. (Doubling, the load
// would fall to 0.4 after each growth, and a run that ends there would
// pay 20 bytes a state.) A shard has any number of slots: a fingerprint's
// home slot is the bits below the shard's scaled to the shard's length
// (home), so the slots are in fingerprint order up to the probing, and
// regrowing reads and writes them nearly in sequence.
//
// With a budget, a shard stops growing at maxSlots; once one of them is
// three quarters full, flush merges every fingerprint in memory into the
// file on disk, which stays sorted, and empties the shards (keeping their
// slots). A fingerprint on disk costs 8 bytes there and 1/64 byte in
// memory: the index holds the first fingerprint of each block of
// fpBlock fingerprints, so a lookup that misses in memory reads one block.
// Because the shards are by the fingerprint's top bits, the sorted shards
// laid end to end are the sorted memory part: flush sorts each shard in
// place and needs no second copy.
//
// Parent links are not here: the search writes them to its trace file
// (see links).
//
// Each shard is changed by one goroutine at a time: the search's merge
// inserts a level's fingerprints with one goroutine per set of shards
// (insertLevel), so nothing here is shared between shards. Lookups
// (contains, onDisk) run in the workers while nobody inserts or flushes.
type fpTable struct {
	shards [tableShards]fpShard
	// maxSlots bounds a shard's slots (0: no bound).
	maxSlots int
	// dir is the folder of the disk file; disk is nil until the first
	// flush.
	dir  string
	disk *fpDisk
	// flushes counts the flushes, for the file names and the tests.
	flushes int
}

type fpShard struct {
	slots []uint64
	count int
}

// home is fp's first slot in s: the fingerprint's bits below the shard's
// (which are the same for the whole shard), as a fraction of its length.
func (s *fpShard) home(fp uint64) int {
	hi, _ := bits.Mul64(fp<<tableShardBits, uint64(len(s.slots)))
	return int(hi)
}

// next is the slot probed after slot i: linear probing, wrapping around.
func (s *fpShard) next(i int) int {
	if i++; i == len(s.slots) {
		return 0
	}
	return i
}

// fpBlock is how many fingerprints a block of the disk file holds: a 4 KiB
// read per lookup on disk.
const fpBlock = 512

// fpDisk is the part of the table on disk: n fingerprints, sorted,
// big-endian, and the first of each block.
type fpDisk struct {
	f     *os.File
	n     int
	index []uint64
}

// newFPTable makes an empty table; with budget > 0 it keeps at most about
// budget bytes in memory and the rest in a file in dir.
func newFPTable(budget int, dir string) *fpTable {
	t := &fpTable{dir: dir}
	if budget > 0 {
		t.maxSlots = minShardSlots
		for tableShards*8*2*t.maxSlots <= budget {
			t.maxSlots *= 2
		}
	}
	for i := range t.shards {
		t.shards[i] = fpShard{slots: make([]uint64, minShardSlots)}
	}
	return t
}

func (t *fpTable) shard(fp uint64) *fpShard { return &t.shards[fp>>(64-tableShardBits)] }

// insert adds fp to the memory part and reports whether it was not there.
// The caller knows that fp is not on disk.
func (t *fpTable) insert(fp uint64) bool {
	s := t.shard(fp)
	for i := s.home(fp); ; i = s.next(i) {
		switch s.slots[i] {
		case fp:
			return false
		case 0:
			s.slots[i] = fp
			s.count++
			// At its budget a shard waits for the flush up to 7/8 full,
			// past which probing gets slow: then it grows anyway.
			switch {
			case s.count*5 > len(s.slots)*4 && (t.maxSlots == 0 || len(s.slots) < t.maxSlots):
				s.grow(t.maxSlots)
			case s.count*8 > len(s.slots)*7:
				s.grow(0)
			}
			return true
		}
	}
}

// contains reports whether fp is in the memory part of the table. It only
// reads, so any number of goroutines may call it while nobody inserts.
func (t *fpTable) contains(fp uint64) bool {
	s := t.shard(fp)
	for i := s.home(fp); ; i = s.next(i) {
		switch s.slots[i] {
		case fp:
			return true
		case 0:
			return false
		}
	}
}

// seen reports whether fp is in the table, in memory or on disk; block is
// the caller's scratch for a block of the disk file (fpBlock*8 bytes), so
// that several goroutines may call it while nobody inserts or flushes.
func (t *fpTable) seen(fp uint64, block []byte) (bool, error) {
	if t.contains(fp) {
		return true, nil
	}
	return t.onDisk(fp, block)
}

// onDisk looks fp up in the disk file: the index names the one block it
// can be in.
func (t *fpTable) onDisk(fp uint64, block []byte) (bool, error) {
	d := t.disk
	if d == nil || d.n == 0 || fp < d.index[0] {
		return false, nil
	}
	b, _ := slices.BinarySearch(d.index, fp)
	if b == len(d.index) || d.index[b] != fp {
		b-- // the last block that starts below fp
	} else {
		return true, nil
	}
	k := min(fpBlock, d.n-b*fpBlock)
	buf := block[:8*k]
	if _, err := d.f.ReadAt(buf, int64(b)*fpBlock*8); err != nil {
		return false, fmt.Errorf("read the fingerprints on disk: %w", err)
	}
	lo, hi := 0, k
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		v := binary.BigEndian.Uint64(buf[8*m:])
		switch {
		case v == fp:
			return true, nil
		case v < fp:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false, nil
}

// full reports whether the memory part reached its budget: a shard at
// maxSlots is three quarters full.
func (t *fpTable) full() bool {
	if t.maxSlots == 0 {
		return false
	}
	for i := range t.shards {
		if s := &t.shards[i]; len(s.slots) >= t.maxSlots && s.count*4 > len(s.slots)*3 {
			return true
		}
	}
	return false
}

// flush moves every fingerprint in memory to the disk file: each shard's
// fingerprints sorted in place, merged with the file into a new one, the
// old one removed, the shards emptied.
func (t *fpTable) flush() (err error) {
	for i := range t.shards {
		s := &t.shards[i]
		k := 0
		for _, fp := range s.slots {
			if fp != 0 {
				s.slots[k] = fp
				k++
			}
		}
		slices.Sort(s.slots[:k])
	}
	t.flushes++
	f, err := os.Create(filepath.Join(t.dir, fmt.Sprintf("fingerprints.%d", t.flushes)))
	if err != nil {
		return fmt.Errorf("flush the fingerprints to disk: %w", err)
	}
	next := &fpDisk{f: f}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	var word [8]byte
	put := func(fp uint64) error {
		if next.n%fpBlock == 0 {
			next.index = append(next.index, fp)
		}
		next.n++
		binary.BigEndian.PutUint64(word[:], fp)
		_, err := w.Write(word[:])
		return err
	}
	var old *bufio.Reader
	oldLeft := 0
	if t.disk != nil {
		old = bufio.NewReaderSize(io.NewSectionReader(t.disk.f, 0, int64(t.disk.n)*8), 1<<20)
		oldLeft = t.disk.n
	}
	readOld := func() (uint64, error) {
		if _, err := io.ReadFull(old, word[:]); err != nil {
			return 0, fmt.Errorf("read the fingerprints on disk: %w", err)
		}
		oldLeft--
		return binary.BigEndian.Uint64(word[:]), nil
	}
	var head uint64
	haveHead := false
	for i := range t.shards {
		s := &t.shards[i]
		for _, fp := range s.slots[:s.count] {
			for {
				if !haveHead && oldLeft > 0 {
					if head, err = readOld(); err != nil {
						return err
					}
					haveHead = true
				}
				if !haveHead || head > fp {
					break
				}
				if head == fp {
					return fmt.Errorf("fingerprint %016x both in memory and on disk", fp)
				}
				if err := put(head); err != nil {
					return fmt.Errorf("flush the fingerprints to disk: %w", err)
				}
				haveHead = false
			}
			if err := put(fp); err != nil {
				return fmt.Errorf("flush the fingerprints to disk: %w", err)
			}
		}
	}
	for haveHead || oldLeft > 0 {
		if !haveHead {
			if head, err = readOld(); err != nil {
				return err
			}
		}
		haveHead = false
		if err := put(head); err != nil {
			return fmt.Errorf("flush the fingerprints to disk: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("flush the fingerprints to disk: %w", err)
	}
	if t.disk != nil {
		t.disk.f.Close()
		if err := os.Remove(t.disk.f.Name()); err != nil {
			return fmt.Errorf("remove the old fingerprint file: %w", err)
		}
	}
	t.disk = next
	for i := range t.shards {
		s := &t.shards[i]
		clear(s.slots)
		s.count = 0
	}
	return nil
}

// close closes the disk file; the search's folder, with the file, is
// removed by the search.
func (t *fpTable) close() {
	if t.disk != nil {
		t.disk.f.Close()
	}
}

// grow makes s a quarter larger, up to bound slots if bound > 0.
func (s *fpShard) grow(bound int) {
	old := s.slots
	n := len(old) + len(old)/4
	if bound > 0 {
		n = min(n, bound)
	}
	s.slots = make([]uint64, n)
	for _, fp := range old {
		if fp == 0 {
			continue
		}
		i := s.home(fp)
		for s.slots[i] != 0 {
			i = s.next(i)
		}
		s.slots[i] = fp
	}
}

// bytes is the memory the table holds: the shards and the disk index.
func (t *fpTable) bytes() int {
	n := 0
	for i := range t.shards {
		n += len(t.shards[i].slots)
	}
	if t.disk != nil {
		n += cap(t.disk.index)
	}
	return n * 8
}

// diskBytes is the size of the disk file.
func (t *fpTable) diskBytes() int {
	if t.disk == nil {
		return 0
	}
	return 8 * t.disk.n
}

// links is the trace file, as TLC keeps one: for every distinct state by
// its index in breadth-first order (the initial state is 0), the index of
// the state it was first reached from and the action taken there, 5 bytes
// a state on disk and none in memory but a write buffer. Rebuilding a
// path reads one record per step.
//
// Following parents from a state leads back to the initial state along a
// shortest path, because breadth-first search reaches every state first
// from a state of the level before.
type links struct {
	f *os.File
	w *bufio.Writer
	n int
}

// linkRecord is the bytes of a record: the parent's index, little-endian,
// and the action.
const linkRecord = 5

// maxActions bounds the actions of one state that links can record.
const maxActions = 1 << 8

// newLinks creates the trace file in dir.
func newLinks(dir string) (*links, error) {
	f, err := os.Create(filepath.Join(dir, "trace"))
	if err != nil {
		return nil, fmt.Errorf("create the trace file: %w", err)
	}
	return &links{f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

func (l *links) add(parent uint32, action int) error {
	var rec [linkRecord]byte
	binary.LittleEndian.PutUint32(rec[:], parent)
	rec[4] = uint8(action)
	l.n++
	if _, err := l.w.Write(rec[:]); err != nil {
		return fmt.Errorf("write the trace file: %w", err)
	}
	return nil
}

func (l *links) get(i int) (parent uint32, action int, err error) {
	if err := l.w.Flush(); err != nil {
		return 0, 0, fmt.Errorf("write the trace file: %w", err)
	}
	var rec [linkRecord]byte
	if _, err := l.f.ReadAt(rec[:], int64(i)*linkRecord); err != nil {
		return 0, 0, fmt.Errorf("read the trace file: %w", err)
	}
	return binary.LittleEndian.Uint32(rec[:]), int(rec[4]), nil
}

// bytes is the size of the trace file.
func (l *links) bytes() int { return l.n * linkRecord }

func (l *links) close() { l.f.Close() }

// levelIndex finds a state of the level being built by its fingerprint:
// with sleep sets, a state reached again in the same level gets the
// intersection of the sleep sets it was reached with, so the merge must
// find its position in the level. Like fpTable it is sharded by the
// fingerprint's top bits, so that it grows a shard at a time; a slot is a
// fingerprint and a position, 12 bytes, at a load factor of 3/8 to 3/4.
// It is emptied, not freed, from level to level.
type levelIndex struct {
	shards [tableShards]levelShard
}

type levelShard struct {
	fps   []uint64
	pos   []uint32
	mask  uint64
	count int
}

// insert records the position of fp, which must not be there yet.
func (t *levelIndex) insert(fp uint64, pos uint32) {
	s := &t.shards[fp>>(64-tableShardBits)]
	if s.fps == nil {
		s.fps, s.pos, s.mask = make([]uint64, minShardSlots), make([]uint32, minShardSlots), minShardSlots-1
	}
	s.put(fp, pos)
	s.count++
	if s.count*4 > len(s.fps)*3 {
		oldFPs, oldPos := s.fps, s.pos
		s.fps, s.pos = make([]uint64, 2*len(oldFPs)), make([]uint32, 2*len(oldFPs))
		s.mask = uint64(len(s.fps) - 1)
		for i, fp := range oldFPs {
			if fp != 0 {
				s.put(fp, oldPos[i])
			}
		}
	}
}

func (s *levelShard) put(fp uint64, pos uint32) {
	i := fp & s.mask
	for s.fps[i] != 0 {
		i = (i + 1) & s.mask
	}
	s.fps[i], s.pos[i] = fp, pos
}

// get returns the position of fp, if it is in the level.
func (t *levelIndex) get(fp uint64) (uint32, bool) {
	s := &t.shards[fp>>(64-tableShardBits)]
	if s.fps == nil {
		return 0, false
	}
	for i := fp & s.mask; ; i = (i + 1) & s.mask {
		switch s.fps[i] {
		case fp:
			return s.pos[i], true
		case 0:
			return 0, false
		}
	}
}

// reset empties the index for the next level, keeping the slots of a
// shard the last level filled to more than an eighth: a shard sized for a
// large level is given back to the garbage collector, not held through
// the smaller levels after it.
func (t *levelIndex) reset() {
	for i := range t.shards {
		switch s := &t.shards[i]; {
		case s.count*8 < len(s.fps):
			*s = levelShard{}
		case s.count > 0:
			clear(s.fps)
			s.count = 0
		}
	}
}

func (t *levelIndex) bytes() int {
	n := 0
	for i := range t.shards {
		n += len(t.shards[i].fps)
	}
	return 12 * n
}
