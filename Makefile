# StatefulControls — `make help` lists the targets. Recipes longer than a few lines are in scripts/.

# ---------------------------------------------------------------------------------------------
# Variables
# ---------------------------------------------------------------------------------------------

# Tools: the toolchain's, or what is on PATH.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
DOCC ?= $(shell command -v docc 2>/dev/null || echo /opt/swift/usr/bin/docc)
CLANG ?= $(shell [ -x /opt/swift/usr/bin/clang ] && echo /opt/swift/usr/bin/clang || command -v clang)
LLVM_PROFDATA ?= $(shell [ -x /opt/swift/usr/bin/llvm-profdata ] && echo /opt/swift/usr/bin/llvm-profdata || command -v llvm-profdata)
LLVM_COV ?= $(shell [ -x /opt/swift/usr/bin/llvm-cov ] && echo /opt/swift/usr/bin/llvm-cov || command -v llvm-cov)
# Installs a Debian package when what it provides (a command, or a file) is missing.
ENSURE := scripts/ensure-package.sh

# The packages beside the library.
DEMO := Examples/pincode-demo
WEB := Examples/pincode-web
BENCH := Benchmarks
# make bench's charts (scripts/bench-charts.py) of its run and of the last make bench-ir run's
# counts: drawn under .build (any run, quick ones too); the committed ones, shown in
# BENCHMARKS.md, are redrawn by make bench-charts only.
BENCH_JSON := $(BENCH)/.build/bench.json
BENCH_IR_TSV := .build/bench-ir.tsv
BENCH_CHARTS := .build/bench
COMMITTED_CHARTS := docs/bench
# The committed screenshot (the README's) is refreshed by make web-test SCREENSHOT=$(WEB)/screenshot.png.
SCREENSHOT ?= $(WEB)/.build/screenshot.png

# The test suites optimised (stress, soak and the portable access's release runs share the build).
RELEASE_TESTS := -c release -Xswiftc -enable-testing --scratch-path .build-release-tests

# The portable property access (README, "Where it runs"): forced at run time by the environment
# variable, or the direct access compiled out by the gate's flag (Swift and C alike), which
# leaves none of these symbols in the binary.
PORTABLE_ONLY := -Xswiftc -DSTATEFULCONTROLS_PORTABLE_ONLY -Xcc -DSTATEFULCONTROLS_PORTABLE_ONLY
DIRECT_ACCESS_SYMBOLS := swift_isDeallocating|_swift_getSwiftClassInstanceExtents|swiftrt_call_key_path_getter|KeyPathComponent|DirectPropertyWriter

