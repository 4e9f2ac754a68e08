package tlc

import (
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
	require.NoError(t, os.WriteFile(jar, []byte("any bytes: an env jar is the user's choice"), 0o644))
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

	r.EnvJar = dir // a folder is not a jar
	_, err = r.Resolve(context.Background())
	assert.True(t, IsMissingTool(err))
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
