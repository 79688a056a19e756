# spotledger — one GNU Makefile (docs/style.md 24-26).
#
#   make            build ./spotledger and ./spotsim (optimised, -Werror)
#   make run        start spotsim's demo week and spotledger against it
#   make test       every test under AddressSanitizer + UndefinedBehaviorSanitizer
#   make unit       the C unit tests alone (sanitized), no end-to-end scripts
#   make layers     includes only go downward by layer (src/layers.txt, src/README.md)
#   make deps       install missing build/run Debian packages (idempotent, fast when all present);
#                   the test targets also install the test-only ones (make test-deps)
#   make coverage   line coverage per file and per layer, unit and e2e (gcovr)
#   make mutants    mutation check of src/engine and src/query against the unit tests
#   make planted    each planted bug (tests/mutate/planted.py) fails a test of make test
#   make format / format-check / valgrind / clean
#
# Sources are discovered: src/*.c form the service (src/main.c is its entry point),
# src/sim/*.c form spotsim (src/sim/sim_main.c its entry point), tests/unit/test_*.c are
# one cmocka binary each, linked against both libraries.

PKG_CONFIG ?= pkg-config
# Each binary links what it uses: only spotsim serves TLS (GnuTLS).
PKGS := libmicrohttpd libcurl json-c sqlite3 yaml-0.1
SIM_PKGS = $(PKGS) gnutls
# What `make` and `make run` need (build and run); `make test` and the other test
# targets also install TEST_PACKAGES (test-deps), which a plain build never does.
# (curl and jq: the README's examples against `make run`)
DEB_PACKAGES := make gcc libc6-dev pkg-config libmicrohttpd-dev libcurl4-gnutls-dev \
	libjson-c-dev libsqlite3-dev libgnutls28-dev ca-certificates libjs-chart.js curl jq \
	libxlsxwriter-dev libyaml-dev
TEST_PACKAGES := clang-format libcmocka-dev sqlite3 yq prometheus chromium python3 \
	libreoffice-calc-nogui clang libclang-rt-14-dev gcovr python3-kubernetes python3-jsonschema python3-yaml

# kubectl (e2e_deploy renders deploy/kubernetes with `kubectl kustomize`): Debian's
# kubernetes-client, only when no kubectl is on PATH already (another vendor's counts)
TEST_PACKAGES += $(if $(shell command -v kubectl 2>/dev/null),,kubernetes-client)

VERSION := 0.1.0

# libxlsxwriter writes the .xlsx twins of the weekly CSV files (src/query/export_xlsx.h);
# optional at build time only: without the package the service writes CSV alone.
HAVE_XLSX := $(shell $(PKG_CONFIG) --exists xlsxwriter 2>/dev/null && echo 1)
ifeq ($(HAVE_XLSX),1)
PKGS += xlsxwriter
XLSX_CFLAGS := -DSPOTLEDGER_HAVE_XLSX
endif

WARN := -Wall -Wextra -Werror -Wpedantic -Wstrict-prototypes -Wmissing-prototypes -Wshadow \
	-Wold-style-definition -Wwrite-strings -Wvla -Wformat=2 -fno-common
PROJECT_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -DSPOTLEDGER_VERSION='"$(VERSION)"' \
	$(WARN) -MMD -MP -Isrc -Ibuild/gen $(XLSX_CFLAGS)
OPT ?= -O2 -g
SANITIZE ?=

BUILD ?= build
ifneq ($(SANITIZE),)
BUILD := build/san
OPT := -O1 -g
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

# FUZZ=1: clang, libFuzzer-instrumented objects in build/fuzz (make fuzz, fuzz-smoke)
FUZZ ?=
ifneq ($(FUZZ),)
BUILD := build/fuzz
CC := clang
OPT := -O1 -g
SAN_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
PROJECT_CFLAGS += -Wno-format-nonliteral # clang also checks va_list forwarders
endif

# COVERAGE=1: gcc --coverage, unoptimised, objects in build/cov (make coverage)
COVERAGE ?=
ifneq ($(COVERAGE),)
BUILD := build/cov
OPT := -O0 -g
SAN_FLAGS := --coverage
endif

LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS)) -lpthread -lm
SIM_LIBS = $(shell $(PKG_CONFIG) --libs $(SIM_PKGS)) -lpthread -lm
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(SIM_PKGS))
ALL_CFLAGS = $(PROJECT_CFLAGS) $(PKG_CFLAGS) $(OPT) $(SAN_FLAGS) $(CFLAGS) $(CPPFLAGS)
ALL_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS)

