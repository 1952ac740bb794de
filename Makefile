# StatefulControls — run `make help` for the list of targets.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
DOCC ?= $(shell command -v docc 2>/dev/null || echo /opt/swift/usr/bin/docc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
JUDY_HEADER := /usr/include/Judy.h

.DEFAULT_GOAL := help
.PHONY: help deps build test demo demo-tty web web-test bench bench-ir sanitize leakcheck fuzz c-checks coverage stress soak clients check docs clean

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

test: deps ## Build and run the test suite (the library's, then the demo's)
	$(SWIFT) test
	$(SWIFT) test --package-path $(DEMO)

DEMO := Examples/pincode-demo
WEB := Examples/pincode-web
BENCH := Benchmarks

demo: deps ## Run the terminal PIN-code demo (ARGS="--script '1357' --no-color" to script it)
	$(SWIFT) build --package-path $(DEMO) -c release --product pincode-demo
	$(DEMO)/.build/release/pincode-demo $(ARGS)

# SwiftPM names a package by its directory: a clone directory named "pincode-web" would be the same
# package as Examples/pincode-web, which then cannot find the library.
WEB_CLONE_NAME_CHECK = @if [ "$$(basename "$(CURDIR)" | tr A-Z a-z)" = pincode-web ]; then \
	  echo "make: this clone's directory is named like Examples/pincode-web, and SwiftPM identifies a package by its directory name: clone into a directory of another name"; exit 1; fi

web: deps ## Serve the web front end on 127.0.0.1:8080 and print its URL (ARGS="--port 9000", "--host ::1")
	$(WEB_CLONE_NAME_CHECK)
	$(SWIFT) build --package-path $(WEB) --product pincode-web
	$(WEB)/.build/debug/pincode-web $(ARGS)

# The committed screenshot (the README's) is refreshed by make web-test SCREENSHOT=$(WEB)/screenshot.png.
SCREENSHOT ?= $(WEB)/.build/screenshot.png

web-test: deps ## The web front end's Swift tests, then the page in headless Chromium (installed when missing) and a screenshot
	$(WEB_CLONE_NAME_CHECK)
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  echo "Installing chromium and chromium-driver"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium chromium-driver; }
	$(SWIFT) build --package-path $(WEB) --build-tests
	$(SWIFT) test --package-path $(WEB) --skip-build
	python3 $(WEB)/Tests/browser/web_test.py $(WEB)/.build/debug/pincode-web $(SCREENSHOT)

bench: deps ## Run resolver-bench in release mode (ARGS="--quick", "--scenario resolve", ...)
	$(SWIFT) build --package-path $(BENCH) -c release --product resolver-bench
	$(BENCH)/.build/release/resolver-bench --json $(BENCH)/.build/bench.json $(ARGS)

IR_LOOPS := warm-resolve-16 warm-resolve-slot-16 precomputed-16 cold-resolve-16 cold-released-resolve-16 original-16 android-16 flutter-16 \
            state-change-10000-1pct state-change-10000-100pct control-toggle-1000 \
            update-baseline-control update-baseline-hand update-baseline-hand-always form-control form-hand \
            bindings-1000-100pct-control bindings-1000-100pct-hand bindings-1000-1pct-control bindings-1000-1pct-hand \
            custom-states-8-factors custom-states-8-extended-factors custom-states-40-factors \
            custom-states-8-predicates custom-states-40-predicates
IR_ITERATIONS ?= 20000

# valgrind 3.19 cannot read the DWARF Swift emits: the binary it runs is stripped of debug info
# (symbols stay, so --toggle-collect finds bench_ir_region, the only region counted).
bench-ir: deps ## Instructions per iteration of the hot paths, under valgrind callgrind
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq valgrind; }
	$(SWIFT) build --package-path $(BENCH) -c release --product resolver-bench
	@mkdir -p .build
	strip --strip-debug -o .build/resolver-bench-ir $(BENCH)/.build/release/resolver-bench
	@echo "instructions per iteration, counted inside bench_ir_region only:"
	@for loop in $(IR_LOOPS); do \
	  n=$$(SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --toggle-collect=bench_ir_region --callgrind-out-file=.build/callgrind.$$loop.out \
	    .build/resolver-bench-ir --ir-loop $$loop --iterations $(IR_ITERATIONS) 2>/dev/null | awk '/^iterations:/ {print $$2}'); \
	  [ -n "$$n" ] || exit 1; \
	  awk -v loop=$$loop -v n=$$n '/^summary:/ {printf "  %-28s %14.1f  (%d iterations)\n", loop, $$2 / n, n}' .build/callgrind.$$loop.out; \
	done

