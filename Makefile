# fencelab — run 'make' for the list of targets.
GO       ?= go
FENCELAB := $(GO) run ./cmd/fencelab
OUT      ?= out

.DEFAULT_GOAL := help
.PHONY: help install demo test test-deps browser-deps fmt-check vet generate cli-docs tlc tlc-pin conform explore sim sim-long bench readme fixtures golden clean live live-deps live-readme

help: ## print the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# Every target that runs fencelab builds it first: 'go run' reports every
# non-zero exit as 1, and fencelab's exit codes mean something (1 an
# unexpected verdict, 2 bad input or a missing tool, 128+n a signal).
# GNU make itself exits 2 whenever a recipe fails, whatever the recipe's
# code, so a failing target prints fencelab's own code as its last line:
#   make: fencelab tlc exited with code 1 (an unexpected verdict) ...
# For the code itself, run bin/fencelab directly (README: Exit codes).
BIN ?= bin/fencelab
$(BIN): FORCE
	@$(GO) build -o $(BIN) ./cmd/fencelab
FORCE:

# The live harness is a module of its own (live/go.mod): the client
# libraries and the etcd server never weigh on the main module's build.
LIVE_BIN ?= bin/fencelab-live
$(LIVE_BIN): FORCE
	@cd live && $(GO) build -o $(abspath $(LIVE_BIN)) ./cmd/fencelab-live

# $(call fencelab,ARGS): run $(BIN) ARGS; on failure, say fencelab's exit
# code and what it means, then fail with that code.
fencelab = $(BIN) $(1) || { code=$$?; case $$code in 1) why="an unexpected verdict or a failed check";; 2) why="bad input or a missing tool";; *) why="stopped or crashed";; esac; \
	echo "make: fencelab $(firstword $(1)) exited with code $$code ($$why); make reports every failure as 2, run $(BIN) $(firstword $(1)) ... for the code itself" >&2; exit $$code; }

# Where make install puts fencelab: Go's own bin folder unless BINDIR is given.
BINDIR ?= $(shell $(GO) env GOPATH)/bin

install: $(BIN) ## put fencelab on your PATH (BINDIR=<dir>, default $(go env GOPATH)/bin), so the commands fencelab prints work as written
	@mkdir -p "$(BINDIR)" && cp $(BIN) "$(BINDIR)/fencelab"
	@echo "installed $(BINDIR)/fencelab"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "$(BINDIR) is not on your PATH: add it, e.g. export PATH=\"\$$PATH:$(BINDIR)\"";; esac

# make demo reads TLC's results, and the live part's, from the cache when
# nothing they depend on changed, and says "(cached)"; NOCACHE=1 reruns all.
# The live part runs alongside fencelab demo: its scripted runs spend most
# of their time waiting (leases expiring, pauses), little of it on the CPU,
# while the demo keeps both cores busy; its output is printed after the
# demo's. Then one closing block, a line per part: fencelab demo's own
# (out/demo/summary.txt), and the live part's, from its exit code.
demo: $(BIN) $(LIVE_BIN) ## the whole story: explorer, simulator (NPC table too) and TLC on every model, DESIGN.md's table three ways; then the live matrix's embedded-etcd part (nothing to install); a closing summary, a line per part; unchanged parts are read from the cache, marked (cached); NOCACHE=1 reruns them
	@rm -f $(OUT)/demo/summary.txt; log=$$(mktemp) && errlog=$$(mktemp) || exit 2; NOCACHE="$(NOCACHE)" sh scripts/demo-live.sh $(LIVE_BIN) $(OUT)/live >$$log 2>$$errlog & pid=$$!; \
	( $(call fencelab,demo --out $(OUT) $(if $(NOCACHE),--no-cache)) ); code=$$?; \
	wait $$pid; live=$$?; if [ $$code -ge 128 ]; then rm -f $$log $$errlog; exit $$code; fi; \
	echo; echo "make demo: the live part, real embedded etcd (fencelab-live matrix --service etcd --runs 1; make live runs every service), run alongside the above:"; \
	cat $$errlog >&2; cat $$log; rm -f $$log $$errlog; \
	if [ $$live -ne 0 ]; then echo "make: fencelab-live matrix exited with code $$live (1 an unexpected verdict, 2 a harness error, 130/143 a signal)" >&2; fi; \
	echo; echo "━━ make demo: summary ━━"; echo; \
	if [ -f $(OUT)/demo/summary.txt ]; then cat $(OUT)/demo/summary.txt; else echo "  fencelab demo stopped before its summary (exit code $$code): see above"; fi; \
	case $$live in 0) what="every verdict as the models expect";; 1) what="✗ a verdict the models do not expect (UNEXPECTED above)";; *) what="✗ exited $$live: a harness error or a signal (see above)";; esac; \
	printf '  %-12s %s\n' live "embedded etcd, every setup under each of its faults, 1 run each: $$what"; \
	if [ $$code -ne 0 ]; then exit $$code; fi; exit $$live

