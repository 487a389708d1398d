# SPDX-License-Identifier: MIT
# mabutrace: `make demo` runs the main job, `make test` builds and runs every
# test. Both install missing Debian packages first (scripts/install-deps.sh).
SHELL := /bin/bash
BUILD    ?= build
JOBS     ?= $(shell nproc)
SECONDS  ?= 30
PORT     ?= 8080
OUT      ?= out
CMAKE_FLAGS ?=

.PHONY: all deps build demo demo-timeline package install test test-asan test-tsan test-sanitize bench bench-decoders fuzz clean

all: build

deps:
	@bash scripts/install-deps.sh

# Everything: library, CLI, host decoders, examples, tests, benchmarks.
ALL_PARTS  = -DMABUTRACE_BUILD_TOOLS=ON -DMABUTRACE_BUILD_EXAMPLES=ON -DMABUTRACE_BUILD_TESTS=ON -DMABUTRACE_BUILD_BENCH=ON
# The demo: the library and the examples only (no CLI, decoders or tests).
DEMO_PARTS = -DMABUTRACE_BUILD_TOOLS=OFF -DMABUTRACE_BUILD_EXAMPLES=ON -DMABUTRACE_BUILD_TESTS=OFF -DMABUTRACE_BUILD_BENCH=OFF

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(ALL_PARTS) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS)

# Installs only what the demo needs (scripts/install-deps.sh --demo), builds
# only its program, runs the instrumented pipeline demo for $(SECONDS) s while
# serving the live trace on http://127.0.0.1:$(PORT)/, then writes
# $(OUT)/trace.json and $(OUT)/trace.pftrace.
demo:
	@bash scripts/install-deps.sh --demo
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(DEMO_PARTS) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS) --target mabutrace-pipeline-demo
	$(BUILD)/examples/pipeline/mabutrace-pipeline-demo --seconds $(SECONDS) --port $(PORT) --out $(OUT)

# One timeline (docs/merge.md): the pipeline demo's software trace, a decoded
# ETE trace of a small A64 program (assembled with Debian's aarch64 binutils,
# traced by the ETE packet generator) and a CP_Tracer simulation, merged
# into $(OUT)/timeline/timeline.pftrace (+ .json). Builds only what it runs.
demo-timeline: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(ALL_PARTS) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS) --target mabutrace_cli mabutrace-pipeline-demo ete_gen_programs
	bash scripts/demo_timeline.sh $(BUILD) $(OUT)/timeline

# The Debian package: $(BUILD)/mabutrace_<version>_<arch>.deb (CLI, library,
# headers, CMake package, pkg-config file, man page; docs/install.md).
package: build
	cd $(BUILD) && cpack -G DEB

# Installs the library, headers, CLI, man page and docs under PREFIX.
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The same suite under ASan+UBSan and under TSan. Left out: benchmarks and
# what runs no instrumented host code (SANITIZE_SKIP: the browser test drives
# the release build, the QEMU, size and Arduino tests cross-build for a
# device, the install tests build a fresh library of their own, the layering
# checks read the source tree). TSan covers the runtime and the stream tools,
# the only multi-threaded code; the host decoders (single-threaded) are left
# out of that build.
SANITIZE_SKIP = browser|qemu|size|arduino|install|layering
test-asan: deps
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DMABUTRACE_SANITIZE=address,undefined -DMABUTRACE_BUILD_BENCH=OFF >/dev/null
	cmake --build $(BUILD)-asan -j$(JOBS)
	cd $(BUILD)-asan && ctest --output-on-failure -j$(JOBS) -LE '$(SANITIZE_SKIP)'

test-tsan: deps
	cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMABUTRACE_SANITIZE=thread -DMABUTRACE_BUILD_BENCH=OFF -DMABUTRACE_HOST_DIRS= >/dev/null
	cmake --build $(BUILD)-tsan -j$(JOBS)
	cd $(BUILD)-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j$(JOBS) -LE '$(SANITIZE_SKIP)'

test-sanitize: test-asan test-tsan

bench: build
	python3 bench/compare.py --bench $(BUILD)/bench/mabutrace_bench

# Every decoder against OpenCSD on the same >= 64 MiB input, one process
# each, ratios printed (scripts/bench_decoders.sh; a few minutes).
bench-decoders: build
	bash scripts/bench_decoders.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan

# Every libFuzzer target (clang, ASan+UBSan; see mabutrace_add_fuzzer in
# CMakeLists.txt) for FUZZ_SECONDS each, seeded from fuzz/corpus/NAME/ when it
# exists; any crash, hang or sanitizer report fails. New inputs found go to a
# scratch corpus in the build tree, not into the repository.
FUZZ_SECONDS ?= 20
fuzz: deps
	cmake -S . -B $(BUILD)-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DMABUTRACE_FUZZ=ON -DMABUTRACE_BUILD_TESTS=OFF -DMABUTRACE_BUILD_BENCH=OFF -DMABUTRACE_BUILD_EXAMPLES=OFF >/dev/null
	cmake --build $(BUILD)-fuzz -j$(JOBS) --target mabutrace_fuzzers
	@set -e; for f in $(BUILD)-fuzz/fuzz/*_fuzz; do \
	  name=$$(basename $$f); scratch=$(BUILD)-fuzz/corpus/$$name; mkdir -p $$scratch; \
	  seeds=""; [ -d fuzz/corpus/$$name ] && seeds=fuzz/corpus/$$name; \
	  echo "fuzz: $$name for $(FUZZ_SECONDS) s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $$scratch $$seeds 2>&1 | tail -n 12; \
	  test $${PIPESTATUS[0]} -eq 0; \
	done