CLANG ?= $(shell [ -x /opt/swift/usr/bin/clang ] && echo /opt/swift/usr/bin/clang || command -v clang)
CHECKS := .build/checks
# The resolver is one translation unit, CStateResolver.c, which includes its other .c files (one
# concern each; see resolver_internal.h): the checks compile that unit, as SwiftPM does.
RESOLVER_DIR := CSources/CStateResolver
RESOLVER_UNIT := $(RESOLVER_DIR)/CStateResolver.c
RESOLVER_SOURCES := $(filter-out $(RESOLVER_UNIT),$(sort $(wildcard $(RESOLVER_DIR)/*.c))) $(RESOLVER_DIR)/resolver_internal.h
RESOLVER_C := $(RESOLVER_UNIT) Tests/CResolverChecks/reference.c
CHECK_FLAGS := -std=c11 -I CSources/CStateResolver/include -I Tests/CResolverChecks
LSAN_SUPPRESSIONS := $(CURDIR)/Tests/lsan-suppressions.txt
UBSAN_RUNTIME_DIR := $(dir $(shell $(CLANG) -print-file-name=libclang_rt.ubsan_standalone-x86_64.so 2>/dev/null))
SECONDS ?= 60
STRESS_OPERATIONS ?= 1000000
SOAK_OPERATIONS ?= 2000000

sanitize: deps ## The test suite under ASan+LSan, UBSan and TSan; the C checks under ASan+UBSan
	@# The allocation-failure suite runs without leak detection: libJudy itself leaks when an
	@# allocation fails mid-insert, and that suite counts leaks exactly on its own.
	LSAN_OPTIONS=suppressions=$(LSAN_SUPPRESSIONS) \
	  $(SWIFT) test --sanitize=address --scratch-path .build-asan --skip AllocationFailureTests
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --sanitize=address --scratch-path .build-asan --filter AllocationFailureTests
	@# swiftc has no -sanitize=undefined on Linux: UBSan instruments the C targets, any report aborts.
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $(SWIFT) test --scratch-path .build-ubsan \
	  -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined \
	  -Xlinker -L$(UBSAN_RUNTIME_DIR) -Xlinker -lclang_rt.ubsan_standalone-x86_64 -Xlinker -rpath=$(UBSAN_RUNTIME_DIR)
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --sanitize=thread --scratch-path .build-tsan
	@mkdir -p $(CHECKS)
	$(CLANG) $(CHECK_FLAGS) -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld \
	  $(RESOLVER_C) Tests/CResolverChecks/leak_driver.c -lJudy -o $(CHECKS)/leak-driver-asan
	$(CHECKS)/leak-driver-asan

leakcheck: deps ## The C resolver under valgrind: no leaks, no invalid accesses
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq valgrind; }
	@mkdir -p $(CHECKS)
	cc $(CHECK_FLAGS) -O1 -gdwarf-4 -Wall -Wextra $(RESOLVER_C) Tests/CResolverChecks/leak_driver.c -lJudy -o $(CHECKS)/leak-driver
	valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 $(CHECKS)/leak-driver

fuzz: deps ## Fuzz the C resolver against the reference model for SECONDS (default 60), replaying the regressions first
	@mkdir -p $(CHECKS) .build/fuzz-corpus
	$(CLANG) $(CHECK_FLAGS) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld \
	  $(RESOLVER_C) Tests/CResolverChecks/fuzz_resolver.c -lJudy -o $(CHECKS)/fuzz-resolver
	$(CHECKS)/fuzz-resolver Tests/CResolverChecks/regressions/*
	$(CHECKS)/fuzz-resolver -max_total_time=$(SECONDS) -print_final_stats=1 \
	  -artifact_prefix=$(CHECKS)/ .build/fuzz-corpus

C_UNIT := Tests/CResolverChecks/unit_resolver.c
C_FAULT := $(RESOLVER_C) Tests/CResolverChecks/fault_driver.c Tests/CJudyFaultInjection/CJudyFaultInjection.c
FAULT_FLAGS := -I Tests/CJudyFaultInjection/include

c-checks: deps ## The C unit checks (sizes, budget, 1M states) and the allocation-failure driver, under ASan+UBSan
	@mkdir -p $(CHECKS)
	$(CLANG) $(CHECK_FLAGS) -g -O1 -Wall -Wextra -fsanitize=address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld \
	  $(C_UNIT) -lJudy -o $(CHECKS)/unit-resolver-asan
	$(CHECKS)/unit-resolver-asan
	$(CLANG) $(CHECK_FLAGS) $(FAULT_FLAGS) -g -O1 -Wall -Wextra -fsanitize=address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld \
	  $(C_FAULT) -lJudy -o $(CHECKS)/fault-driver-asan
	@# No leak detection: libJudy leaks when an allocation fails mid-insert; the driver counts leaks itself.
	ASAN_OPTIONS=detect_leaks=0 $(CHECKS)/fault-driver-asan

LLVM_PROFDATA ?= $(shell [ -x /opt/swift/usr/bin/llvm-profdata ] && echo /opt/swift/usr/bin/llvm-profdata || command -v llvm-profdata)
LLVM_COV ?= $(shell [ -x /opt/swift/usr/bin/llvm-cov ] && echo /opt/swift/usr/bin/llvm-cov || command -v llvm-cov)
COVERAGE := .build/coverage
COVERAGE_FLAGS := -g -O0 -fprofile-instr-generate -fcoverage-mapping
COVERAGE_MIN ?= 95
FUZZ_RUNS ?= 30000

coverage: deps ## Line coverage of the C resolver (its .c files and private header) by the fuzz corpus, the C drivers and the allocation-failure driver; fails below 95 %
	@rm -rf $(COVERAGE) && mkdir -p $(COVERAGE)/profiles .build/fuzz-corpus
	$(CLANG) $(CHECK_FLAGS) $(COVERAGE_FLAGS) -fsanitize=fuzzer -fuse-ld=lld $(RESOLVER_C) Tests/CResolverChecks/fuzz_resolver.c -lJudy -o $(COVERAGE)/fuzz-resolver
	$(CLANG) $(CHECK_FLAGS) $(COVERAGE_FLAGS) $(RESOLVER_C) Tests/CResolverChecks/leak_driver.c -lJudy -o $(COVERAGE)/leak-driver
	$(CLANG) $(CHECK_FLAGS) $(COVERAGE_FLAGS) $(C_UNIT) -lJudy -o $(COVERAGE)/unit-resolver
	$(CLANG) $(CHECK_FLAGS) $(FAULT_FLAGS) $(COVERAGE_FLAGS) $(C_FAULT) -lJudy -o $(COVERAGE)/fault-driver
	@# The corpus (make fuzz), the regressions, then a fixed number of fresh runs from a fixed seed.
	LLVM_PROFILE_FILE=$(COVERAGE)/profiles/fuzz-corpus.profraw $(COVERAGE)/fuzz-resolver -runs=0 .build/fuzz-corpus Tests/CResolverChecks/regressions
	@mkdir -p $(COVERAGE)/corpus
	LLVM_PROFILE_FILE=$(COVERAGE)/profiles/fuzz-runs.profraw $(COVERAGE)/fuzz-resolver -runs=$(FUZZ_RUNS) -seed=1 \
	  $(COVERAGE)/corpus Tests/CResolverChecks/regressions > $(COVERAGE)/fuzz-runs.log 2>&1 || { tail -40 $(COVERAGE)/fuzz-runs.log; exit 1; }
	LLVM_PROFILE_FILE=$(COVERAGE)/profiles/leak.profraw $(COVERAGE)/leak-driver
	LLVM_PROFILE_FILE=$(COVERAGE)/profiles/unit.profraw $(COVERAGE)/unit-resolver
	LLVM_PROFILE_FILE=$(COVERAGE)/profiles/fault.profraw $(COVERAGE)/fault-driver
	$(LLVM_PROFDATA) merge -sparse $(COVERAGE)/profiles/*.profraw -o $(COVERAGE)/resolver.profdata
	$(LLVM_COV) report $(COVERAGE)/fuzz-resolver -object $(COVERAGE)/leak-driver -object $(COVERAGE)/unit-resolver \
	  -object $(COVERAGE)/fault-driver -instr-profile=$(COVERAGE)/resolver.profdata \
	  $(RESOLVER_SOURCES) | tee $(COVERAGE)/report.txt
	$(LLVM_COV) show $(COVERAGE)/fuzz-resolver -object $(COVERAGE)/leak-driver -object $(COVERAGE)/unit-resolver \
	  -object $(COVERAGE)/fault-driver -instr-profile=$(COVERAGE)/resolver.profdata \
	  $(RESOLVER_SOURCES) > $(COVERAGE)/resolver.txt
	@awk -v min=$(COVERAGE_MIN) '/^TOTAL/ { lines = $$10; sub(/%/, "", lines); found = 1; \
	  printf "C resolver line coverage (its files together): %s %% (minimum %s %%; uncovered lines: $(COVERAGE)/resolver.txt)\n", lines, min; \
	  exit (lines + 0 < min) } END { if (!found) exit 1 }' $(COVERAGE)/report.txt

stress: deps ## A million random Control API operations against a model (release build)
	STRESS_OPERATIONS=$(STRESS_OPERATIONS) $(SWIFT) test -c release -Xswiftc -enable-testing \
	  --scratch-path .build-release-tests --filter StressTests

soak: deps ## Two million mixed operations on one resolver (release): memory and time per operation stay flat
	SOAK_OPERATIONS=$(SOAK_OPERATIONS) $(SWIFT) test -c release -Xswiftc -enable-testing \
	  --scratch-path .build-release-tests --filter SoakTests

demo-tty: deps ## Drive the interactive demo in a real terminal (tmux): keys, redraws, Ctrl-C restores the terminal
	@command -v tmux >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq tmux; }
	$(SWIFT) build --package-path $(DEMO) --product pincode-demo
	$(DEMO)/Tests/Interactive/demo-in-tmux.sh $(DEMO)/.build/debug/pincode-demo

clients: deps ## Throwaway client packages: the engine alone off the main thread; a client resolves no other package
	SWIFT=$(SWIFT) Tests/Clients/check-clients.sh

check: clients leakcheck fuzz c-checks coverage stress soak demo-tty web-test sanitize ## Everything beyond make test: clients, leaks, fuzzing, C checks and coverage, stress, soak, the terminal demo, the web front end in a browser, sanitizers

# One archive per module with a catalog (Sources/<Module>/<Name>.docc), each converted from that
# module's symbol graphs alone: DocC documents one module per archive, and given two modules' graphs
# it picks one at random. StatefulControls' graph holds the symbols it re-exports from
# StatefulEngine, so its catalog links to them directly. The graphs come from a fresh build of
# their own (.build/docs-build): -emit-symbol-graph would make the default build recompile
# everything, and an incremental build would keep a stale copy of the re-exported symbols' docs
# (a doc comment edit in the engine does not recompile the controls).
DOCS_CATALOGS := $(sort $(wildcard Sources/*/*.docc))
DOCS_MODULES := $(foreach catalog,$(DOCS_CATALOGS),$(notdir $(patsubst %/,%,$(dir $(catalog)))))
DOCS_BUILD := .build/docs-build
DOCS_GRAPHS := $(DOCS_BUILD)/symbol-graphs

docs: deps ## Build the DocC documentation, one archive per module, into .build/docs/<module>
	@rm -rf $(DOCS_BUILD); for module in $(DOCS_MODULES); do \
	  echo "$(SWIFT) build --target $$module (symbol graphs into $(DOCS_GRAPHS))"; \
	  $(SWIFT) build --scratch-path $(DOCS_BUILD) --target $$module -Xswiftc -emit-symbol-graph \
	    -Xswiftc -emit-symbol-graph-dir -Xswiftc $(CURDIR)/$(DOCS_GRAPHS) || exit 1; \
	done
	@rm -rf .build/docs && mkdir -p .build/docs; status=0; for catalog in $(DOCS_CATALOGS); do \
	  module=$$(basename $$(dirname $$catalog)); graphs=$(DOCS_BUILD)/graphs-of/$$module; \
	  rm -rf $$graphs && mkdir -p $$graphs && \
	  cp $(DOCS_GRAPHS)/$$module.symbols.json $$graphs/ && \
	  { cp $(DOCS_GRAPHS)/$$module@*.symbols.json $$graphs/ 2>/dev/null || true; } && \
	  echo "docc convert $$catalog -> .build/docs/$$module" && \
	  $(DOCC) convert $$catalog --additional-symbol-graph-dir $$graphs \
	    --fallback-display-name $$module --fallback-bundle-identifier org.statefulcontrols.$$module \
	    --hosting-base-path $$module --output-path .build/docs/$$module --warnings-as-errors || status=1; \
	done; \
	[ $$status = 0 ] || { echo "make docs: DocC reported problems (above)"; exit 1; }; \
	echo "Serve with: python3 -m http.server -d .build/docs, then open"; \
	for module in $(DOCS_MODULES); do \
	  echo "  http://localhost:8000/$$module/documentation/$$(echo $$module | tr A-Z a-z)"; \
	done

clean: ## Remove build products
	rm -rf .build .build-asan .build-ubsan .build-tsan .build-release-tests $(DEMO)/.build $(WEB)/.build $(BENCH)/.build
