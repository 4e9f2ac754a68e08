# fencelab — run 'make' for the list of targets.
GO       ?= go
FENCELAB := $(GO) run ./cmd/fencelab
OUT      ?= out

.DEFAULT_GOAL := help
.PHONY: help demo test fmt-check vet tlc explore sim bench clean

help: ## print the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

test: fmt-check vet ## gofmt check, go vet, go test -race ./... (TLC tests skip without a jar)
	$(GO) test -race ./...

fmt-check: ## fail if any Go file is not gofmt-ed
	@files=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$files" ]; then echo "gofmt needed on:"; echo "$$files"; exit 1; fi

vet: ## go vet ./...
	$(GO) vet ./...

explore: ## model-check the Go implementation, every design, 2 and 3 clients; exit 1 if a verdict differs from DESIGN.md
	$(FENCELAB) explore --clients 2 --out $(OUT)/explore
	$(FENCELAB) explore --clients 3 --out $(OUT)/explore

clean: ## remove the output folder and TLC metadirs
	rm -rf $(OUT) bin
