package tlc

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
)

// Pin is the TLA+ tools release fencelab checks its specs with, as
// tla2tools.version records it.
type Pin struct {
	Version string
	URL     string
	SHA256  string
}

// ReadPin reads a tla2tools.version file: key=value lines (version, url,
// sha256); blank lines and # comments are ignored.
func ReadPin(path string) (Pin, error) {
	data, err := inputfile.Read(path, inputfile.MaxText)
	if err != nil {
		return Pin{}, fmt.Errorf("reading the pinned TLA+ tools release %s: %w", quote.S(path), pathErr(err))
	}
	return ParsePin(bytes.NewReader(data))
}

// ParsePin parses the contents of a tla2tools.version file.
func ParsePin(r io.Reader) (Pin, error) {
	var p Pin
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return Pin{}, fmt.Errorf("tla2tools.version line %d: expected key=value, got %s", n, quote.Q(line))
		}
		switch strings.TrimSpace(key) {
		case "version":
			p.Version = strings.TrimSpace(val)
		case "url":
			p.URL = strings.TrimSpace(val)
		case "sha256":
			p.SHA256 = strings.ToLower(strings.TrimSpace(val))
		}
	}
	if err := sc.Err(); err != nil {
		return Pin{}, fmt.Errorf("reading tla2tools.version: %w", err)
	}
	if p.Version == "" || p.URL == "" || len(p.SHA256) != 64 {
		return Pin{}, fmt.Errorf("tla2tools.version must set version, url and a 64-digit sha256")
	}
	return p, nil
}

// MissingToolError means Java or tla2tools.jar is not available. Its
// message is one paragraph: what is missing and how to provide it.
type MissingToolError struct {
	Msg string
}

func (e *MissingToolError) Error() string { return e.Msg }

// IsMissingTool reports whether err means a missing Java or jar.
func IsMissingTool(err error) bool {
	var m *MissingToolError
	return errors.As(err, &m)
}

// JarSource says where a jar came from.
type JarSource string

// Where Resolve found the jar.
const (
	FromEnv      JarSource = "TLA2TOOLS_JAR"
	FromCache    JarSource = "cache"
	FromDownload JarSource = "download"
)

// Jar is a resolved tla2tools.jar.
type Jar struct {
	Path   string
	Source JarSource
}

// Resolver finds tla2tools.jar: the file TLA2TOOLS_JAR names if it is set,
// else a copy in the cache whose SHA-256 matches the pin, else the pinned
// release downloaded, verified and cached.
type Resolver struct {
	Pin Pin
	// EnvJar is the value of TLA2TOOLS_JAR; "" when unset.
	EnvJar string
	// CacheDir holds the verified copy; "" disables the cache and the
	// download.
	CacheDir string
	// Client downloads the jar; its Timeout bounds the download.
	Client *http.Client
}

// DefaultResolver reads the pin and the environment: TLA2TOOLS_JAR, and
// os.UserCacheDir()/fencelab as the cache. A download honours the proxy
// environment; it gives up after 10 s without a connection or 15 s without
// an answer — so a machine whose network silently drops packets still gets
// its "missing jar" message within 30 s — and after 60 s in all.
func DefaultResolver(pinPath string) (*Resolver, error) {
	pin, err := ReadPin(pinPath)
	if err != nil {
		return nil, err
	}
	client := &http.Client{
		Timeout: 60 * time.Second,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 15 * time.Second,
		},
	}
	r := &Resolver{Pin: pin, EnvJar: os.Getenv("TLA2TOOLS_JAR"), Client: client}
	if dir, err := os.UserCacheDir(); err == nil {
		r.CacheDir = filepath.Join(dir, "fencelab")
	}
	return r, nil
}

// CachePath is where the verified copy of the pinned jar lives.
func (r *Resolver) CachePath() string {
	if r.CacheDir == "" {
		return ""
	}
	return filepath.Join(r.CacheDir, "tla2tools-"+r.Pin.Version+".jar")
}

// Resolve returns the jar to run, or a *MissingToolError.
func (r *Resolver) Resolve(ctx context.Context) (Jar, error) {
	if r.EnvJar != "" {
		// A jar named by TLA2TOOLS_JAR is the user's choice (a local build,
		// a newer release): it is used as is, without checking its checksum.
		if err := CheckJar(r.EnvJar); err != nil {
			return Jar{}, &MissingToolError{Msg: fmt.Sprintf(
				"TLA2TOOLS_JAR is set to %s, which cannot be used: %v. Point it at the TLA+ tools %s jar (tla2tools.jar), e.g. TLA2TOOLS_JAR=/path/to/tla2tools.jar make tlc, or unset it to use a verified copy in the user cache or the pinned download.",
				quote.Q(r.EnvJar), err, r.Pin.Version)}
		}
		return Jar{Path: r.EnvJar, Source: FromEnv}, nil
	}
	cached := r.CachePath()
	var cacheNote string
	if cached != "" {
		switch err := VerifyFile(cached, r.Pin.SHA256); {
		case err == nil:
			return Jar{Path: cached, Source: FromCache}, nil
		case !errors.Is(err, os.ErrNotExist):
			cacheNote = fmt.Sprintf(" The cached copy %s was rejected (%v).", cached, err)
		}
	}
	if cached == "" {
		return Jar{}, r.missing("there is no user cache directory to keep a download in", cacheNote)
	}
	if err := r.download(ctx, cached); err != nil {
		return Jar{}, r.missing(err.Error(), cacheNote)
	}
	return Jar{Path: cached, Source: FromDownload}, nil
}