LAYERS := base model plan engine source store ingest query http service
LIB_SRC := $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c))
SIM_SRC := $(filter-out src/sim/sim_main.c,$(wildcard src/sim/*.c))
# tests/unit/test_oracle.c (the engine against the independent oracle on 500
# seeded random clusters, docs/oracle.md) is one of them; `make oracle` runs it alone.
TEST_SRC := $(wildcard tests/unit/test_*.c)
SCHEMA := $(sort $(wildcard schema/*.sql))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/schema_sql.o $(BUILD)/gen/engine_rev.o
# The sources that compute a stored day's partial sums (engine/cost_partial.h): a
# day stored by a binary built from other sources is computed again.
ENGINE_REV_SRC := $(sort $(wildcard src/engine/*.c src/engine/*.h src/model/*.c src/model/*.h)) \
	src/store/store_cost.c src/store/store_cost_tasks.c src/query/calc.c src/query/compose.c
SIM_OBJ := $(SIM_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: oracle all deps test-deps test check layers unit unit-bins test-bins run valgrind format format-check clean bench bench-deps fuzz fuzz-smoke \
	fuzz-bins coverage planted mutants bench-fleet
.DEFAULT_GOAL := all

all: deps
	@$(MAKE) --no-print-directory spotledger spotsim

# --- dependencies -----------------------------------------------------------
# dpkg-query answers in milliseconds; apt-get runs only when something is missing.
deps:
	@missing=$$(dpkg-query -W -f='$${db:Status-Abbrev} $${Package}\n' $(DEB_PACKAGES) 2>&1 | \
	  awk '/^ii / {ok[$$2]=1} END {n=split("$(DEB_PACKAGES)", p, " "); \
	    for (i=1;i<=n;i++) { q=p[i]; sub(/:.*/, "", q); if (!ok[q]) printf " %s", p[i] } }'); \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $$missing >/dev/null 2>&1 || \
	  { $$SUDO apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null && $$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $$missing; } || \
	  { echo "deps: could not install:$$missing" >&2; exit 1; }; \
	fi

# The test-only packages (TEST_PACKAGES), after the build ones.
test-deps: deps
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(TEST_PACKAGES)"

# --- build ------------------------------------------------------------------
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) -c $< -o $@

# Migrations are compiled into the binary so a deployed service needs no schema/ dir.
$(BUILD)/gen/schema_sql.c: $(SCHEMA) schema/gen_schema.sh
	@mkdir -p $(dir $@)
	@sh schema/gen_schema.sh $(SCHEMA) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/schema_sql.o: $(BUILD)/gen/schema_sql.c
	@$(CC) $(ALL_CFLAGS) -Wno-overlength-strings -c $< -o $@

$(BUILD)/gen/engine_rev.c: $(ENGINE_REV_SRC)
	@mkdir -p $(dir $@)
	@printf '/* generated by the Makefile from the engine sources; do not edit */\n#include "engine/cost_partial.h"\nconst char cost_engine_rev[] = "%s";\n' \
	  "$$(cat $(ENGINE_REV_SRC) | sha1sum | cut -c1-16)" > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/engine_rev.o: $(BUILD)/gen/engine_rev.c
	@$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libspotledger.a: $(LIB_OBJ)
	@rm -f $@
	@$(AR) rcs $@ $^

$(BUILD)/libspotsim.a: $(SIM_OBJ) $(BUILD)/libspotledger.a
	@rm -f $@
	@$(AR) rcs $@ $(SIM_OBJ)