# make test runs the tests in two passes (DESIGN.md, "Tests: three
# passes"): under the race detector, the tests of the code that runs
# goroutines (tests of deterministic work skip there, saying where they
# run); then without it, with -short, every test at reduced size (the
# TLC-backed ones skip there: the first pass ran them). go test ./...
# runs every test at full size.
# The race detector's runtime sleeps a second before a test binary exits
# (GORACE atexit_sleep_ms, default 1000) so that goroutines still running
# can report; every test here waits for the goroutines it starts, and
# fifteen packages' seconds are a sixth of the first pass's wall time. A
# GORACE of your own comes after, so its atexit_sleep_ms wins.
# Each pass bounds every package's test binary (go test -timeout, whose
# default of 10 minutes the TLC-backed packages ran into on a loaded
# 2-core machine), and the closing lines name every package that failed,
# read from go test's own FAIL lines, in any pass.
# go test ./... prints the packages' lines in the packages' order, so one
# slow package holds back every line after it (11 silent minutes); each
# pass runs go test -json instead, whose events come as they happen,
# through gotestsum (gotest.tools/gotestsum, a tool of the main module
# pinned in go.mod, built once per make test: the live pass runs in live/,
# another module). Its standard-quiet format prints go test's own lines
# without -v as each package ends: its ok or FAIL line, build errors, what
# a failed package's binary printed outside its tests; nothing of a test
# that passed. A failed test's output (its log, a panic, a timeout's
# stacks) comes in the summary gotestsum prints at the end of the pass,
# which ends with the pass's count of tests; it does not list the skipped
# tests (the race pass skips hundreds by design). gotestsum exits with go
# test's own code (128+n if it was stopped by signal n).
# TestPassLines (internal/testbuild) runs a pass's form, GOTEST with these
# flags, on a fixture module.
GOTESTSUM_FLAGS := --format standard-quiet --hide-summary=skipped --no-color --raw-command
GOTEST = $$tools/gotestsum $(GOTESTSUM_FLAGS) -- $(GO) test -json
RACE_TIMEOUT  ?= 25m
SHORT_TIMEOUT ?= 10m
LIVE_TIMEOUT  ?= 10m
test: fmt-check vet test-deps ## gofmt check, go vet, go test -race ./... then go test -short ./..., then the live module's tests under -race (TLC tests skip without a jar, live and browser tests without their Debian packages; the last lines say how many ran and which packages failed)
	@summary=$$(mktemp) && log=$$(mktemp) && codes=$$(mktemp) && tools=$$(mktemp -d) || exit 2; \
	$(GO) build -o $$tools/gotestsum gotest.tools/gotestsum || { code=$$?; rm -rf $$summary $$log $$codes $$tools; exit $$code; }; \
	echo "$(GO) test -race -timeout $(RACE_TIMEOUT) ./..."; \
	{ FENCELAB_TEST_SUMMARY=$$summary GORACE="atexit_sleep_ms=0 $$GORACE" $(GOTEST) -race -timeout $(RACE_TIMEOUT) ./... 2>&1; echo "race $$?" >> $$codes; } | tee $$log; \
	echo "$(GO) test -short -timeout $(SHORT_TIMEOUT) ./..."; \
	{ FENCELAB_TEST_SUMMARY=$$summary $(GOTEST) -short -timeout $(SHORT_TIMEOUT) ./... 2>&1; echo "short $$?" >> $$codes; } | tee -a $$log; \
	echo "cd live && $(GO) test -race -timeout $(LIVE_TIMEOUT) ./..."; \
	{ cd live && GORACE="atexit_sleep_ms=0 $$GORACE" $(GOTEST) -race -timeout $(LIVE_TIMEOUT) ./... 2>&1; echo "live $$?" >> $$codes; } | tee -a $$log; \
	race=$$(awk '$$1 == "race" {print $$2}' $$codes); short=$$(awk '$$1 == "short" {print $$2}' $$codes); live=$$(awk '$$1 == "live" {print $$2}' $$codes); \
	echo; if [ -s $$summary ]; then sort $$summary; else echo "TLC-backed checks: no summary (the tlc and cmd/fencelab tests did not run)"; fi; \
	failed=$$(awk '/^FAIL[ \t]+[^ \t]+/ && $$2 != "" {print $$2}' $$log | sort -u | tr '\n' ' '); \
	if [ -n "$$failed" ]; then echo "make test: FAILED packages: $$failed"; \
	elif [ "$$race" != 0 ] || [ "$$short" != 0 ] || [ "$$live" != 0 ]; then echo "make test: FAILED (go test exited $$race, $$short and $$live; see above)"; \
	else echo "make test: every package passed"; fi; \
	rm -rf $$summary $$log $$codes $$tools; for code in $$race $$short $$live; do if [ "$$code" != 0 ]; then exit $$code; fi; done

