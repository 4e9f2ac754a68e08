package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	block, _ := pem.Decode(data)
	require.NotNil(t, block, path)
	c, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	return c
}

// The run's PKI: a CA that signed a serving certificate for 127.0.0.1 and
// a system:masters client certificate, each usable only as what it is,
// private keys for their owner only, a fresh CA each time.
func TestKubePKI(t *testing.T) {
	now := time.Now()
	dir := filepath.Join(t.TempDir(), "pki")
	require.NoError(t, writeKubePKI(dir, now))
	ca := readCert(t, filepath.Join(dir, kubeCAFile))
	require.True(t, ca.IsCA)
	roots := x509.NewCertPool()
	roots.AddCert(ca)

	for _, tc := range []struct {
		file, key  string
		usage      x509.ExtKeyUsage
		wrongUsage x509.ExtKeyUsage
	}{
		{kubeServerCert, kubeServerKey, x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		{kubeClientCert, kubeClientKey, x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c := readCert(t, filepath.Join(dir, tc.file))
			opts := x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{tc.usage}}
			if tc.usage == x509.ExtKeyUsageServerAuth {
				opts.DNSName = "127.0.0.1"
			}
			_, err := c.Verify(opts)
			require.NoError(t, err)
			opts.KeyUsages = []x509.ExtKeyUsage{tc.wrongUsage}
			_, err = c.Verify(opts)
			require.Error(t, err, "usable only as what it is")
			opts.KeyUsages, opts.CurrentTime = []x509.ExtKeyUsage{tc.usage}, now.Add(kubeCertLifetime+time.Minute)
			_, err = c.Verify(opts)
			require.Error(t, err, "expired after the lifetime")
			_, err = tls.LoadX509KeyPair(filepath.Join(dir, tc.file), filepath.Join(dir, tc.key))
			require.NoError(t, err, "the key matches")
			info, err := os.Stat(filepath.Join(dir, tc.key))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
		})
	}
	client := readCert(t, filepath.Join(dir, kubeClientCert))
	assert.Equal(t, []string{"system:masters"}, client.Subject.Organization)
	server := readCert(t, filepath.Join(dir, kubeServerCert))
	_, err := server.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, DNSName: "example.com"})
	require.Error(t, err, "for 127.0.0.1 and localhost only")
	info, err := os.Stat(filepath.Join(dir, kubeServiceAcctSK))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	// The service-account keys: SEC1 and PKIX, which kube-apiserver
	// reads (not PKCS #8), one pair.
	skPEM, err := os.ReadFile(filepath.Join(dir, kubeServiceAcctSK))
	require.NoError(t, err)
	skBlock, _ := pem.Decode(skPEM)
	require.Equal(t, "EC PRIVATE KEY", skBlock.Type)
	sk, err := x509.ParseECPrivateKey(skBlock.Bytes)
	require.NoError(t, err)
	pkPEM, err := os.ReadFile(filepath.Join(dir, kubeServiceAcctPK))
	require.NoError(t, err)
	pkBlock, _ := pem.Decode(pkPEM)
	require.Equal(t, "PUBLIC KEY", pkBlock.Type)
	pk, err := x509.ParsePKIXPublicKey(pkBlock.Bytes)
	require.NoError(t, err)
	assert.True(t, sk.PublicKey.Equal(pk), "the public key is the signing key's")

	other := filepath.Join(t.TempDir(), "pki")
	require.NoError(t, writeKubePKI(other, now))
	assert.NotEqual(t, ca.Raw, readCert(t, filepath.Join(other, kubeCAFile)).Raw, "a fresh CA per run")
}