func (r *Resolver) missing(why, cacheNote string) error {
	return &MissingToolError{Msg: fmt.Sprintf(
		"tla2tools.jar (TLA+ tools %s) is missing: TLA2TOOLS_JAR is not set, no verified copy is in the user cache (%s), and it could not be downloaded: %s.%s To provide it, download %s (sha256 %s) where there is network access and run TLA2TOOLS_JAR=/path/to/tla2tools.jar make tlc.",
		r.Pin.Version, r.CachePath(), why, cacheNote, r.Pin.URL, r.Pin.SHA256)}
}

// download fetches the pinned jar, verifies it, and moves it into place
// atomically so a half-written or wrong file is never left as the cache.
func (r *Resolver) download(ctx context.Context, dest string) error {
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.Pin.URL, nil)
	if err != nil {
		return fmt.Errorf("bad download URL %s: %w", quote.Q(r.Pin.URL), err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", r.Pin.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading %s: HTTP %s", r.Pin.URL, resp.Status)
	}
	// Saved whole or not at all, and only once its checksum is the pin's:
	// the cache never holds a part of a jar or another file.
	save := func(w io.Writer) error {
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(resp.Body, maxJar+1))
		if err != nil {
			return fmt.Errorf("downloading %s: %w", r.Pin.URL, err)
		}
		if n > maxJar {
			return fmt.Errorf("downloading %s: more than %d bytes, not the TLA+ tools", r.Pin.URL, maxJar)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != r.Pin.SHA256 {
			return fmt.Errorf("the downloaded file's sha256 is %s, not the pinned %s", got, r.Pin.SHA256)
		}
		return nil
	}
	return atomicfile.NewFolder(filepath.Dir(dest)).WriteFile(filepath.Base(dest), save)
}

// maxJar bounds a download: the TLA+ tools jar is about 10 MB.
const maxJar = 256 << 20

// jarClasses are the entries a jar must hold to be the TLA+ tools: TLC
// and the PlusCal translator, the two mains fencelab runs.
var jarClasses = []string{"tlc2/TLC.class", "pcal/trans.class"}

// CheckJar checks, before anything runs, that path is the TLA+ tools: a
// complete zip archive holding TLC and the PlusCal translator, every
// entry of which reads back with its checksum. It says what is wrong in words
// a user can act on (empty, not a zip archive, truncated, not TLA+ tools).
func CheckJar(path string) error {
	if err := checkJarFile(path); err != nil {
		return err
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("it is not a complete zip archive (%v): a truncated download or not a jar", err)
	}
	defer zr.Close()
	for _, name := range jarClasses {
		if _, err := zr.Open(name); err != nil {
			return fmt.Errorf("it holds no %s: not the TLA+ tools", name)
		}
	}
	// Every entry reads back with its checksum: a jar with one flipped
	// bit is refused here, in words, not run to fail in the JVM with an
	// error that reads like the spec's.
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if err != nil {
			return fmt.Errorf("its %s cannot be read (%v): a damaged jar", quote.S(f.Name), err)
		}
	}
	return nil
}

// checkJarFile says, in words, why path is no file a jar can be read
// from: missing, a link to nothing, a folder, a pipe or device (which
// would block or never end), unreadable, or empty.
func checkJarFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		if lst, lerr := os.Lstat(path); lerr == nil && lst.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return fmt.Errorf("it is a symbolic link to nothing (%s does not exist)", quote.Q(target))
		}
		if errors.Is(err, os.ErrNotExist) {
			return errors.New("no such file exists")
		}
		return err
	}
	switch {
	case st.IsDir():
		return errors.New("it is a folder, not the jar file")
	case !st.Mode().IsRegular():
		return fmt.Errorf("it is %s, not a regular file", inputfile.Kind(st.Mode()))
	case st.Size() == 0:
		return errors.New("the file is empty")
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("it cannot be read (mode %04o): permission denied", st.Mode().Perm())
		}
		return fmt.Errorf("it cannot be read: %w", err)
	}
	return f.Close()
}

// VerifyFile checks that the file at path has the given SHA-256 (hex).
func VerifyFile(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.ToLower(want) {
		return fmt.Errorf("its sha256 is %s, not the pinned %s", got, want)
	}
	return nil
}

// FindJava returns the java executable on PATH, or a *MissingToolError.
func FindJava() (string, error) {
	path, err := exec.LookPath("java")
	if err != nil {
		return "", &MissingToolError{Msg: "Java is missing: no java executable is on PATH, and TLC (tla2tools.jar) needs a Java 11 or newer runtime. Install one (for example apt-get install default-jre-headless) or put its bin directory on PATH, then run make tlc again (with TLA2TOOLS_JAR=/path/to/tla2tools.jar if there is no network)."}
	}
	return path, nil
}