# The C checks: the resolver built outside SwiftPM with a reference model beside it. The resolver
# is one translation unit, CStateResolver.c, which includes its other .c files (one concern each;
# see ARCHITECTURE.md): the checks compile that unit, as SwiftPM does, and coverage reports on the
# files it includes and the private headers (their inline helpers).
CHECKS := .build/checks
RESOLVER_DIR := CSources/CStateResolver
RESOLVER_UNIT := $(RESOLVER_DIR)/CStateResolver.c
RESOLVER_SOURCES := $(filter-out $(RESOLVER_UNIT),$(sort $(wildcard $(RESOLVER_DIR)/*.c))) $(sort $(wildcard $(RESOLVER_DIR)/*.h))
RESOLVER_C := $(RESOLVER_UNIT) Tests/CResolverChecks/reference.c
CHECK_FLAGS := -std=c11 -I CSources/CStateResolver/include -I Tests/CResolverChecks
C_UNIT := Tests/CResolverChecks/unit_resolver.c
C_FAULT := $(RESOLVER_C) Tests/CResolverChecks/fault_driver.c Tests/CJudyFaultInjection/CJudyFaultInjection.c
FAULT_FLAGS := -I Tests/CJudyFaultInjection/include

# Sanitizers: one definition each for C (clang) and Swift (the test suite).
C_SANITIZERS := -g -O1 -Wall -Wextra -fsanitize=address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld
LSAN := LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt
UBSAN_RUNTIME_DIR := $(dir $(shell $(CLANG) -print-file-name=libclang_rt.ubsan_standalone-x86_64.so 2>/dev/null))
SWIFT_UBSAN := -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined \
  -Xlinker -L$(UBSAN_RUNTIME_DIR) -Xlinker -lclang_rt.ubsan_standalone-x86_64 -Xlinker -rpath=$(UBSAN_RUNTIME_DIR)

# How long and how much.
SECONDS ?= 60
STRESS_OPERATIONS ?= 1000000
SOAK_OPERATIONS ?= 2000000
COVERAGE_MIN ?= 95
FUZZ_RUNS ?= 30000

# make web-soak: the WebSockets opened and closed against the release web server, half of them
# visits (the release check's run: CONNECTIONS=100000, BENCHMARKS.md), and its client's
# environment (websocket-client from PyPI).
CONNECTIONS ?= 10000
SOAK_VENV := $(WEB)/.build/soak-venv

# The Swift sources swift format formats and checks (.swift-format; make format, make lint).
FORMATTED := Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Sources \
             $(DEMO)/Package.swift $(DEMO)/Sources $(DEMO)/Tests $(WEB)/Package.swift $(WEB)/Sources $(WEB)/Tests

# make bench-ir: the loops counted, and those counted again with the portable property access.
# A loop named …-R is counted at each of the resolve scenario's rule counts (the binary's
# --list-rule-counts), where the by-slot goals hold.
IR_LOOPS := warm-resolve-16 cold-resolve-16 cold-released-resolve-16 original-16 flutter-16 \
            warm-resolve-slot-R precomputed-R android-R \
            state-change-10000-1pct state-change-10000-100pct control-toggle-1000 \
            update-baseline-control update-baseline-hand update-baseline-hand-always form-control form-hand \
            bindings-1000-100pct-control bindings-1000-100pct-hand bindings-1000-1pct-control bindings-1000-1pct-hand \
            bindings-1000-100pct-table-control bindings-1000-100pct-floor bindings-1000-100pct-held-floor \
            bindings-1000-1pct-floor bindings-1000-100pct-table-floor button-list-control button-rules-control dot-list-control dot-rules-control dot-closure-control \
            custom-states-8-factors custom-states-8-extended-factors custom-states-40-factors \
            custom-states-8-predicates custom-states-40-predicates bind-control
IR_PORTABLE_LOOPS := update-baseline-control form-control bindings-1000-100pct-control bindings-1000-1pct-control \
                     bindings-1000-100pct-table-control bind-control
IR_ITERATIONS ?= 20000

# SwiftPM names a package by its directory: a clone directory named "pincode-web" would be the same
# package as Examples/pincode-web, which then cannot find the library.
WEB_CLONE_NAME_CHECK = @if [ "$$(basename "$(CURDIR)" | tr A-Z a-z)" = pincode-web ]; then \
	  echo "make: this clone's directory is named like Examples/pincode-web, and SwiftPM identifies a package by its directory name: clone into a directory of another name"; exit 1; fi

.DEFAULT_GOAL := help
.PHONY: help deps build test demo web bench bench-charts bench-ir docs format clean \
        check lint clients portable leakcheck fuzz c-checks coverage stress soak demo-tty web-test web-soak sanitize

# ---------------------------------------------------------------------------------------------
# Everyday
# ---------------------------------------------------------------------------------------------

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*## "} {printf "  make %-10s %s\n", $$1, $$2}'

deps: ## Install libjudy-dev with apt-get when Judy.h is missing
	@$(ENSURE) libjudy-dev /usr/include/Judy.h

build: deps ## Build the package (debug)
	$(SWIFT) build

test: deps ## Build and run the test suite (the library's, then the demo's)
	$(SWIFT) test
	$(SWIFT) test --package-path $(DEMO)

demo: deps ## Run the terminal PIN-code demo (ARGS="--script '1357' --no-color" to script it)
	$(SWIFT) build --package-path $(DEMO) -c release --product pincode-demo
	$(DEMO)/.build/release/pincode-demo $(ARGS)

web: deps ## Serve the web front end on 127.0.0.1:8080 and print its URL (ARGS="--port 9000", "--host ::1")
	$(WEB_CLONE_NAME_CHECK)
	$(SWIFT) build --package-path $(WEB) --product pincode-web
	$(WEB)/.build/debug/pincode-web $(ARGS)

bench: deps ## Run resolver-bench in release mode (ARGS="--quick", "--scenario resolve", ...), then draw its SVG charts into .build/bench
	$(SWIFT) build --package-path $(BENCH) -c release --product resolver-bench
	$(BENCH)/.build/release/resolver-bench --json $(BENCH_JSON) $(ARGS)
	@$(ENSURE) python3 python3
	python3 scripts/bench-charts.py $(BENCH_JSON) $(BENCH_CHARTS) --instructions $(BENCH_IR_TSV)

# Draws from the runs already made: a full make bench and make bench-ir of the code committed.
bench-charts: ## Redraw the committed charts (docs/bench) from the last make bench and make bench-ir runs; fails when a chart lacks its data
	@$(ENSURE) python3 python3
	@[ -f $(BENCH_JSON) ] || { echo "make bench-charts: no $(BENCH_JSON): run make bench first"; exit 1; }
	@[ -f $(BENCH_IR_TSV) ] || { echo "make bench-charts: no $(BENCH_IR_TSV): run make bench-ir first"; exit 1; }
	@grep -q '"mode" : "full"' $(BENCH_JSON) || echo "make bench-charts: warning: $(BENCH_JSON) is not a full run's (ARGS=--quick?): commit charts of a full run"
	python3 scripts/bench-charts.py $(BENCH_JSON) $(COMMITTED_CHARTS) --instructions $(BENCH_IR_TSV) --require-all

# valgrind 3.19 cannot read the DWARF Swift emits: the binary it runs is stripped of debug info
# (symbols stay, so --toggle-collect finds bench_ir_region, the only region counted).
bench-ir: deps ## Instructions per iteration of the hot paths, under valgrind callgrind (and .build/bench-ir.tsv for the charts)
	@$(ENSURE) valgrind valgrind
	$(SWIFT) build --package-path $(BENCH) -c release --product resolver-bench
	@mkdir -p .build
	strip --strip-debug -o .build/resolver-bench-ir $(BENCH)/.build/release/resolver-bench
	scripts/bench-ir.sh .build/resolver-bench-ir $(IR_ITERATIONS) "$(IR_LOOPS)" "$(IR_PORTABLE_LOOPS)"

docs: deps ## Build the DocC documentation, one archive per module, into .build/docs/<module>; fails on any DocC warning (a make check step)
	SWIFT=$(SWIFT) DOCC=$(DOCC) scripts/docs.sh

format: ## Format the Swift sources with swift format (the toolchain's; .swift-format)
	$(SWIFT) format --in-place --recursive --parallel $(FORMATTED)

clean: ## Remove build products
	rm -rf .build .build-asan .build-ubsan .build-tsan .build-release-tests .build-portable $(DEMO)/.build $(WEB)/.build $(BENCH)/.build

# ---------------------------------------------------------------------------------------------
# make check: everything beyond make test (CI runs it after make test)
# ---------------------------------------------------------------------------------------------

check: lint docs clients portable leakcheck fuzz c-checks coverage stress soak demo-tty web-test web-soak sanitize ## Everything beyond make test: the formatting and the bench chart generator, the DocC documentation with no warning, clients, the portable property access, leaks, fuzzing, C checks and coverage, stress, soak, the terminal demo, the web front end in a browser and under a connection soak, sanitizers

lint: ## Check that the Swift sources are formatted as make format leaves them and no code file is over 400 lines; test the bench chart generator; check README.md and BENCHMARKS.md's shape
	$(SWIFT) format lint --strict --recursive --parallel $(FORMATTED)
	@long=$$(git ls-files -z -- '*.swift' '*.c' '*.h' '*.py' '*.js' '*.sh' | xargs -0 wc -l | awk '$$2 != "total" && $$1 > 400'); \
	  if [ -n "$$long" ]; then echo "over 400 lines, to split by concern (CONTRIBUTING.md):"; echo "$$long"; exit 1; fi
	@$(ENSURE) python3 python3
	python3 scripts/test_bench_charts.py
	python3 scripts/check_docs.py

clients: deps ## Throwaway client packages: the engine alone off the main thread; a client resolves no other package; docs/install.md's snippet built and run; a plug-in loaded with dlopen by a C program
	SWIFT=$(SWIFT) CLANG=$(CLANG) Tests/Clients/check-clients.sh

portable: deps ## The test suites with the portable property access: STATEFULCONTROLS_PORTABLE=1, the direct access compiled out, and both accesses optimised
	STATEFULCONTROLS_PORTABLE=1 $(SWIFT) test
	STATEFULCONTROLS_PORTABLE=1 $(SWIFT) test --package-path $(DEMO)
	$(SWIFT) build --build-tests --scratch-path .build-portable $(PORTABLE_ONLY)
	@if nm .build-portable/debug/StatefulControlsPackageTests.xctest | grep -E '$(DIRECT_ACCESS_SYMBOLS)'; then \
	  echo "make portable: the direct access is compiled into a build that rules it out (symbols above)"; exit 1; fi
	$(SWIFT) test --skip-build --scratch-path .build-portable $(PORTABLE_ONLY)
	@# Optimised, as applications are built: there a key path literal's setter is the assignment itself.
	$(SWIFT) test $(RELEASE_TESTS) --skip StressTests --skip SoakTests
	STATEFULCONTROLS_PORTABLE=1 $(SWIFT) test $(RELEASE_TESTS) --skip StressTests --skip SoakTests

leakcheck: deps ## The C resolver under valgrind: no leaks, no invalid accesses
	@$(ENSURE) valgrind valgrind
	@mkdir -p $(CHECKS)
	$(CLANG) $(CHECK_FLAGS) -O1 -gdwarf-4 -Wall -Wextra $(RESOLVER_C) Tests/CResolverChecks/leak_driver.c -lJudy -o $(CHECKS)/leak-driver
	valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 $(CHECKS)/leak-driver

fuzz: deps ## Fuzz the C resolver against the reference model for SECONDS (default 60), replaying the regressions first
	@mkdir -p $(CHECKS) .build/fuzz-corpus
	$(CLANG) $(CHECK_FLAGS) $(C_SANITIZERS) -fsanitize=fuzzer $(RESOLVER_C) Tests/CResolverChecks/fuzz_resolver.c -lJudy -o $(CHECKS)/fuzz-resolver
	$(CHECKS)/fuzz-resolver Tests/CResolverChecks/regressions/*
	$(CHECKS)/fuzz-resolver -max_total_time=$(SECONDS) -print_final_stats=1 -artifact_prefix=$(CHECKS)/ .build/fuzz-corpus

c-checks: deps ## The C unit checks (sizes, budget, 1M states) and the allocation-failure driver, under ASan+UBSan
	@mkdir -p $(CHECKS)
	$(CLANG) $(CHECK_FLAGS) $(C_SANITIZERS) $(C_UNIT) -lJudy -o $(CHECKS)/unit-resolver-asan
	$(CHECKS)/unit-resolver-asan
	$(CLANG) $(CHECK_FLAGS) $(FAULT_FLAGS) $(C_SANITIZERS) $(C_FAULT) -lJudy -o $(CHECKS)/fault-driver-asan
	@# No leak detection: libJudy leaks when an allocation fails mid-insert; the driver counts leaks itself.
	ASAN_OPTIONS=detect_leaks=0 $(CHECKS)/fault-driver-asan

coverage: deps ## Line coverage of the C resolver by the fuzz corpus, the C drivers and the allocation-failure driver; fails below 95 %
	CLANG=$(CLANG) LLVM_PROFDATA=$(LLVM_PROFDATA) LLVM_COV=$(LLVM_COV) CHECK_FLAGS="$(CHECK_FLAGS)" FAULT_FLAGS="$(FAULT_FLAGS)" \
	  RESOLVER_C="$(RESOLVER_C)" RESOLVER_SOURCES="$(RESOLVER_SOURCES)" C_UNIT="$(C_UNIT)" C_FAULT="$(C_FAULT)" \
	  COVERAGE_MIN=$(COVERAGE_MIN) FUZZ_RUNS=$(FUZZ_RUNS) scripts/coverage.sh

stress: deps ## A million random Control API operations against a model (release build)
	STRESS_OPERATIONS=$(STRESS_OPERATIONS) $(SWIFT) test $(RELEASE_TESTS) --filter StressTests

soak: deps ## Two million mixed operations on one resolver (release): memory and time per operation stay flat
	SOAK_OPERATIONS=$(SOAK_OPERATIONS) $(SWIFT) test $(RELEASE_TESTS) --filter SoakTests

demo-tty: deps ## Drive the interactive demo in a real terminal (tmux): keys, redraws, Ctrl-C restores the terminal
	@$(ENSURE) tmux tmux
	$(SWIFT) build --package-path $(DEMO) --product pincode-demo
	$(DEMO)/Tests/Interactive/demo-in-tmux.sh $(DEMO)/.build/debug/pincode-demo

web-test: deps ## The web front end's Swift tests, then the page in headless Chromium (installed when missing) and a screenshot
	$(WEB_CLONE_NAME_CHECK)
	@$(ENSURE) chromium chromium chromium-driver chromedriver
	$(SWIFT) build --package-path $(WEB) --build-tests
	$(SWIFT) test --package-path $(WEB) --skip-build
	python3 $(WEB)/Tests/browser/web_test.py $(WEB)/.build/debug/pincode-web $(SCREENSHOT)

web-soak: deps ## CONNECTIONS WebSockets (default 10000, half of them visits) against the release web server: its resident set stays within 5 %
	$(WEB_CLONE_NAME_CHECK)
	@$(ENSURE) python3 python3
	$(SWIFT) build --package-path $(WEB) -c release --product pincode-web
	@scripts/python-venv.sh $(SOAK_VENV) websocket-client==1.9.2
	$(SOAK_VENV)/bin/python $(WEB)/Tests/soak/web_soak.py $(WEB)/.build/release/pincode-web --connections $(CONNECTIONS)

sanitize: deps ## The test suite under ASan+LSan (both property accesses), UBSan and TSan; the C checks under ASan+UBSan
	@# The allocation-failure suite runs without leak detection: libJudy itself leaks when an
	@# allocation fails mid-insert, and that suite counts leaks exactly on its own.
	$(LSAN) $(SWIFT) test --sanitize=address --scratch-path .build-asan --skip AllocationFailureTests
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --sanitize=address --scratch-path .build-asan --filter AllocationFailureTests
	@# The same suites with the portable property access (the property kinds and every callback test among them).
	STATEFULCONTROLS_PORTABLE=1 $(LSAN) $(SWIFT) test --sanitize=address --scratch-path .build-asan --skip AllocationFailureTests
	@# swiftc has no -sanitize=undefined on Linux: UBSan instruments the C targets, any report aborts.
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $(SWIFT) test --scratch-path .build-ubsan $(SWIFT_UBSAN)
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --sanitize=thread --scratch-path .build-tsan
	@# Targets released on another thread while a resolver applies, with the portable access too.
	STATEFULCONTROLS_PORTABLE=1 TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --sanitize=thread --scratch-path .build-tsan --skip-build --filter SoundnessTests
	@mkdir -p $(CHECKS)
	$(CLANG) $(CHECK_FLAGS) $(C_SANITIZERS) $(RESOLVER_C) Tests/CResolverChecks/leak_driver.c -lJudy -o $(CHECKS)/leak-driver-asan
	$(CHECKS)/leak-driver-asan
