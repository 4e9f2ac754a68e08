package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/tlc"
)

// KubernetesModule and KubernetesVersion are the module kube-apiserver is
// built from and its version: its build module (live/kube-apiserver/go.mod,
// KubeBuildModule) pins the same (CheckKubeModule; a test ties them), and
// the cached binary's name carries the version, so a new pin builds a new
// binary.
const (
	KubernetesModule  = "k8s.io/kubernetes"
	KubernetesVersion = "v1.37.2"
	// KubeAPIServerPackage is the package path `go build` is given.
	KubeAPIServerPackage = KubernetesModule + "/cmd/kube-apiserver"
)

// kubeAPIServerProgram names the server in errors, logs and histories.
const kubeAPIServerProgram = "kube-apiserver"

// KubeAPIServerCacheDir is where the built kube-apiserver is kept:
// kube-apiserver/ in fencelab's cache folder (tlc.CacheDir, the one rule
// of fencelab's caches: $FENCELAB_CACHE, else fencelab in the user's
// cache folder), beside the clock shim.
func KubeAPIServerCacheDir() (string, error) {
	dir, err := tlc.CacheDir(os.Getenv)
	if err != nil {
		return "", fmt.Errorf("kube-apiserver cache: %w", err)
	}
	return filepath.Join(dir, kubeAPIServerProgram), nil
}

// kubeAPIServerBinary is the cached binary's path in cacheDir; its sum
// file is the same path with ".sha256".
func kubeAPIServerBinary(cacheDir string) string {
	return filepath.Join(cacheDir, kubeAPIServerProgram+"-"+KubernetesVersion)
}

// KubeAPIServerMissing is the error of a kube-apiserver that is not built:
// a *MissingError, so that tests and the live command skip with one line.
func kubeAPIServerMissing(path string, err error) error {
	return &MissingError{Program: path, Package: KubernetesModule + " " + KubernetesVersion,
		Build: "make live-deps builds it with go build, about 13 minutes of CPU", Err: err}
}

// KubeAPIServerPath is the cached kube-apiserver built by
// BuildKubeAPIServer, checked against its sum file; a *MissingError when
// it is not there or does not match (damaged, cut short).
func KubeAPIServerPath() (string, error) {
	dir, err := KubeAPIServerCacheDir()
	if err != nil {
		return "", err
	}
	bin := kubeAPIServerBinary(dir)
	if err := CachedIntact(bin); err != nil {
		return "", kubeAPIServerMissing(bin, err)
	}
	return bin, nil
}

// CachedIntact checks that bin, a file fencelab built into its cache, is
// a regular file whose SHA-256 is the one its sum file (bin.sha256)
// records: the one rule of a cached build (kube-apiserver here, the
// clock shim in nemesis), so that a damaged or cut-short build is built
// again, never run.
func CachedIntact(bin string) error {
	info, err := os.Lstat(bin)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", bin)
	}
	want, err := os.ReadFile(bin + ".sha256")
	if err != nil {
		return err
	}
	got, err := FileSHA256(bin)
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(want)) != got {
		return fmt.Errorf("%s does not match its sum file", bin)
	}
	return nil
}

// FileSHA256 is a file's SHA-256 in hex, what a sum file records.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// kubeAPIServerBuildTimeout bounds one build: 13 minutes of CPU, which
// took 40 minutes of wall time at load 12-28 on 2 cores.
const kubeAPIServerBuildTimeout = 2 * time.Hour

