#!/bin/sh
# The whole test suite again, built with AddressSanitizer and UndefinedBehaviorSanitizer
# (CLC_SANITIZE=address,undefined, made by setup.sh in BUILD/sanitize): any invalid access, leak
# of ours or undefined behaviour fails its test. Brought up to date first, so it never runs stale
# code. Skipped (77) where no sanitizer tree was configured.
#   sanitized_suite.sh SANITIZE_DIR
set -eu
dir=$1
if [ ! -f "$dir/CMakeCache.txt" ]; then
    echo "no sanitizer build in $dir (./setup.sh makes one)"
    exit 77
fi
cmake --build "$dir" --parallel "$(nproc 2>/dev/null || echo 2)" >/dev/null
# Leak detection on. What PoCL and LLVM keep when PoCL compiles a kernel is suppressed
# (tests/lsan.supp says why): a fresh machine's first run compiles every kernel, and reported it.
# intercept_tls_get_addr=0: up to GCC 13 and LLVM 16 the runtime's __tls_get_addr hook takes a
# dynamic TLS block whose address is 16 past a page boundary for one with a pre-2.25 glibc header
# and records a bogus range from the words before it; LeakSanitizer's tracer then faults reading
# it at exit ("Tracer caught signal 11: addr=0x740"), a failure with no leak in it that comes and
# goes with where malloc put PoCL's dlopen'ed libraries' blocks (test_faults wrapped_cloud_faults
# hit it every run, context_staged once in a CI run). Without the hook those blocks are still
# scanned as heap reached from each thread's descriptor; a leak of ours is still reported.
# use_sigaltstack=0: a thread that builds a program through PoCL gets LLVM's signal handlers,
# and LLVM swaps the thread's alternate signal stack (ASan's, smaller than LLVM wants) for one it
# mallocs; when that thread ends, ASan unmaps the stack it finds there and aborts ("CHECK failed:
# unable to unmap"). Only threads that build programs and then end meet it: threads'
# first_queries_from_eight_threads_at_once, whose eight threads each make a context. A stack
# overflow is then a plain SIGSEGV instead of ASan's report; nothing else changes.
export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:intercept_tls_get_addr=0:use_sigaltstack=0
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Left out: tests of packaging and headers (no code of ours runs), the Open3D comparison (Python),
# the checkers that bring their own instrumentation, and the poison runs (they check kernels; their
# host code is the staged runs', which do run here).
exec ctest --test-dir "$dir" --output-on-failure \
    -E '^(package_consumer|exported_symbols|apple_headers|peer_.*|python|oclgrind_kernels|sanitized_suite|valgrind_.*|fuzz_.*|.*_poison_.*)$'
