# StatefulControls — run `make help` for the list of targets.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
DOCC ?= $(shell command -v docc 2>/dev/null || echo /opt/swift/usr/bin/docc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
JUDY_HEADER := /usr/include/Judy.h

.DEFAULT_GOAL := help
.PHONY: help deps build test demo bench sanitize docs clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*## "} {printf "  make %-10s %s\n", $$1, $$2}'

deps: ## Install libjudy-dev with apt-get when Judy.h is missing
	@if [ ! -f $(JUDY_HEADER) ]; then \
	  echo "Installing libjudy-dev"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libjudy-dev; \
	fi

build: deps ## Build the package (debug)
	$(SWIFT) build

test: deps ## Build and run the test suite
	$(SWIFT) test

demo: deps ## Run the terminal PIN-code demo (ARGS="--script '1357' --no-color" to script it)
	$(SWIFT) build -c release --product pincode-demo
	.build/release/pincode-demo $(ARGS)

bench: deps ## Run resolver-bench in release mode
	@echo "make bench: not yet (resolver-bench comes with issue 6)"

sanitize: deps ## Run the tests under the sanitizers
	@echo "make sanitize: not yet (comes with issue 8)"

docs: deps ## Build the DocC documentation into .build/docs
	$(SWIFT) build --target StatefulControls -Xswiftc -emit-symbol-graph \
	  -Xswiftc -emit-symbol-graph-dir -Xswiftc $(CURDIR)/.build/symbol-graphs
	$(DOCC) convert Sources/StatefulControls/StatefulControls.docc \
	  --additional-symbol-graph-dir .build/symbol-graphs \
	  --fallback-display-name StatefulControls --fallback-bundle-identifier org.statefulcontrols \
	  --output-path .build/docs --warnings-as-errors

clean: ## Remove build products
	rm -rf .build