// BuildKubeAPIServer builds kube-apiserver from the k8s.io/kubernetes
// module that the build module in moduleDir pins (live/kube-apiserver:
// the release's own dependency versions, its staging modules k8s.io/*
// replaced by their published versions, as a dependency must) with
// goCmd, into cacheDir, unless an intact build is there already, and
// returns the binary's path. Its version is stamped as a release's is
// (hack/lib/version.sh's ldflags), so /version and --version say
// KubernetesVersion. Build output goes to log.
func BuildKubeAPIServer(ctx context.Context, goCmd, moduleDir, cacheDir string, log io.Writer) (string, error) {
	bin := kubeAPIServerBinary(cacheDir)
	if CachedIntact(bin) == nil {
		return bin, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("building kube-apiserver: %w", err)
	}
	build, err := os.MkdirTemp(cacheDir, "build-")
	if err != nil {
		return "", fmt.Errorf("building kube-apiserver: %w", err)
	}
	defer os.RemoveAll(build)
	out := filepath.Join(build, kubeAPIServerProgram)
	ctx, cancel := context.WithTimeout(ctx, kubeAPIServerBuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "build", "-ldflags", kubeVersionLDFlags(), "-o", out, KubeAPIServerPackage)
	cmd.Dir = moduleDir
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building kube-apiserver (%s build %s in %s): %w", goCmd, KubeAPIServerPackage, moduleDir, err)
	}
	sum, err := FileSHA256(out)
	if err != nil {
		return "", fmt.Errorf("building kube-apiserver: %w", err)
	}
	if err := os.WriteFile(out+".sha256", []byte(sum+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("building kube-apiserver: %w", err)
	}
	// Rename is atomic: two builders at once both end with whole files,
	// and a binary whose sum is another build's is built again.
	if err := os.Rename(out, bin); err != nil {
		return "", fmt.Errorf("building kube-apiserver: %w", err)
	}
	if err := os.Rename(out+".sha256", bin+".sha256"); err != nil {
		return "", fmt.Errorf("building kube-apiserver: %w", err)
	}
	return bin, nil
}

// kubeVersionLDFlags stamps KubernetesVersion into the binary, as the
// release build does (k8s.io/component-base/version), and strips the
// symbol tables.
func kubeVersionLDFlags() string {
	major, minor, _ := strings.Cut(strings.TrimPrefix(KubernetesVersion, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	const pkg = "k8s.io/component-base/version"
	return strings.Join([]string{"-s", "-w",
		"-X", pkg + ".gitVersion=" + KubernetesVersion,
		"-X", pkg + ".gitMajor=" + major,
		"-X", pkg + ".gitMinor=" + minor,
		"-X", pkg + ".gitTreeState=clean",
	}, " ")
}

// kubeVersionLine is what `kube-apiserver --version` prints.
var kubeVersionLine = regexp.MustCompile(`^Kubernetes (v\d+\.\d+\.\d+\S*)\s*$`)

// KubeAPIServerVersion runs the cached kube-apiserver's --version
// ("kube-apiserver v1.37.2"); a *MissingError when it is not built.
func KubeAPIServerVersion(ctx context.Context) (string, error) {
	bin, err := KubeAPIServerPath()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	m := kubeVersionLine.FindStringSubmatch(strings.TrimSpace(string(out)))
	if m == nil {
		return "", fmt.Errorf("%s --version said %s, not Kubernetes vX.Y.Z", bin, quote.Q(strings.TrimSpace(string(out))))
	}
	return kubeAPIServerProgram + " " + m[1], nil
}

// KubeCredentials are the files a client of a KubeAPIServer authenticates
// with: the cluster's CA (which signed the serving certificate) and a
// client certificate of group system:masters signed by it. They live in
// the server's folder, made afresh for each run.
type KubeCredentials struct {
	CAFile, CertFile, KeyFile string
}

// Names of the files in a KubeAPIServer's pki folder.
const (
	kubePKIDir        = "pki"
	kubeCAFile        = "ca.crt"
	kubeServerCert    = "server.crt"
	kubeServerKey     = "server.key"
	kubeClientCert    = "client.crt"
	kubeClientKey     = "client.key"
	kubeServiceAcctSK = "service-account.key"
	kubeServiceAcctPK = "service-account.pub"
	kubeLogFile       = "kube-apiserver"
)

// KubeCredentialsIn are the credentials a KubeAPIServer wrote in its
// folder's pki folder (KubeAPIServer.Credentials gives them too): a
// client process is told the folder.
func KubeCredentialsIn(pkiDir string) KubeCredentials {
	return KubeCredentials{
		CAFile:   filepath.Join(pkiDir, kubeCAFile),
		CertFile: filepath.Join(pkiDir, kubeClientCert),
		KeyFile:  filepath.Join(pkiDir, kubeClientKey),
	}
}

// kubeCertLifetime is how long the run's certificates are valid: a run
// lasts seconds; the margin before is for a clock a little behind.
const kubeCertLifetime = 24 * time.Hour

// writeKubePKI makes a fresh CA, a serving certificate for 127.0.0.1 and
// localhost, a client certificate (CN fencelab-live, O system:masters:
// every request is authorised) and a service-account signing key in
// pkiDir, with Go's crypto (ECDSA P-256), keys readable by their owner
// only.
func writeKubePKI(pkiDir string, now time.Time) error {
	if err := os.MkdirAll(pkiDir, 0o700); err != nil {
		return err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	ca := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "fencelab-live kube CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(kubeCertLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := signCert(ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	leaf := func(tmpl *x509.Certificate, certFile, keyFile string) error {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		tmpl.NotBefore, tmpl.NotAfter = ca.NotBefore, ca.NotAfter
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		der, err := signCert(tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			return err
		}
		return errors.Join(writePEM(filepath.Join(pkiDir, certFile), "CERTIFICATE", der, 0o644), writeKey(filepath.Join(pkiDir, keyFile), key))
	}
	return errors.Join(
		writePEM(filepath.Join(pkiDir, kubeCAFile), "CERTIFICATE", caDER, 0o644),
		leaf(&x509.Certificate{
			Subject:     pkix.Name{CommonName: kubeAPIServerProgram},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
			DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		}, kubeServerCert, kubeServerKey),
		leaf(&x509.Certificate{
			Subject:     pkix.Name{CommonName: "fencelab-live", Organization: []string{"system:masters"}},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}, kubeClientCert, kubeClientKey),
		writeServiceAccountKeys(pkiDir),
	)
}

// writeServiceAccountKeys writes the key the server signs service-account
// tokens with (SEC1, "EC PRIVATE KEY") and its public half (PKIX), which
// it verifies them with: kube-apiserver reads neither key from PKCS #8.
func writeServiceAccountKeys(pkiDir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	return errors.Join(
		writePEM(filepath.Join(pkiDir, kubeServiceAcctSK), "EC PRIVATE KEY", der, 0o600),
		writePEM(filepath.Join(pkiDir, kubeServiceAcctPK), "PUBLIC KEY", pub, 0o644))
}

// signCert signs tmpl with a fresh random serial.
func signCert(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	return x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(path, "PRIVATE KEY", der, 0o600)
}

func writePEM(path, kind string, der []byte, mode os.FileMode) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), mode)
}

