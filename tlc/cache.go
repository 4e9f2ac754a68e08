package tlc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
)

// CacheEnv names the environment variable that sets fencelab's cache
// folder (CacheDir), as GOCACHE does Go's.
const CacheEnv = "FENCELAB_CACHE"

// CacheDir is the folder of fencelab's cached results: $FENCELAB_CACHE
// when it is set, else fencelab in the user's cache folder
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux), beside the
// verified jar (Resolver). TLC's results are under tlc/ (Cache), TLC's
// class archives in it (DefaultClassArchive), fencelab-live's clock shim
// under clockshim/ (live/nemesis). The variable moves the results,
// the class archives and the shim, everything fencelab writes as it runs;
// the verified jar stays in the user's cache folder, so a test that
// points the variable at a folder of its own still finds the jar.
func CacheDir(getenv func(string) string) (string, error) {
	if dir := getenv(CacheEnv); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", fmt.Errorf("%s must be an absolute path", CacheEnv)
		}
		return dir, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder (set %s): %w", CacheEnv, err)
	}
	return filepath.Join(dir, "fencelab"), nil
}

// Cache keeps TLC's results by content, as go test keeps test results: a
// run whose inputs are byte for byte those of an earlier run is not run
// again, its output and exit code are read back. The key (a SHA-256) is
// over everything the result depends on: the java executable's and the
// jar's bytes, the main class and its options (workers, -lncheck, the
// cfg's and the spec's names; the run folder never appears in them), and
// the name and bytes of every module the spec EXTENDS or INSTANCEs,
// transitively, and of the cfg. A module that is not in the run's folder
// is one of the jar's standard modules and counts by name (the jar's bytes
// cover it). Only those files are in the folder TLC runs in (Runner.Run),
// so a module the key missed is a module TLC cannot find: a parse error,
// which is never kept.
//
// The heap and the JVM's other flags are not in the key: they decide how
// fast TLC finds the result and whether it runs out of memory, not what
// the result is; and a run that ran out of memory (or time, or was
// stopped) is never kept. Only a finished run is kept: exit 0 (no error)
// or a violation (10-13), with TLC's closing "Finished in" line.
//
// An entry holds the output, the exit code, the run's wall time and a
// SHA-256 of all three; it is written whole or not at all
// (atomicfile), so two runs writing one key leave one whole entry. An
// entry that is truncated, corrupt, of another format or of another key
// is ignored, and the run happens: a damaged cache costs time, never a
// verdict.
type Cache struct {
	Dir string // the entries' folder (CacheDir/tlc)

	mu   sync.Mutex
	sums map[string]string // a tool's path, size and time → its bytes' SHA-256
}

// NewCache is the cache whose entries are in dir.
func NewCache(dir string) *Cache { return &Cache{Dir: dir} }

// DefaultCache is the cache under CacheDir.
func DefaultCache() (*Cache, error) {
	dir, err := CacheDir(os.Getenv)
	if err != nil {
		return nil, err
	}
	return NewCache(filepath.Join(dir, "tlc")), nil
}

// entryMagic starts every entry; a new format gets a new one.
const entryMagic = "fencelab-tlc-result v1\n"

// maxEntry bounds what is read of an entry: TLC's output (bounded by
// inputfile.MaxOutput) and the header.
const maxEntry = inputfile.MaxOutput + 4096

// Entry is a cached run: what TLC printed, its exit code, and how long
// the run that printed it took.
type Entry struct {
	Output []byte
	Code   int
	Wall   time.Duration
}

// Cacheable reports whether a run's result may be kept: TLC finished the
// search (its closing "Finished in" line) with no error or a violation.
// A parse or configuration error, an out-of-memory or another failure is
// not kept: some depend on the machine, and all are quick to repeat.
func Cacheable(output []byte, code int) bool {
	switch code {
	case 0, 10, 11, 12, 13:
	default:
		return false
	}
	return finishedAnyLine.Match(output)
}

// finishedAnyLine is TLC's closing line anywhere in an output.
var finishedAnyLine = regexp.MustCompile(`(?m)^Finished in .+ at \(`)