// TestCheckKubeModule: kube-apiserver's build module pins the version this
// package builds and names (KubernetesVersion) and lists the tool; a
// go.mod that does not is refused, naming what is wrong.
func TestCheckKubeModule(t *testing.T) {
	require.NoError(t, CheckKubeModule(filepath.Join("..", "kube-apiserver")), "live/kube-apiserver/go.mod and KubernetesVersion agree")
	good, err := os.ReadFile(filepath.Join("..", "kube-apiserver", "go.mod"))
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		edit func(string) string
		want string
	}{
		{"another module", func(s string) string {
			return strings.Replace(s, "module "+KubeBuildModule, "module example.com/x", 1)
		}, "is not kube-apiserver's build module"},
		{"another version", func(s string) string {
			return strings.Replace(s, KubernetesModule+" "+KubernetesVersion, KubernetesModule+" v1.36.0", 1)
		}, "pins k8s.io/kubernetes at \"v1.36.0\""},
		{"no kubernetes", func(s string) string {
			return strings.Replace(s, KubernetesModule+" "+KubernetesVersion, "", 1)
		}, "pins k8s.io/kubernetes at \"\""},
		{"no tool", func(s string) string {
			return strings.Replace(s, "tool "+KubeAPIServerPackage, "", 1)
		}, "does not list the tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			edited := tc.edit(string(good))
			require.NotEqual(t, string(good), edited, "the edit applies")
			require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(edited), 0o644))
			require.ErrorContains(t, CheckKubeModule(dir), tc.want)
		})
	}
	require.ErrorContains(t, CheckKubeModule(t.TempDir()), "kube-apiserver's build module")
}

func TestKubeVersionLDFlags(t *testing.T) {
	f := kubeVersionLDFlags()
	for _, want := range []string{
		"k8s.io/component-base/version.gitVersion=" + KubernetesVersion,
		"k8s.io/component-base/version.gitMajor=1 ",
		"k8s.io/component-base/version.gitMinor=37 ",
	} {
		assert.Contains(t, f+" ", want)
	}
}

// fakeGo writes a go command that "builds" by writing its -o argument,
// and counts its calls in a file.
func fakeGo(t *testing.T, dir string) (goCmd, calls string) {
	t.Helper()
	goCmd, calls = filepath.Join(dir, "go"), filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho \"$@\" >> " + calls + "\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then printf 'binary' > \"$2\"; fi; shift; done\n"
	testexec.Write(t, goCmd, []byte(script))
	return goCmd, calls
}

// The cache: a build lands with its sum and is found; an intact build is
// kept (go not run again); a damaged one is missing, and built again.
func TestKubeAPIServerCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("FENCELAB_CACHE", cache)
	_, err := KubeAPIServerPath()
	var missing *MissingError
	require.ErrorAs(t, err, &missing, "nothing built yet")
	assert.Contains(t, err.Error(), "make live-deps builds it")

	dir, err := KubeAPIServerCacheDir()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(cache, "kube-apiserver"), dir)
	goCmd, calls := fakeGo(t, t.TempDir())
	bin, err := BuildKubeAPIServer(context.Background(), goCmd, t.TempDir(), dir, os.Stderr)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "kube-apiserver-"+KubernetesVersion), bin)
	got, err := KubeAPIServerPath()
	require.NoError(t, err)
	assert.Equal(t, bin, got)
	args, err := os.ReadFile(calls)
	require.NoError(t, err)
	assert.Contains(t, string(args), "build -ldflags")
	assert.Contains(t, string(args), KubeAPIServerPackage)

	_, err = BuildKubeAPIServer(context.Background(), filepath.Join(t.TempDir(), "no-go"), t.TempDir(), dir, os.Stderr)
	require.NoError(t, err, "an intact build is kept, go not run")

	testexec.Write(t, bin, []byte("damaged"))
	_, err = KubeAPIServerPath()
	require.ErrorAs(t, err, &missing, "a binary that does not match its sum")
	_, err = BuildKubeAPIServer(context.Background(), goCmd, t.TempDir(), dir, os.Stderr)
	require.NoError(t, err)
	_, err = KubeAPIServerPath()
	require.NoError(t, err, "built again")

	_, err = BuildKubeAPIServer(context.Background(), filepath.Join(t.TempDir(), "no-go"), t.TempDir(), t.TempDir(), os.Stderr)
	require.Error(t, err, "a build that cannot run fails")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "build-"), "no build folder left: %s", e.Name())
	}
}

func TestStartKubeAPIServerNeedsEtcd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "k")
	require.NoError(t, os.Mkdir(dir, 0o755))
	_, err := StartKubeAPIServer(context.Background(), dir, KubeAPIServerOptions{Binary: "/bin/true"})
	require.ErrorContains(t, err, "no etcd address")
	_, err = os.Stat(dir)
	require.True(t, errors.Is(err, os.ErrNotExist), "the folder is removed")
}