// KubeAPIServerOptions says how to start a kube-apiserver.
type KubeAPIServerOptions struct {
	// Binary is the kube-apiserver to run (KubeAPIServerPath if empty).
	Binary string
	// Etcd is the etcd it stores in, host:port (required): fencelab's
	// embedded etcd (StartEtcd).
	Etcd string
	// ReadyTimeout bounds each start (DefaultKubeReadyTimeout if zero).
	ReadyTimeout time.Duration
}

// DefaultKubeReadyTimeout bounds a kube-apiserver's start: it serves
// /readyz once its post-start hooks (the RBAC roles, the system
// namespaces' controller) are done, seconds on a loaded machine.
const DefaultKubeReadyTimeout = 90 * time.Second

// KubeAPIServer is a private kube-apiserver for one run: 127.0.0.1 on a
// free port, its serving certificate, client CA and service-account key
// made afresh in its folder (writeKubePKI), storing in the run's etcd.
// Clients authenticate with a client certificate (Credentials); anonymous
// requests are refused. It implements Server.
type KubeAPIServer struct {
	proc    *Proc
	pki     string
	version string

	mu        sync.Mutex
	startTime time.Duration
}

// StartKubeAPIServer starts kube-apiserver in dir, a folder the caller
// has just made for it and hands over (removed by Stop, or at once when
// the start fails), and waits until /readyz answers ok and the default
// namespace exists (a Lease is made there).
func StartKubeAPIServer(ctx context.Context, dir string, opts KubeAPIServerOptions) (*KubeAPIServer, error) {
	fail := func(err error) (*KubeAPIServer, error) {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", kubeAPIServerProgram, err)
	}
	if opts.Etcd == "" {
		return fail(errors.New("no etcd address"))
	}
	if opts.Binary == "" {
		bin, err := KubeAPIServerPath()
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		opts.Binary = bin
	}
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = DefaultKubeReadyTimeout
	}
	version, err := KubeAPIServerVersion(ctx)
	if err != nil {
		version = kubeAPIServerProgram + " " + KubernetesVersion + " (unverified: " + quote.Cut(err.Error(), 80) + ")"
	}
	pki := filepath.Join(dir, kubePKIDir)
	if err := writeKubePKI(pki, time.Now()); err != nil {
		return fail(fmt.Errorf("its certificates: %w", err))
	}
	creds := KubeCredentialsIn(pki)
	first := true
	return retryOnPortInUse(func() (*KubeAPIServer, error) {
		if !first {
			// The failed start removed dir: make it and the pki again.
			if err := os.Mkdir(dir, 0o755); err != nil {
				return nil, fmt.Errorf("starting %s: %w", kubeAPIServerProgram, err)
			}
			if err := writeKubePKI(pki, time.Now()); err != nil {
				return fail(fmt.Errorf("its certificates: %w", err))
			}
		}
		first = false
		port, err := FreePort()
		if err != nil {
			return fail(err)
		}
		began := time.Now()
		proc, err := StartProc(ctx, ProcSpec{
			Name:         kubeLogFile,
			Dir:          dir,
			Path:         opts.Binary,
			Args:         kubeAPIServerArgs(pki, port, opts.Etcd),
			Port:         port,
			Ready:        func(ctx context.Context, addr string) error { return kubeReady(ctx, addr, creds) },
			ReadyTimeout: opts.ReadyTimeout,
		})
		if err != nil {
			return nil, err
		}
		return &KubeAPIServer{proc: proc, pki: pki, version: version, startTime: time.Since(began)}, nil
	})
}

