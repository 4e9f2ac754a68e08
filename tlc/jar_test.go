package tlc

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func TestParsePin(t *testing.T) {
	pin, err := ParsePin(strings.NewReader("# comment\nversion=v1.7.4\nurl=https://example.invalid/tla2tools.jar\n\nsha256=" + strings.Repeat("AB", 32) + "\n"))
	require.NoError(t, err)
	assert.Equal(t, Pin{Version: "v1.7.4", URL: "https://example.invalid/tla2tools.jar", SHA256: strings.Repeat("ab", 32)}, pin)

	for _, bad := range []string{"version=v1\nurl=u\n", "version=v1\nurl=u\nsha256=abc\n", "not a pair\n"} {
		_, err := ParsePin(strings.NewReader(bad))
		assert.Error(t, err, bad)
	}
}

func TestCommittedPin(t *testing.T) {
	pin, err := ReadPin(filepath.Join("..", "tla2tools.version"))
	require.NoError(t, err)
	assert.Equal(t, "v1.7.4", pin.Version)
	assert.Equal(t, "936a262061c914694dfd669a543be24573c45d5aa0ff20a8b96b23d01e050e88", pin.SHA256)
}

func TestResolveEnvJar(t *testing.T) {
	dir := t.TempDir()
	jar := filepath.Join(dir, "tla2tools.jar")
	// An env jar is the user's choice: any build holding TLC and the
	// translator is used as is, whatever its checksum.
	writeJar(t, jar, map[string]string{"tlc2/TLC.class": "tlc", "pcal/trans.class": "pcal"})
	r := &Resolver{Pin: Pin{Version: "v1.7.4", SHA256: strings.Repeat("0", 64)}, EnvJar: jar}
	got, err := r.Resolve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Jar{Path: jar, Source: FromEnv}, got)

	r.EnvJar = filepath.Join(dir, "missing.jar")
	_, err = r.Resolve(context.Background())
	require.Error(t, err)
	assert.True(t, IsMissingTool(err))
	assert.Contains(t, err.Error(), "TLA2TOOLS_JAR is set to")
	assert.Contains(t, err.Error(), "missing.jar")
	assert.NotContains(t, err.Error(), "\n", "one paragraph")

	r.EnvJar = dir // a folder is not a jar, and is said to be one
	_, err = r.Resolve(context.Background())
	assert.True(t, IsMissingTool(err))
	assert.ErrorContains(t, err, "it is a folder")
	assert.NotContains(t, err.Error(), "no such file")
}

func TestResolveCache(t *testing.T) {
	content := []byte("the pinned jar")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "nothing here", http.StatusNotFound)
	}))
	defer srv.Close()
	r := &Resolver{Pin: Pin{Version: "v9", URL: srv.URL + "/tla2tools.jar", SHA256: sha(content)}, CacheDir: t.TempDir(), Client: srv.Client()}

	require.NoError(t, os.WriteFile(r.CachePath(), content, 0o644))
	got, err := r.Resolve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Jar{Path: r.CachePath(), Source: FromCache}, got)

	// A cached copy with the wrong checksum is rejected, and the download
	// (here a 404) cannot replace it: a clear error, not a pass.
	require.NoError(t, os.WriteFile(r.CachePath(), []byte("tampered"), 0o644))
	_, err = r.Resolve(context.Background())
	require.Error(t, err)
	assert.True(t, IsMissingTool(err))
	assert.Contains(t, err.Error(), "was rejected")
	assert.Contains(t, err.Error(), "HTTP 404")
	assert.Contains(t, err.Error(), "TLA2TOOLS_JAR=/path/to/tla2tools.jar make tlc")
}

func TestResolveDownload(t *testing.T) {
	content := []byte("the pinned jar")
	serve := content
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(serve)
	}))
	defer srv.Close()
	r := &Resolver{Pin: Pin{Version: "v9", URL: srv.URL + "/tla2tools.jar", SHA256: sha(content)}, CacheDir: filepath.Join(t.TempDir(), "fencelab"), Client: srv.Client()}

	// A download with the wrong checksum is refused and not cached.
	serve = []byte("something else")
	_, err := r.Resolve(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not the pinned")
	_, statErr := os.Stat(r.CachePath())
	assert.True(t, os.IsNotExist(statErr), "a bad download is not cached")
	leftovers, _ := filepath.Glob(filepath.Join(r.CacheDir, ".tla2tools-*"))
	assert.Empty(t, leftovers, "no temporary file is left behind")

	serve = content
	got, err := r.Resolve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Jar{Path: r.CachePath(), Source: FromDownload}, got)
	require.NoError(t, VerifyFile(r.CachePath(), r.Pin.SHA256))

	// Next time the verified copy is used without a download.
	srv.Close()
	got, err = r.Resolve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, FromCache, got.Source)
}

