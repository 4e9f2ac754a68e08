# fencelab — run 'make' for the list of targets.
GO       ?= go
FENCELAB := $(GO) run ./cmd/fencelab
OUT      ?= out

.DEFAULT_GOAL := help
.PHONY: help install demo test fmt-check vet generate tlc explore sim sim-long bench readme clean

help: ## print the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# Every target that runs fencelab builds it first: 'go run' reports every
# non-zero exit as 1, and fencelab's exit codes mean something (1 an
# unexpected verdict, 2 bad input or a missing tool).
bin/fencelab: FORCE
	@$(GO) build -o bin/fencelab ./cmd/fencelab
FORCE:

# Where make install puts fencelab: Go's own bin folder unless BINDIR is given.
BINDIR ?= $(shell $(GO) env GOPATH)/bin

install: bin/fencelab ## put fencelab on your PATH (BINDIR=<dir>, default $(go env GOPATH)/bin), so the commands fencelab prints work as written
	@mkdir -p "$(BINDIR)" && cp bin/fencelab "$(BINDIR)/fencelab"
	@echo "installed $(BINDIR)/fencelab"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "$(BINDIR) is not on your PATH: add it, e.g. export PATH=\"\$$PATH:$(BINDIR)\"";; esac

demo: bin/fencelab ## the whole story: explorer, simulator (NPC table too) and TLC on every model, then DESIGN.md's table three ways
	@bin/fencelab demo --out $(OUT)

test: fmt-check vet ## gofmt check, go vet, go test -race ./... (TLC tests skip without a jar)
	$(GO) test -race ./...

fmt-check: ## fail if any Go file is not gofmt-ed
	@files=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$files" ]; then echo "gofmt needed on:"; echo "$$files"; exit 1; fi

vet: ## go vet ./...
	$(GO) vet ./...

generate: ## go generate ./...: rewrite the generated String methods (stringer, pinned in go.mod)
	$(GO) generate ./...

tlc: bin/fencelab ## run TLC on every model in specs/models.json (MODEL=<name> for one; offline: TLA2TOOLS_JAR=/path/to/tla2tools.jar)
	@bin/fencelab tlc --out $(OUT)/tlc $(if $(MODEL),--model $(MODEL))

sim: bin/fencelab ## simulate every design under NPC faults, then the NPC table (RUNS=<n> runs per design, default 1000)
	@bin/fencelab sim --out $(OUT)/sim $(if $(RUNS),--runs $(RUNS))
	@bin/fencelab sim --npc $(if $(RUNS),--runs $(RUNS))

sim-long: ## the 100,000-run test: design all never loses an update under default faults
	FENCELAB_LONG=1 $(GO) test ./sim -run TestManyRunsAllStaysSafe -v -timeout 30m

explore: bin/fencelab ## model-check the Go implementation, every design, 2 and 3 clients; exit 1 if a verdict differs from DESIGN.md
	@bin/fencelab explore --clients 2 --out $(OUT)/explore
	@bin/fencelab explore --clients 3 --out $(OUT)/explore

bench: bin/fencelab ## Go benchmarks of the explorer, simulator and Porcupine checks (benchstat format, COUNT=<n>), then TLC single-threaded if a jar is found
	@mkdir -p $(OUT)
	$(GO) test -run '^$$' -bench . -benchmem -count $(or $(COUNT),1) ./sim/... ./explore/... ./linearizability/... | tee $(OUT)/bench.txt
	@echo; echo "TLC, one worker, on the largest model (compare its distinct states/s with BenchmarkExplore's states/s):"
	@bin/fencelab tlc --workers 1 --model DistLockFencing_all_4c --out $(OUT)/tlc-bench || echo "(TLC not run: see the line above)"

readme: bin/fencelab ## regenerate README.md's verdict table (from a full fencelab demo run: needs TLC) and CLI reference
	@mkdir -p $(OUT) && bin/fencelab demo --out $(OUT) --update-readme README.md > $(OUT)/demo.txt || { cat $(OUT)/demo.txt; exit 1; }
	FENCELAB_UPDATE_README=1 $(GO) test ./cmd/fencelab -run TestREADMECLIReference -count 1

clean: ## remove the output folder and TLC metadirs
	rm -rf $(OUT) bin