# The Debian packages the tests use beyond Go and Java: the services the
# live harness starts (and cc, for its clock shim), and headless Chromium
# for the browser tests of the pages and pictures. Without them those
# tests skip, each with one line naming the package.
LIVE_PACKAGES    := redis-server zookeeper mariadb-server postgresql pgbouncer gcc python3-redis python3-kazoo nodejs
# The Node examples' npm packages (live/examples/node, pinned by its
# package-lock.json), installed by npm ci when node_modules is older.
LIVE_NODE        := live/examples/node
BROWSER_PACKAGES := chromium

# $(call apt_install,TARGET,PACKAGES,CODE): install those of PACKAGES that
# are missing (apt-get, as root); nothing to do when all are there. Not
# root: one line saying what is missing, then exit CODE.
apt_install = missing=""; for p in $(2); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" -ne 0 ]; then echo "$(1): missing$$missing; installing them needs root (sudo make $(1)); the tests that need them skip" >&2; exit $(3); fi; \
	echo "$(1): installing$$missing"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null

test-deps: ## install what the tests need beyond Go and Java (as root, only what is missing: redis-server zookeeper mariadb-server postgresql pgbouncer gcc python3-redis python3-kazoo nodejs chromium, then the Node examples' npm ci); as another user, say what is missing and go on; then build kube-apiserver into fencelab's cache if it is not there
	@$(call apt_install,test-deps,$(LIVE_PACKAGES) $(BROWSER_PACKAGES),0)
	@$(call npm_ci,test-deps,0)
	@$(KUBE_APISERVER_BUILD)

live-deps: ## install the live harness's services and the client libraries of its examples (apt-get, as root, only what is missing: redis-server zookeeper mariadb-server postgresql pgbouncer gcc python3-redis python3-kazoo nodejs; then npm ci in live/examples/node); build kube-apiserver (k8s.io/kubernetes, pinned in live/kube-apiserver/go.mod) into fencelab's cache if it is not there
	@$(call apt_install,live-deps,$(LIVE_PACKAGES),2)
	@$(call npm_ci,live-deps,2)
	@$(KUBE_APISERVER_BUILD)

# The Kubernetes setups' kube-apiserver has no Debian package: it is built
# from the k8s.io/kubernetes module live/kube-apiserver/go.mod pins (its
# tool, the release's own dependency versions) into fencelab's cache
# ($FENCELAB_CACHE, else fencelab in the user's cache folder), once: about
# 2,100 packages, minutes of a cold build; a build already there (its sum
# checked) is kept.
KUBE_APISERVER_BUILD = cd live && $(GO) run ./cmd/build-kube-apiserver --go $(GO) >/dev/null