// kubeAPIServerArgs are the server's flags: a single apiserver on
// 127.0.0.1 over the given etcd, client certificates of the run's CA as
// its only authentication, RBAC (the client is a system:masters
// superuser), no endpoint reconciler (no Service points at a loopback
// address), no profiling.
func kubeAPIServerArgs(pki string, port int, etcd string) []string {
	f := func(name string) string { return filepath.Join(pki, name) }
	return []string{
		"--etcd-servers=http://" + etcd,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + f(kubeServerCert),
		"--tls-private-key-file=" + f(kubeServerKey),
		"--client-ca-file=" + f(kubeCAFile),
		"--anonymous-auth=false",
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + f(kubeServiceAcctPK),
		"--service-account-signing-key-file=" + f(kubeServiceAcctSK),
		"--service-cluster-ip-range=10.96.0.0/24",
		"--endpoint-reconciler-type=none",
		"--cert-dir=" + filepath.Join(pki, "generated"),
		"--profiling=false",
		"--enable-logs-handler=false",
		"--shutdown-delay-duration=0s",
		"--v=0",
	}
}

// kubeClient is an HTTPS client that authenticates with creds.
func kubeClient(creds KubeCredentials) (*http.Client, error) {
	ca, err := os.ReadFile(creds.CAFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("no certificate in %s", creds.CAFile)
	}
	cert, err := tls.LoadX509KeyPair(creds.CertFile, creds.KeyFile)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		DisableKeepAlives: true,
	}}, nil
}

// kubeReady asks /readyz (200 once every check passes: etcd reachable,
// the post-start hooks done) and then for the default namespace, which a
// controller of the server makes after its start.
func kubeReady(ctx context.Context, addr string, creds KubeCredentials) error {
	cli, err := kubeClient(creds)
	if err != nil {
		return fmt.Errorf("kube-apiserver readiness: %w", err)
	}
	for _, path := range []string{"/readyz", "/api/v1/namespaces/default"} {
		if err := kubeGet(ctx, cli, "https://"+addr+path); err != nil {
			return err
		}
	}
	return nil
}