func TestResolveUnreachableFailsFast(t *testing.T) {
	// Port 1 on the loopback address refuses connections at once.
	r := &Resolver{Pin: Pin{Version: "v9", URL: "http://127.0.0.1:1/tla2tools.jar", SHA256: strings.Repeat("0", 64)},
		CacheDir: t.TempDir(), Client: &http.Client{Timeout: 5 * time.Second}}
	_, err := r.Resolve(context.Background())
	require.Error(t, err)
	assert.True(t, IsMissingTool(err))
	msg := err.Error()
	assert.Contains(t, msg, "tla2tools.jar (TLA+ tools v9) is missing")
	assert.Contains(t, msg, "could not be downloaded")
	assert.Contains(t, msg, "TLA2TOOLS_JAR=/path/to/tla2tools.jar make tlc")
	assert.NotContains(t, msg, "\n", "one paragraph")
}

func TestFindJavaMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := FindJava()
	require.Error(t, err)
	assert.True(t, IsMissingTool(err))
	assert.Contains(t, err.Error(), "Java is missing")
}

// writeJar writes a zip archive holding the given files.
func writeJar(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for name, body := range files {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write([]byte(body))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
}

// TestEnvJarThatIsNotTLC: a TLA2TOOLS_JAR that is not the TLA+ tools —
// empty, not a zip archive, truncated, a zip without TLC or the translator,
// a zip whose TLC class is damaged, a folder — is a missing tool (exit 2),
// said in one paragraph that names what is wrong, before anything runs.
func TestEnvJarThatIsNotTLC(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jar")
	writeJar(t, good, map[string]string{"tlc2/TLC.class": strings.Repeat("tlc ", 1000), "pcal/trans.class": "pcal", "META-INF/MANIFEST.MF": "Manifest-Version: 1.0\n"})
	goodBytes, err := os.ReadFile(good)
	require.NoError(t, err)
	require.NoError(t, CheckJar(good))

	// A damaged class: flip a byte inside TLC.class's stored data.
	damaged := filepath.Join(dir, "damaged.jar")
	{
		f, err := os.Create(damaged)
		require.NoError(t, err)
		zw := zip.NewWriter(f)
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "tlc2/TLC.class", Method: zip.Store})
		require.NoError(t, err)
		_, err = w.Write([]byte("TLC-CLASS-BYTES"))
		require.NoError(t, err)
		w, err = zw.Create("pcal/trans.class")
		require.NoError(t, err)
		_, err = w.Write([]byte("pcal"))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		require.NoError(t, f.Close())
		data, err := os.ReadFile(damaged)
		require.NoError(t, err)
		i := strings.Index(string(data), "TLC-CLASS-BYTES")
		require.Positive(t, i)
		data[i] = 'X'
		require.NoError(t, os.WriteFile(damaged, data, 0o644))
	}
	tests := []struct {
		name    string
		write   func(path string)
		wantErr string
	}{
		{"empty file", func(p string) { require.NoError(t, os.WriteFile(p, nil, 0o644)) }, "the file is empty"},
		{"text, not a zip", func(p string) { require.NoError(t, os.WriteFile(p, []byte("not a jar\n"), 0o644)) }, "not a complete zip archive"},
		{"truncated download", func(p string) { require.NoError(t, os.WriteFile(p, goodBytes[:len(goodBytes)/2], 0o644)) }, "not a complete zip archive"},
		{"cut by one byte", func(p string) { require.NoError(t, os.WriteFile(p, goodBytes[:len(goodBytes)-1], 0o644)) }, "not a complete zip archive"},
		{"a zip of something else", func(p string) { writeJar(t, p, map[string]string{"README": "hello"}) }, "holds no tlc2/TLC.class"},
		{"TLC without the translator", func(p string) { writeJar(t, p, map[string]string{"tlc2/TLC.class": "tlc"}) }, "holds no pcal/trans.class"},
		{"an empty zip", func(p string) { writeJar(t, p, nil) }, "holds no tlc2/TLC.class"},
		{"damaged class", func(p string) {
			data, err := os.ReadFile(damaged)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, data, 0o644))
		}, "cannot be read"},
		{"a folder", func(p string) { require.NoError(t, os.Mkdir(p, 0o755)) }, "it is a folder, not the jar file"},
		{"a missing file", func(string) {}, "no such file exists"},
		{"a dangling symbolic link", func(p string) { require.NoError(t, os.Symlink(p+".gone", p)) }, "a symbolic link to nothing"},
		{"a link to /dev/zero (a read would never end)", func(p string) { require.NoError(t, os.Symlink("/dev/zero", p)) }, "it is a character device, not a regular file"},
		{"an unreadable file", func(p string) { require.NoError(t, os.WriteFile(p, goodBytes, 0o000)) }, "cannot be read (mode 0000): permission denied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.wantErr, "permission denied") && os.Geteuid() == 0 {
				t.Skip("root reads a file of mode 0000")
			}
			path := filepath.Join(t.TempDir(), "tla2tools.jar")
			tc.write(path)
			r := &Resolver{Pin: Pin{Version: "v1.7.4", SHA256: strings.Repeat("0", 64)}, EnvJar: path}
			_, err := r.Resolve(context.Background())
			require.Error(t, err)
			assert.True(t, IsMissingTool(err), "a bad jar is a missing tool: %v", err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Contains(t, err.Error(), "TLA2TOOLS_JAR is set to")
			assert.NotContains(t, err.Error(), "stale", "never mistaken for a stale translation")
			assert.NotContains(t, err.Error(), "\n", "one paragraph")
		})
	}
}