// toolSum is the SHA-256 of the file at path, read once per Cache while
// its size and modification time stay the same (a jar is read once per
// command, not once per model).
func (c *Cache) toolSum(path string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	memo := fmt.Sprintf("%s\x00%d\x00%d", path, fi.Size(), fi.ModTime().UnixNano())
	if s, ok := c.sums[memo]; ok {
		return s, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	s := hex.EncodeToString(h.Sum(nil))
	if c.sums == nil {
		c.sums = map[string]string{}
	}
	c.sums[memo] = s
	return s, nil
}

// Key is the key of running main with args on the files of dir that
// roots name (a spec and its cfg) and the modules they reach (Modules),
// with the tools java and jar.
func (c *Cache) Key(java, jar, dir, main string, args, roots []string) (string, error) {
	h := sha256.New()
	field := func(s string) { fmt.Fprintf(h, "%d:%s\n", len(s), s) }
	field(entryMagic)
	javaPath, err := exec.LookPath(java)
	if err == nil {
		javaPath, err = filepath.EvalSymlinks(javaPath)
	}
	if err != nil {
		return "", fmt.Errorf("the cache key: java: %w", err)
	}
	for _, tool := range []string{javaPath, jar} {
		sum, err := c.toolSum(tool)
		if err != nil {
			return "", fmt.Errorf("the cache key: %w", err)
		}
		field(sum)
	}
	field(main)
	field(strconv.Itoa(len(args)))
	for _, a := range args {
		field(a)
	}
	files, standard, err := Modules(dir, roots)
	if err != nil {
		return "", fmt.Errorf("the cache key: %w", err)
	}
	field(strconv.Itoa(len(files)))
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", fmt.Errorf("the cache key: %w", err)
		}
		field(name)
		sum := sha256.Sum256(data)
		field(hex.EncodeToString(sum[:]))
	}
	field(strconv.Itoa(len(standard)))
	for _, name := range standard {
		field(name)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// moduleRef finds the modules a TLA+ module names: EXTENDS A, B, C and
// INSTANCE M. Comments are not removed: a module named in one counts too,
// which can only add to the key.
var (
	extendsList  = regexp.MustCompile(`\bEXTENDS\s+([A-Za-z0-9_]+(?:\s*,\s*[A-Za-z0-9_]+)*)`)
	instanceName = regexp.MustCompile(`\bINSTANCE\s+([A-Za-z0-9_]+)`)
	listSep      = regexp.MustCompile(`\s*,\s*`)
)

// Modules lists the files of dir a run on roots reads: roots themselves
// (a spec, its cfg) and every module of dir they EXTEND or INSTANCE,
// transitively, sorted; and, sorted, the modules named that dir does not
// hold (the jar's standard modules, Naturals, TLC, …).
func Modules(dir string, roots []string) (files, standard []string, err error) {
	seen := map[string]bool{}
	var queue []string
	for _, r := range roots {
		if !seen[r] {
			seen[r] = true
			queue = append(queue, r)
		}
	}
	std := map[string]bool{}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		data, err := inputfile.Read(filepath.Join(dir, name), inputfile.MaxText)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, name)
		if filepath.Ext(name) != ".tla" {
			continue
		}
		var refs []string
		for _, m := range extendsList.FindAllSubmatch(data, -1) {
			refs = append(refs, listSep.Split(string(m[1]), -1)...)
		}
		for _, m := range instanceName.FindAllSubmatch(data, -1) {
			refs = append(refs, string(m[1]))
		}
		for _, ref := range refs {
			file := ref + ".tla"
			if seen[file] || std[ref] {
				continue
			}
			if ValidFileName(file, ".tla") != nil {
				std[ref] = true // no file of ours: TLC's to find
				continue
			}
			if fi, err := os.Lstat(filepath.Join(dir, file)); err != nil || !fi.Mode().IsRegular() {
				std[ref] = true
				continue
			}
			seen[file] = true
			queue = append(queue, file)
		}
	}
	slices.Sort(files)
	for name := range std {
		standard = append(standard, name)
	}
	slices.Sort(standard)
	return files, standard, nil
}

// path is the entry of key: two levels, as Go's cache.
func (c *Cache) path(key string) string {
	return filepath.Join(c.Dir, key[:2], key+"-r")
}

// Get reads key's entry. ok is false when there is none, or when it is
// not whole and sound (the run must happen). A TLC run's entry is also
// read only if it is Cacheable (Runner.cachedTLC).
func (c *Cache) Get(key string) (Entry, bool) {
	data, err := inputfile.Read(c.path(key), maxEntry)
	if err != nil {
		return Entry{}, false
	}
	return decodeEntry(key, data)
}

// Put keeps key's entry, whole or not at all.
func (c *Cache) Put(key string, e Entry) error {
	data := encodeEntry(key, e)
	dir := filepath.Dir(c.path(key))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("the TLC cache: %w", err)
	}
	return atomicfile.WriteFile(c.path(key), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// encodeEntry is entryMagic, a header line (key, exit code, wall time in
// nanoseconds, output length, SHA-256 of everything before it and of the
// output), then the output.
func encodeEntry(key string, e Entry) []byte {
	head := fmt.Sprintf("%s %d %d %d", key, e.Code, e.Wall.Nanoseconds(), len(e.Output))
	sum := entrySum(head, e.Output)
	var b bytes.Buffer
	b.WriteString(entryMagic)
	b.WriteString(head + " " + sum + "\n")
	b.Write(e.Output)
	return b.Bytes()
}

func entrySum(head string, output []byte) string {
	h := sha256.New()
	io.WriteString(h, entryMagic)
	io.WriteString(h, head)
	h.Write([]byte{0})
	h.Write(output)
	return hex.EncodeToString(h.Sum(nil))
}

// errEntry is a damaged entry's reason (for tests).
var errEntry = errors.New("damaged cache entry")

func decodeEntry(key string, data []byte) (Entry, bool) {
	e, err := parseEntry(key, data)
	return e, err == nil
}

func parseEntry(key string, data []byte) (Entry, error) {
	rest, ok := bytes.CutPrefix(data, []byte(entryMagic))
	if !ok {
		return Entry{}, fmt.Errorf("%w: no header", errEntry)
	}
	line, output, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return Entry{}, fmt.Errorf("%w: header cut short", errEntry)
	}
	f := strings.Fields(string(line))
	if len(f) != 5 || f[0] != key {
		return Entry{}, fmt.Errorf("%w: header of another key or format", errEntry)
	}
	code, err1 := strconv.Atoi(f[1])
	wall, err2 := strconv.ParseInt(f[2], 10, 64)
	n, err3 := strconv.Atoi(f[3])
	if err := errors.Join(err1, err2, err3); err != nil || n != len(output) || wall < 0 {
		return Entry{}, fmt.Errorf("%w: output of another length (cut short?)", errEntry)
	}
	head := strings.Join(f[:4], " ")
	if entrySum(head, output) != f[4] {
		return Entry{}, fmt.Errorf("%w: checksum differs", errEntry)
	}
	return Entry{Output: output, Code: code, Wall: time.Duration(wall)}, nil
}
