# StatefulControls — run `make help` for the list of targets.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
DOCC ?= $(shell command -v docc 2>/dev/null || echo /opt/swift/usr/bin/docc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
JUDY_HEADER := /usr/include/Judy.h

.DEFAULT_GOAL := help
.PHONY: help deps build test demo bench bench-ir sanitize docs clean

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

bench: deps ## Run resolver-bench in release mode (ARGS="--quick", "--scenario resolve", ...)
	$(SWIFT) build -c release --product resolver-bench
	.build/release/resolver-bench --json .build/bench.json $(ARGS)

IR_LOOPS := warm-resolve-16 cold-resolve-16 cold-released-resolve-16 original-16 android-16 flutter-16 \
            state-change-10000-1pct state-change-10000-100pct control-toggle-1000
IR_ITERATIONS ?= 20000

# valgrind 3.19 cannot read the DWARF Swift emits: the binary it runs is stripped of debug info
# (symbols stay, so --toggle-collect finds bench_ir_region, the only region counted).
bench-ir: deps ## Instructions per iteration of the hot paths, under valgrind callgrind
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq valgrind; }
	$(SWIFT) build -c release --product resolver-bench
	strip --strip-debug -o .build/resolver-bench-ir .build/release/resolver-bench
	@echo "instructions per iteration, counted inside bench_ir_region only:"
	@for loop in $(IR_LOOPS); do \
	  n=$$(SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --toggle-collect=bench_ir_region --callgrind-out-file=.build/callgrind.$$loop.out \
	    .build/resolver-bench-ir --ir-loop $$loop --iterations $(IR_ITERATIONS) 2>/dev/null | awk '/^iterations:/ {print $$2}'); \
	  [ -n "$$n" ] || exit 1; \
	  awk -v loop=$$loop -v n=$$n '/^summary:/ {printf "  %-28s %14.1f  (%d iterations)\n", loop, $$2 / n, n}' .build/callgrind.$$loop.out; \
	done

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