$(BUILD)/spotledger: $(BUILD)/src/main.o $(BUILD)/libspotledger.a
	@echo "  LD      $@"
	@$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/spotsim: $(BUILD)/src/sim/sim_main.o $(BUILD)/libspotsim.a $(BUILD)/libspotledger.a
	@echo "  LD      $@"
	@$(CC) $(ALL_LDFLAGS) -o $@ $^ $(SIM_LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(BUILD)/libspotsim.a $(BUILD)/libspotledger.a
	@echo "  LD      $@"
	@$(CC) $(ALL_LDFLAGS) -o $@ $^ $(SIM_LIBS) $(shell $(PKG_CONFIG) --libs cmocka)

# copy then rename: replacing a running binary in place fails with ETXTBSY
spotledger: $(BUILD)/spotledger
	@cp $< $@.tmp && mv -f $@.tmp $@
spotsim: $(BUILD)/spotsim
	@cp $< $@.tmp && mv -f $@.tmp $@

# --- run --------------------------------------------------------------------
run: all
	@sh deploy/demo/run.sh

# --- tests ------------------------------------------------------------------
# Builds the ASan+UBSan binaries and the fuzz harnesses, then tests/run_tests.sh runs
# every part (layers, format check, fuzz smoke, unit binaries, end-to-end scripts) and ends
# with one line "N passed, N failed, N skipped".
test: test-deps
	@$(MAKE) --no-print-directory SANITIZE=address,undefined test-bins
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-bins
	@FUZZ_SMOKE_SECONDS=$(FUZZ_SMOKE_SECONDS) MAKE="$(MAKE)" sh tests/run_tests.sh build/san

check: test

# The property test and e2e_truth with the oracle as a gate (docs/oracle.md).
oracle: test-deps
	@$(MAKE) --no-print-directory SANITIZE=address,undefined build/san/tests/test_oracle \
	  build/san/spotledger build/san/spotsim
	@build/san/tests/test_oracle

# The C unit tests alone, three binaries at a time, longest first, test_oracle over 100
# seeds (make test and make oracle keep 500; ORACLE_SEEDS=500 make unit for all of them).
# Three on two cores: about half the suite's wall time is timed waits (test_watch_storm's
# 10 s window, watches timing out), not CPU.
unit: test-deps
	@$(MAKE) --no-print-directory SANITIZE=address,undefined unit-bins
	@ORACLE_SEEDS=$${ORACLE_SEEDS:-100} UNIT_JOBS=$${UNIT_JOBS:-3} TEST_PARTS=unit sh tests/run_tests.sh build/san

# The layer table src/layers.txt, checked over every #include "dir/x.h" under src/,
# then the checker's own test (it must fail on a planted upward include); then no
# comment or doc citing a file outside the repository (docs/style.md), and its test.
layers:
	@sh tests/layers/check_layers.sh src src/layers.txt
	@sh tests/layers/test_check_layers.sh
	@sh tests/layers/check_citations.sh src tests web deploy docs README.md Makefile
	@sh tests/layers/test_check_citations.sh

test-bins: $(TEST_BIN) $(BUILD)/spotledger $(BUILD)/spotsim
unit-bins: $(TEST_BIN)

valgrind: test-deps
	@$(MAKE) --no-print-directory test-bins
	@for t in $(BUILD)/tests/test_*; do \
	  [ -x "$$t" ] || continue; \
	  valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1 $$t >/dev/null || exit 1; \
	done; echo "valgrind: no definite leaks"

# --- coverage, mutants, planted bugs (README.md, "Tests and proof") ---------------
# make coverage: unit binaries, then unit + e2e, built with --coverage; gcovr HTML
# and text per file and per layer in build/coverage/{unit,all}/. Too slow for make
# test (a third build of everything), so it is its own target.
coverage: test-deps
	@$(MAKE) --no-print-directory COVERAGE=1 test-bins
	@sh tests/coverage.sh build/cov

# make mutants: one source mutant at a time over src/engine and src/query against
# the unit tests, within MUTANTS_BUDGET seconds and MUTANTS_MAX mutants (an evenly
# spaced subset beyond it); report in build/mutants/report.txt.
MUTANTS_BUDGET ?= 1800
MUTANTS_MAX ?= 400
mutants: test-deps
	@MUTANTS_BUDGET=$(MUTANTS_BUDGET) MUTANTS_MAX=$(MUTANTS_MAX) MAKE="$(MAKE)" \
	  python3 tests/mutate/mutants.py

# make planted: each bug of tests/mutate/planted.py, alone in a scratch copy, must fail
# a unit test of make test (about 3 minutes).
planted: test-deps
	@MAKE="$(MAKE)" python3 tests/mutate/planted.py


# --- fuzzing (tests/fuzz/README.md) -------------------------------------------
# libFuzzer harnesses tests/fuzz/fuzz_*.c; each runs FUZZ_SECONDS (default 60);
# fuzz-smoke (part of make test) runs each for FUZZ_SMOKE_SECONDS.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 12

build/fuzz/fuzz_%: build/fuzz/tests/fuzz/fuzz_%.o build/fuzz/libspotledger.a
	@echo "  LD      $@"
	@$(CC) -fsanitize=fuzzer,address,undefined $(LDFLAGS) -o $@ $^ $(LIBS)

.PRECIOUS: build/fuzz/tests/fuzz/%.o $(BUILD)/tests/unit/%.o
fuzz-bins: $(FUZZ_BIN)

fuzz: test-deps
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-bins
	@sh tests/fuzz/run_fuzz.sh $(FUZZ_SECONDS)

fuzz-smoke: test-deps
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-bins
	@sh tests/fuzz/run_fuzz.sh $(FUZZ_SMOKE_SECONDS)

# --- bench (tests/bench/README.md) -------------------------------------------
# Optimised build; wrk and nginx-light are bench-only packages (not in DEB_PACKAGES).
BENCH_PACKAGES := wrk nginx-light linux-perf
bench-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(BENCH_PACKAGES)"

build/bench/bench_tool: build/tests/bench/bench_tool.o build/tests/bench/bench_gen.o \
		build/libspotledger.a
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

bench: deps bench-deps
	@$(MAKE) --no-print-directory spotledger spotsim build/bench/bench_tool
	@sh tests/bench/bench.sh

# The fleet rows alone (tests/bench/bench_fleet.sh, docs/fleet.md).
bench-fleet: deps
	@$(MAKE) --no-print-directory spotledger spotsim build/bench/bench_tool
	@BENCH_ONLY=fleet sh tests/bench/bench.sh

FORMAT_SRC = $(sort $(wildcard src/*.c src/*/*.c src/*/*.h tests/unit/*.c tests/unit/*.h tests/bench/*.c \
	tests/bench/*.h tests/fuzz/*.c))
format:
	clang-format -i $(FORMAT_SRC)
format-check:
	@clang-format --dry-run -Werror $(FORMAT_SRC) && echo "format-check: ok"

clean:
	rm -rf build spotledger spotsim

-include $(shell find build -name '*.d' 2>/dev/null)