# $(call npm_ci,TARGET,CODE): npm ci in $(LIVE_NODE) when its node_modules
# is missing or older than its package-lock.json. npm is installed from
# Debian only where there is none (a nodejs from elsewhere brings its own,
# and conflicts with Debian's npm); without npm, one line and exit CODE.
npm_ci = if [ ! -f $(LIVE_NODE)/package-lock.json ]; then exit 0; fi; \
	if [ -f $(LIVE_NODE)/node_modules/.package-lock.json ] && [ $(LIVE_NODE)/node_modules/.package-lock.json -nt $(LIVE_NODE)/package-lock.json ]; then exit 0; fi; \
	if ! command -v npm >/dev/null && [ "$$(id -u)" -eq 0 ]; then echo "$(1): installing npm"; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; fi; \
	if ! command -v npm >/dev/null; then echo "$(1): npm missing (Debian's npm; a nodejs from elsewhere brings its own); the Node examples' tests skip" >&2; exit $(2); fi; \
	echo "$(1): npm ci in $(LIVE_NODE)"; cd $(LIVE_NODE) && npm ci --no-audit --no-fund --loglevel=error

browser-deps: ## install headless Chromium (Debian's chromium, as root, if missing) for the browser tests of the pages and pictures
	@$(call apt_install,browser-deps,$(BROWSER_PACKAGES),2)

fmt-check: ## fail if any Go file is not gofmt-ed
	@files=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$files" ]; then echo "gofmt needed on:"; echo "$$files"; exit 1; fi

vet: ## go vet ./... in the main module and in live/
	$(GO) vet ./...
	cd live && $(GO) vet ./...

generate: ## go generate ./...: rewrite the generated String methods (stringer, pinned in go.mod), specs/*.cfg and specs/models.json (cmd/specgen, from impl/row_*.go) and docs/cli.md
	$(GO) generate ./...

cli-docs: ## rewrite docs/cli.md, the CLI reference, from the commands' own help (fencelab help --markdown; TestCLIReference fails when it is stale)
	$(GO) generate ./cmd/fencelab

tlc: $(BIN) ## run TLC on every model in specs/models.json (MODEL=<name> for one; offline: TLA2TOOLS_JAR=/path/to/tla2tools.jar)
	@$(call fencelab,tlc --out $(OUT)/tlc $(if $(MODEL),--model $(MODEL)) $(if $(NOCACHE),--no-cache))

tlc-pin: ## after make tlc (MODEL=<name> for one): pin what TLC found (ok models' distinct state counts; each invariant violation's counterexample length and the distinct states at its stop) in testdata/pins/<design>.golden, then regenerate specs/models.json
	$(GO) run ./cmd/specgen -record $(OUT)/tlc

conform: $(BIN) ## Go runs (random walks, explorer counterexamples within 1,000,000 states a search, 250,000 with 3 clients, simulator runs) checked against the specs by TLC, and TLC's counterexamples replayed in Go, from the committed outputs where specs and cfgs are unchanged (WALKS=<n> per configuration, default 100; NOCACHE=1 reruns TLC for all; needs the jar; 6 min of CPU, 5.1 min of wall time on 2 cores at load 2-5 with an empty TLC cache, 17.5 min at load 15-22: docs/conformance.md)
	@$(call fencelab,conform --out $(OUT)/conform --fixtures conform/testdata/replay $(if $(WALKS),--walks $(WALKS)) $(if $(NOCACHE),--no-cache))

sim: $(BIN) ## simulate every design under NPC faults, then the NPC table (RUNS=<n> runs per design, default 1000)
	@$(call fencelab,sim --out $(OUT)/sim $(if $(RUNS),--runs $(RUNS)))
	@$(call fencelab,sim --npc $(if $(RUNS),--runs $(RUNS)))

sim-long: ## the 100,000-run test: design all never loses an update under default faults
	FENCELAB_LONG=1 $(GO) test ./sim -run TestManyRunsAllStaysSafe -v -timeout 30m

explore: $(BIN) ## model-check the Go implementation, every design, 2 and 3 clients; fencelab exits 1 if a verdict differs from DESIGN.md
	@$(call fencelab,explore --clients 2 --out $(OUT)/explore)
	@$(call fencelab,explore --clients 3 --out $(OUT)/explore)