func kubeGet(ctx context.Context, cli *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("kube-apiserver readiness: %w", err)
	}
	resp, err := cli.Do(req)
	if err != nil {
		return fmt.Errorf("kube-apiserver readiness: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("kube-apiserver readiness: GET %s: status %d: %s", url, resp.StatusCode, quote.Q(strings.TrimSpace(string(body))))
	}
	return nil
}

// Credentials are the files a client authenticates with.
func (k *KubeAPIServer) Credentials() KubeCredentials { return KubeCredentialsIn(k.pki) }

// PKIDir is the folder of the credentials (KubeCredentialsIn reads it).
func (k *KubeAPIServer) PKIDir() string { return k.pki }

// Name is "kube-apiserver".
func (k *KubeAPIServer) Name() string { return kubeAPIServerProgram }

// Addr is the secure port's address, 127.0.0.1:port (HTTPS).
func (k *KubeAPIServer) Addr() string { return k.proc.Addr() }

// Version is "kube-apiserver v1.37.2", as the binary says.
func (k *KubeAPIServer) Version() string { return k.version }

// Dir is the server's folder: its pki and its log.
func (k *KubeAPIServer) Dir() string { return k.proc.Dir() }

// Running is server.Runner's: a paused process runs.
func (k *KubeAPIServer) Running() bool { return k.proc.Running() }

// Pids is the server's process group (empty while killed).
func (k *KubeAPIServer) Pids() []int { return k.proc.Pids() }

// Kill ends the server at once (SIGKILL). It keeps no state of its own:
// everything is in etcd.
func (k *KubeAPIServer) Kill() error { return k.proc.Kill() }

// Restart starts a killed server again on the same port with the same
// certificates. wipe changes nothing here: the server keeps no data (etcd,
// a Server of its own, keeps it).
func (k *KubeAPIServer) Restart(ctx context.Context, _ bool) error {
	began := time.Now()
	if err := k.proc.Restart(ctx); err != nil {
		return err
	}
	k.mu.Lock()
	k.startTime = time.Since(began)
	k.mu.Unlock()
	return nil
}

// Stop ends the server if it runs and removes its folder.
func (k *KubeAPIServer) Stop() error { return k.proc.Stop() }

// Pause stops the server (SIGSTOP).
func (k *KubeAPIServer) Pause() error { return k.proc.Pause() }

// Resume continues a paused server (SIGCONT).
func (k *KubeAPIServer) Resume() error { return k.proc.Resume() }

// StartTime is how long the last start or restart took, until /readyz
// answered ok.
func (k *KubeAPIServer) StartTime() time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.startTime
}

// KubeBuildModule is the build module of kube-apiserver (the folder
// live/kube-apiserver), whose go.mod pins k8s.io/kubernetes.
const KubeBuildModule = "github.com/fencelab/fencelab/live/kube-apiserver"

// CheckKubeModule checks that dir holds KubeBuildModule's go.mod, that it
// pins KubernetesModule at KubernetesVersion and lists
// KubeAPIServerPackage as a tool: what BuildKubeAPIServer builds from.
func CheckKubeModule(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return fmt.Errorf("kube-apiserver's build module: %w", err)
	}
	var module, pinned string
	tool := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		switch {
		case len(f) == 2 && f[0] == "module":
			module = f[1]
		case len(f) >= 2 && f[0] == KubernetesModule:
			pinned = f[1]
		case len(f) == 2 && f[0] == "tool" && f[1] == KubeAPIServerPackage:
			tool = true
		}
	}
	switch {
	case module != KubeBuildModule:
		return fmt.Errorf("%s is not kube-apiserver's build module (module %s, want %s)", filepath.Join(dir, "go.mod"), quote.Q(module), KubeBuildModule)
	case pinned != KubernetesVersion:
		return fmt.Errorf("%s pins %s at %s, want %s (server.KubernetesVersion)", filepath.Join(dir, "go.mod"), KubernetesModule, quote.Q(pinned), KubernetesVersion)
	case !tool:
		return fmt.Errorf("%s does not list the tool %s", filepath.Join(dir, "go.mod"), KubeAPIServerPackage)
	}
	return nil
}
