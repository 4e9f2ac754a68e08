// Package browsertest opens the pages and pictures fencelab writes in a
// real browser, headless Chromium from Debian's chromium package, for
// tests: it reports script errors (uncaught exceptions, failed loads,
// console errors), elements drawn outside their SVG canvas, SVG texts whose
// boxes overlap, and the value of a page's own check (say, that its first
// violation is on the first screen). It is test support: the tests of
// cmd/fencelab import it; the product does not.
//
// The page is opened as a copy with two scripts added: one first in the
// document that records errors, one that measures after the load and
// writes its report into the document; Chromium's --dump-dom prints the
// document, and the report is read back from it. An SVG file is opened
// inline in a page of its own. Chromium runs with a private profile in a
// temporary folder, no network services, in a process group of its own
// that is ended when the page has been read.
package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Package is the Debian package that provides Chromium.
const Package = "chromium"

// Binary is the path of the Chromium executable, or an error naming the
// package to install.
func Binary() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no chromium on PATH: apt-get install -y %s (make browser-deps)", Package)
}

// The first screen, in CSS pixels.
const (
	screenW = 1280
	screenH = 800
)

// Report is what the browser saw of one page.
type Report struct {
	// Errors are the page's uncaught exceptions, failed loads and console
	// errors.
	Errors []string `json:"errors"`
	// Outside are the elements drawn outside the SVG canvas that holds
	// them (beyond a pixel and a half of rounding).
	Outside []string `json:"outside"`
	// Overlaps are the pairs of SVG texts whose boxes overlap (by more
	// than half a pixel each way), when asked for.
	Overlaps []string `json:"overlaps"`
	// Texts counts the SVG texts measured: the witness that the page drew.
	Texts int `json:"texts"`
	// Screen is the viewport's size as the page saw it.
	Screen [2]float64 `json:"screen"`
	// Check is the value of the page's own check (Open's check), as JSON.
	Check json.RawMessage `json:"check"`
}

// errorsScript records errors from the first moment of the page on.
const errorsScript = `<script>
window.__fencelabErrors = [];
window.addEventListener('error', (e) => {
  const where = e.target && e.target !== window ? ' loading ' + (e.target.src || e.target.href || e.target.tagName) : ' at ' + (e.filename || '') + ':' + (e.lineno || 0);
  window.__fencelabErrors.push((e.message || 'error') + where);
}, true);
window.addEventListener('unhandledrejection', (e) => window.__fencelabErrors.push('unhandled rejection: ' + e.reason));
(() => { const ce = console.error; console.error = (...a) => { window.__fencelabErrors.push('console.error: ' + a.join(' ')); ce(...a) } })();
</script>
`

// reportScript measures every SVG of the page when it has loaded (its own
// scripts ran as it was parsed), and writes the report into the document. The
// Porcupine page's #calc is its scratch area for measuring text.
const reportScript = `<script>
window.addEventListener('load', () => {
  const out = {errors: window.__fencelabErrors, outside: [], overlaps: [], texts: 0, screen: [window.innerWidth, window.innerHeight], check: null}
  const tol = 1.5
  const name = (el) => el.tagName + (el.textContent.trim() ? ' "' + el.textContent.trim().slice(0, 60) + '"' : '') + (el.getAttribute('class') ? '.' + el.getAttribute('class') : '')
  const rect = (r) => '[' + [r.left, r.top, r.right, r.bottom].map((v) => v.toFixed(1)).join(', ') + ']'
  try {
    for (const svg of document.querySelectorAll('svg')) {
      if (svg.closest('#calc') || (svg.parentElement && svg.parentElement.closest('svg')) || svg.closest('[hidden], template')) continue
      const c = svg.getBoundingClientRect()
      if (c.width === 0 && c.height === 0) continue
      const texts = []
      for (const el of svg.querySelectorAll('text, rect, circle, line, polyline, path, polygon, ellipse, use')) {
        if (el.closest('defs, marker, clipPath, pattern, symbol')) continue
        const r = el.getBoundingClientRect()
        if (r.width === 0 && r.height === 0) continue
        if (r.left < c.left - tol || r.top < c.top - tol || r.right > c.right + tol || r.bottom > c.bottom + tol) {
          out.outside.push(name(el) + ' at ' + rect(r) + ' outside ' + rect(c))
        }
        if (el.tagName === 'text' && el.textContent.trim() !== '') texts.push([el, r])
      }
      out.texts += texts.length
      if (!CHECK_OVERLAPS) continue
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          const [a, ra] = texts[i], [b, rb] = texts[j]
          const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left)
          const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top)
          if (w > 0.5 && h > 0.5) out.overlaps.push(name(a) + ' and ' + name(b))
        }
      }
    }
    out.check = (PAGE_CHECK)
  } catch (e) {
    out.errors.push('the report: ' + e)
  }
  const pre = document.createElement('pre')
  pre.id = 'fencelab-report'
  pre.textContent = JSON.stringify(out)
  document.body.appendChild(pre)
})
</script>
`