bench: $(BIN) ## Go benchmarks of the explorer, simulator and Porcupine checks (benchstat format, COUNT=<n>), then TLC single-threaded if a jar is found
	@mkdir -p $(OUT)
	$(GO) test -run '^$$' -bench . -benchmem -count $(or $(COUNT),1) ./sim/... ./explore/... ./linearizability/... | tee $(OUT)/bench.txt
	@echo; echo "TLC, one worker, on DistLockFencing_all_3c, the explorer's 3-client symmetric model (75,272 states both; compare its distinct states/s with BenchmarkExplore's states/s):"
	@$(BIN) tlc --workers 1 --model DistLockFencing_all_3c --out $(OUT)/tlc-bench || echo "(TLC not run: see the line above)"

readme: $(BIN) ## regenerate the full verdict table (docs/matrix.md), the README's picture of it (docs/img/matrix.svg) and its TLC walkthrough (from a full fencelab demo run: needs TLC)
	@mkdir -p $(OUT) && $(BIN) demo --out $(OUT) --update-readme README.md > $(OUT)/demo.txt || { code=$$?; cat $(OUT)/demo.txt; echo "make: fencelab demo exited with code $$code" >&2; exit $$code; }
	cp $(OUT)/tlc/DistLock_2c_AtMostOneClientHoldLock/tlc.out tlc/testdata/tool_DistLock_2c_AtMostOneClientHoldLock.out
	$(GO) test ./cmd/fencelab -run 'TestREADMEWalkthrough' -count 1 -update

# The packages whose tests import internal/golden: each declares -update
# (go test ./... -update would stop at a package without the flag).
GOLDEN_PACKAGES = $(shell $(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | awk '$$1 !~ /internal\/golden$$/ && / github.com\/fencelab\/fencelab\/internal\/golden( |$$)/ {print $$1}')

golden: ## rewrite the pinned figures (testdata/pins/<row>.golden) and the rendered goldens at full size, to review as a diff (TLC's with TLA2TOOLS_JAR set; the replay's TLC outputs: make fixtures)
	$(GO) test -count 1 -timeout 60m $(GOLDEN_PACKAGES) -update -skip TestUpdateReplayOutputs
	cd live && $(GO) test -count 1 . -update

fixtures: ## after a change of the specs or of Go behaviour: rewrite the TLC counterexamples committed for the replay in Go (conform/testdata/replay) and the walks TLC validated (conform/testdata/walks; needs TLC)
	$(GO) test ./conform -run 'TestUpdateReplayOutputs|TestValidatedWalks$$' -count 1 -timeout 60m -v -update


live: $(LIVE_BIN) ## the live scripted matrix: every live setup under each of its classic faults, RUNS=<n> runs each (default 3), the checked client and, where they part, the unchecked one (CLIENT=checked|unchecked|both, default both), PARALLEL=<n> campaigns at once (default fencelab-live's, 4), failing runs in $(OUT)/live; a missing service is skipped with one line (make live-deps installs them)
	@$(LIVE_BIN) matrix --runs $(or $(RUNS),3) --client $(or $(CLIENT),both) $(if $(PARALLEL),--parallel $(PARALLEL)) --out $(OUT)/live || { code=$$?; echo "make: fencelab-live matrix exited with code $$code (1 an unexpected verdict, a disagreement with the model or more than 5% of campaigns inconclusive, 2 a missing service or a harness error, 130/143 a signal)" >&2; exit $$code; }

live-readme: $(LIVE_BIN) ## write README.md's live grid and docs/live.md's per-property block from the last make live's $(OUT)/live (and copy its failing runs' small files under docs/live), then redraw the README's picture, whose live marks docs/live.md holds
	@$(LIVE_BIN) readme --out $(OUT)/live README.md
	$(GO) test ./cmd/fencelab -run 'TestREADMEMatrixPicture' -count 1 -update

clean: ## remove the output folder, bin/ and TLC's metadirs (states/ where scripts/tlc.sh or TLC by hand left them)
	rm -rf $(OUT) bin states specs/states
