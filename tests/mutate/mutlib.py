"""mutlib - shared by tests/mutate/planted.py (make planted) and mutants.py (make mutants).

A scratch copy of the repository (the files git tracks, plus uncommitted edits) in a
temporary directory; one source change at a time is written into the copy, the unit test
binaries that must notice it are rebuilt there (an ordinary optimised build, incremental,
so only the changed object and the links are redone) and run, and the file is restored.
The working tree is never touched.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def log(msg):
    print(msg, flush=True)


class Copy:
    def __init__(self, keep=False):
        # SIGTERM (e.g. a timeout around make mutants) still removes the scratch copy
        signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
        self.dir = tempfile.mkdtemp(prefix="spotledger-mut-")
        self.keep = keep
        files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                "--exclude-standard"], cwd=ROOT, check=True,
                               capture_output=True).stdout.split(b"\0")
        for f in files:
            if not f:
                continue
            f = f.decode()
            src = os.path.join(ROOT, f)
            if not os.path.isfile(src):
                continue
            dst = os.path.join(self.dir, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
        self.env = dict(os.environ)
        self.env.setdefault("SHARED_FIXTURES", os.path.join(ROOT, "..", "shared", "fixtures"))
        self.env["SPOTLEDGER_ROOT"] = self.dir
        self.env["CMOCKA_MESSAGE_OUTPUT"] = "stdout"
        # make test runs the unit binaries built with ASan + UBSan (tests/run_tests.sh);
        # the fast path does the same for the file it mutates (MUTANTS_SANITIZE="" off)
        self.san = os.environ.get("MUTANTS_SANITIZE", "address,undefined")
        self.env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        self.env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
        self.make = os.environ.get("MAKE", "make")

    def close(self):
        if not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, rel):
        return os.path.join(self.dir, rel)

    def read(self, rel):
        with open(self.path(rel), encoding="utf-8") as f:
            return f.read()

    def write(self, rel, text):
        with open(self.path(rel), "w", encoding="utf-8") as f:
            f.write(text)

    def build(self, tests, timeout=900):
        """Builds build/tests/<t> for each t; True when every one links."""
        targets = ["build/tests/" + t for t in tests]
        r = subprocess.run([self.make, "--no-print-directory", "-j2", "OPT=-O1 -g"] + targets,
                           cwd=self.dir, env=self.env, capture_output=True, timeout=timeout)
        self.last_build_log = (r.stdout + r.stderr).decode(errors="replace")
        return r.returncode == 0

    def fast_setup(self, tests):
        """After one make build: the commands to recompile one source and relink a test
        binary directly (no make, no archive), as the Makefile would with OPT=-O1."""
        mk = open(self.path("Makefile"), encoding="utf-8").read()
        # the test binaries link libspotsim too (SIM_PKGS adds gnutls), and the
        # Makefile adds xlsxwriter when pkg-config finds it (HAVE_XLSX)
        pkgs = re.search(r"^PKGS := (.*)$", mk, re.M).group(1).split() + ["gnutls"]
        xlsx = subprocess.run(["pkg-config", "--exists", "xlsxwriter"]).returncode == 0
        if xlsx:
            pkgs.append("xlsxwriter")
        ver = re.search(r"^VERSION := (.*)$", mk, re.M).group(1).strip()
        pc = lambda *a: subprocess.run(["pkg-config"] + list(a), check=True,
                                       capture_output=True, text=True).stdout.split()
        self.cflags = (["-std=c11", "-D_POSIX_C_SOURCE=200809L",
                        '-DSPOTLEDGER_VERSION="%s"' % ver, "-Isrc", "-Ibuild/gen", "-O1", "-g",
                        "-w"] + (["-DSPOTLEDGER_HAVE_XLSX"] if xlsx else []) +
                       pc("--cflags", *pkgs))
        self.libs = pc("--libs", *pkgs) + ["-lpthread", "-lm"] + pc("--libs", "cmocka")
        self.ldsan = []
        if self.san:
            self.cflags += ["-fsanitize=" + self.san, "-fno-sanitize-recover=all",
                            "-fno-omit-frame-pointer"]
            self.ldsan = ["-fsanitize=" + self.san]
        objs = []
        for d, _, fs in os.walk(self.path("build/src")):
            for f in fs:
                if f.endswith(".o") and f not in ("main.o", "sim_main.o"):
                    objs.append(os.path.relpath(os.path.join(d, f), self.dir))
        self.objs = sorted(objs) + ["build/gen/schema_sql.o"]
        self.cc = os.environ.get("CC", "cc")
        for t in tests:  # make may have removed the test objects as intermediates
            o = "build/tests/unit/%s.o" % t
            if not os.path.exists(self.path(o)):
                subprocess.run([self.cc] + self.cflags + ["-c", "tests/unit/%s.c" % t, "-o", o],
                               cwd=self.dir, check=True, capture_output=True)

    def fast_build(self, src, tests):
        """Recompiles src (e.g. src/engine/cost.c) and relinks tests; True when all link."""
        obj = "build/" + src[:-2] + ".o"
        r = subprocess.run([self.cc] + self.cflags + ["-c", src, "-o", obj], cwd=self.dir,
                           capture_output=True)
        if r.returncode != 0:
            self.last_build_log = r.stderr.decode(errors="replace")
            return False
        return self.relink(tests)

    def relink(self, tests):
        """Links each test binary from the objects as they are (with the sanitizer
        runtime when MUTANTS_SANITIZE is set); True when all link."""
        for t in tests:
            r = subprocess.run([self.cc] + self.ldsan +
                               ["-o", "build/tests/" + t, "build/tests/unit/%s.o" % t] +
                               self.objs + self.libs, cwd=self.dir, capture_output=True)
            if r.returncode != 0:
                self.last_build_log = r.stderr.decode(errors="replace")
                return False
        return True

    def sanitizer_report(self):
        """True when the last run's output holds an ASan or UBSan finding (not a leak
        report: a failed cmocka assertion leaves its allocations behind)."""
        log = getattr(self, "last_run_log", "")
        return "ERROR: AddressSanitizer" in log or "runtime error:" in log

    def run(self, test, timeout):
        """'pass', 'fail' or 'timeout' for one unit binary."""
        try:
            r = subprocess.run([self.path("build/tests/" + test)], cwd=self.dir, env=self.env,
                               capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "timeout"
        self.last_run_log = (r.stdout + r.stderr).decode(errors="replace")
        return "pass" if r.returncode == 0 else "fail"

    def existing(self, tests):
        return [t for t in tests if os.path.exists(self.path("tests/unit/%s.c" % t))]


def timed(fn, *args):
    t0 = time.monotonic()
    r = fn(*args)
    return r, time.monotonic() - t0


def die(msg):
    print(msg, file=sys.stderr, flush=True)
    sys.exit(1)