// Open loads the file at path in headless Chromium and reports what the
// browser saw; check is a JavaScript expression the page is held to as
// well ("" for none: null); overlapping texts are looked for only when
// overlaps is true.
func Open(t testing.TB, bin, path, check string, overlaps bool) Report {
	t.Helper()
	if strings.HasSuffix(path, ".svg") {
		return OpenSVGs(t, bin, []string{path}, overlaps)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if i := strings.Index(strings.ToLower(page), "<head>"); i >= 0 {
		page = page[:i+len("<head>")] + errorsScript + page[i+len("<head>"):]
	} else {
		page = errorsScript + page
	}
	report := reportFor(check, overlaps)
	if i := strings.LastIndex(strings.ToLower(page), "</body>"); i >= 0 {
		page = page[:i] + report + page[i:]
	} else {
		page += report
	}
	return load(t, bin, path, page)
}

// OpenSVGs opens SVG pictures inline, one under the other, in one page
// (one Chromium for all): each is measured against its own canvas.
func OpenSVGs(t testing.TB, bin string, paths []string, overlaps bool) Report {
	t.Helper()
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><meta charset=\"utf-8\">" + errorsScript + "</head><body style=\"margin:0\">")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("<div>")
		b.Write(stripXMLDecl(data))
		b.WriteString("</div>")
	}
	b.WriteString(reportFor("", overlaps) + "</body></html>")
	return load(t, bin, strings.Join(paths, ", "), b.String())
}

// reportFor is reportScript for a page check and the overlap rule.
func reportFor(check string, overlaps bool) string {
	if check == "" {
		check = "null"
	}
	return strings.NewReplacer("CHECK_OVERLAPS", fmt.Sprint(overlaps), "PAGE_CHECK", check).Replace(reportScript)
}

// load has Chromium load page (the copy of what was at path, with the
// scripts added) and returns its report.
func load(t testing.TB, bin, path, page string) Report {
	t.Helper()
	dir := t.TempDir()
	copyPath := filepath.Join(dir, "page.html")
	if err := os.WriteFile(copyPath, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := run(t, bin, dir, copyPath)
	const open, end = `<pre id="fencelab-report">`, `</pre>`
	i := strings.LastIndex(dom, open)
	if i < 0 {
		t.Fatalf("chromium on %s: no report in the page (it did not load, or a script stopped it)", path)
	}
	body, _, ok := strings.Cut(dom[i+len(open):], end)
	if !ok {
		t.Fatalf("chromium on %s: the report is cut short", path)
	}
	var rep Report
	if err := json.Unmarshal([]byte(html.UnescapeString(body)), &rep); err != nil {
		t.Fatalf("chromium on %s: the report: %v", path, err)
	}
	return rep
}

// stripXMLDecl drops an SVG file's XML declaration, which HTML does not
// take inline.
func stripXMLDecl(svg []byte) []byte {
	if bytes.HasPrefix(svg, []byte("<?xml")) {
		if i := bytes.Index(svg, []byte("?>")); i >= 0 {
			return svg[i+2:]
		}
	}
	return svg
}

// run has Chromium load page and returns the document it dumps.
func run(t testing.TB, bin, dir, page string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	profile := filepath.Join(dir, "profile")
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+profile,
		fmt.Sprintf("--window-size=%d,%d", screenW, screenH), "--virtual-time-budget=5000",
		"--dump-dom", (&url.URL{Scheme: "file", Path: page}).String())
	// Its own process group, ended whole: Chromium starts helpers.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Start()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	err = cmd.Wait()
	// Whatever the browser left behind: only the group this test started.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("chromium: %s did not load within 90s", page)
	}
	if err != nil {
		t.Fatalf("chromium: %v: %.2000s", err, stderr.String())
	}
	return stdout.String()
}
