package tlc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// ClassArchive keeps the classes TLC loads in a class-data sharing archive
// (the JVM's AppCDS, JDK 13 and later), so that each JVM maps them from
// the archive instead of reading, verifying and parsing them from the jar.
// A JVM that starts TLC spends most of a short run doing that: a 51-state
// model took 1.0-1.2 s of CPU and 0.75-0.77 s with the archive (2 cores,
// C1 alone, five runs each), and fencelab starts a JVM for every model,
// translation check and validated trace.
//
// The first TLC run of a process that finds no archive writes one as it
// exits (-XX:ArchiveClassesAtExit); later runs use it
// (-XX:SharedArchiveFile). The archive is named by the java and the jar it
// was made with, so another jar or another JDK gets its own. The JVM
// checks an archive before it uses it and, if it does not match, runs
// without it; its messages about archives are turned off (-Xlog), since
// they would be mixed into TLC's output. Where the JVM cannot write an
// archive (a JDK without its base archive refuses to start with
// -XX:ArchiveClassesAtExit), the run is repeated without, and this process
// stops trying. An archive only makes the JVM start faster: every result
// is the same without it.
//
// A ClassArchive is safe for concurrent use; the zero value with Dir ""
// does nothing.
type ClassArchive struct {
	// Dir is where archives are kept (the user cache); "" turns them off.
	Dir string

	mu      sync.Mutex
	dumping bool // a run is writing the archive
	failed  bool // writing one failed: do not try again
}

// quietArchiveLog turns off the JVM's messages about the archive (a
// mismatched archive is reported on stdout, inside TLC's output).
var quietArchiveLog = []string{"-Xlog:cds*=off", "-Xlog:class+path*=off"}

// vmInitFailed is what a JVM prints when it refuses to start, as one
// without a base archive does with -XX:ArchiveClassesAtExit.
const vmInitFailed = "Error occurred during initialization of VM"

// archiveRun is what one run does with the archive: its JVM flags, and
// where the archive it writes goes when it is done (tmp renamed to path).
type archiveRun struct {
	flags     []string
	tmp, path string
}

// begin returns the archive flags of one run of java with jar and class
// main: use the archive if it exists; else, for a TLC run while no other
// run writes one, write it.
func (a *ClassArchive) begin(java, jar, main string) archiveRun {
	if a == nil || a.Dir == "" {
		return archiveRun{}
	}
	path, err := a.path(java, jar)
	if err != nil {
		return archiveRun{}
	}
	// Under the lock: a run that wrote the archive renames it into place
	// under the lock, so no run starts writing a second one after it.
	a.mu.Lock()
	defer a.mu.Unlock()
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return archiveRun{flags: append([]string{"-XX:SharedArchiveFile=" + path}, quietArchiveLog...)}
	}
	// Only TLC's own runs load the classes a model check needs; the
	// translator's would make an archive of the translator.
	if a.dumping || a.failed || main != "tlc2.TLC" {
		return archiveRun{}
	}
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		a.failed = true
		return archiveRun{}
	}
	a.dumping = true
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	return archiveRun{flags: append([]string{"-XX:ArchiveClassesAtExit=" + tmp}, quietArchiveLog...), tmp: tmp, path: path}
}

// end finishes a run that wrote the archive: if the JVM exited by itself
// (exited), it moves the archive into place; if there is none, or the run
// was stopped (its archive may be half written), it gives up on archives
// for this process. It reports whether the run must be repeated without
// the archive flags (the JVM refused to start with them).
func (a *ClassArchive) end(run archiveRun, exited bool, out []byte) (retry bool) {
	if run.tmp == "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dumping = false
	if !exited || os.Rename(run.tmp, run.path) != nil {
		os.Remove(run.tmp)
		a.failed = true
	}
	return exited && strings.Contains(string(out), vmInitFailed)
}

// path names the archive of java and jar: a hash of their resolved paths,
// sizes and modification times, so that a changed jar or JDK is not
// handed an archive of another.
func (a *ClassArchive) path(java, jar string) (string, error) {
	javaPath, err := exec.LookPath(java)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, p := range []string{javaPath, jar} {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", err
		}
		if real, err = filepath.Abs(real); err != nil {
			return "", err
		}
		st, err := os.Stat(real)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", real, st.Size(), st.ModTime().UnixNano())
	}
	return filepath.Join(a.Dir, "tlc-classes-"+hex.EncodeToString(h.Sum(nil))[:16]+".jsa"), nil
}

// DefaultClassArchive keeps archives in CacheDir: $FENCELAB_CACHE when it
// is set, else fencelab in the user's cache folder, beside the cached
// jar; without either there is none.
func DefaultClassArchive() *ClassArchive {
	dir, err := CacheDir(os.Getenv)
	if err != nil {
		return nil
	}
	return &ClassArchive{Dir: dir}
}
