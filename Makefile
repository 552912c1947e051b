# Thin wrapper around waf, as in Samba.  The two commands a newcomer needs:
#   make run    set up, build, start smbd on the embedded default
#   make test   set up, build, run every test (unit, ASan+UBSan, fuzz
#               corpus replay, integration with real clients)
WAF = buildtools/bin/waf
ASAN_WAF = WAFLOCK=.lock-waf_asan CC=clang buildtools/bin/waf
TSAN_WAF = WAFLOCK=.lock-waf_tsan CC=clang buildtools/bin/waf

.PHONY: all deps build asan tsan tsan-build run test unit integration fuzz \
	compat bench bench-smb2bench bench-connmem stress install deb \
	clean distclean

all: build

deps:
	@buildtools/install-deps.sh

build/c4che/_cache.py: wscript | deps
	@$(WAF) configure

build: deps build/c4che/_cache.py
	@$(WAF) build

# The sanitizer build: clang, ASan+UBSan, libFuzzer harnesses.
build-asan/c4che/_cache.py: wscript | deps
	@$(ASAN_WAF) configure -o build-asan --sanitize --fuzz

asan: deps build-asan/c4che/_cache.py
	@$(ASAN_WAF) build

# ThreadSanitizer: unit tests and the integration suite (not part of
# make test: it doubles its time)
build-tsan/c4che/_cache.py: wscript | deps
	@$(TSAN_WAF) configure -o build-tsan --tsan

tsan-build: deps build-tsan/c4che/_cache.py
	@$(TSAN_WAF) build

tsan: tsan-build
	@.venv/bin/python3 tests/runner.py --only tsan

run: build
	@mkdir -p share
	@echo "ringsmb: serving ./share as //127.0.0.1/share on port 4445"
	@echo "connect: smbclient -N //127.0.0.1/share -p 4445"
	@exec bin/smbd -F --debug-stdout -d 1

test: build asan
	@.venv/bin/python3 tests/runner.py

unit: build asan
	@.venv/bin/python3 tests/runner.py --only unit --only unit-asan

integration: build asan
	@.venv/bin/python3 tests/runner.py --only integration

fuzz: asan
	@tests/fuzz/run-fuzzers.sh

# races, churn, soak (not part of make test): ~20 minutes, or with LONG=1
# the 30-minute soak, longer races and fuzz CPU time; writes
# docs/reliability.md (tests/stress/run.py --help)
stress: build asan
	@.venv/bin/python3 tests/stress/run.py $(if $(LONG),--long) $(STRESS_ARGS)

# smbtorture suites against ringsmb and Samba: docs/compatibility.md
compat: build
	@.venv/bin/python3 tests/compat/torture.py --compare

bench: build
	@tests/bench/run.sh $(BENCH_ARGS)

# the same servers with smb2bench as the client (docs/bench.md)
bench-smb2bench: build
	@tests/bench/run.sh smb2bench $(BENCH_ARGS)

# what an idle authenticated connection costs each server (docs/bench.md)
bench-connmem: build
	@tests/bench/run.sh connmem $(BENCH_ARGS)

# DESTDIR=/tmp/stage installs below it (docs/service.md, "make install")
install: build
	@$(WAF) install --destdir="$(DESTDIR)"

# a Debian package, built and checked in build-deb/ (docs/service.md,
# "The Debian package")
deb: deps
	@packaging/deb/build-deb.sh

clean:
	@$(WAF) clean 2>/dev/null || true
	@$(ASAN_WAF) clean 2>/dev/null || true
	@$(TSAN_WAF) clean 2>/dev/null || true

distclean:
	rm -rf build build-asan build-tsan build-deb bin .venv .lock-waf*
