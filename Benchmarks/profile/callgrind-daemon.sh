#!/bin/sh
# Profiles binderyd with callgrind while bindery-bench drives its pipelined scenario, then prints
# the functions with the most inclusive and the most self cost (instructions executed).
#
#   Benchmarks/profile/callgrind-daemon.sh            # 20,000 pipelined requests
#   REQUESTS=50000 TOP=25 Benchmarks/profile/callgrind-daemon.sh
#
# Environment: REQUESTS (default 20000), TOP (rows per listing, default 15), SCRATCH (the build
# folder, default .build-bench), OUT (the callgrind file, default /tmp/binderyd.callgrind.out).
set -eu
cd "$(dirname "$0")/../.."
SCRATCH=${SCRATCH:-.build-bench}
REQUESTS=${REQUESTS:-20000}
TOP=${TOP:-15}
OUT=${OUT:-/tmp/binderyd.callgrind.out}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# -gdwarf-4: valgrind 3.19 cannot read the DWARF 5 that clang writes for the C target by default.
for product in binderyd rawpipe bindery-bench; do
    swift build -c release --scratch-path "$SCRATCH" --product "$product" -Xcc -gdwarf-4 >&2
done
BIN=$(cd "$SCRATCH/release" && pwd -P)

# valgrind 3.19 cannot run a program that calls dispatchMain() without this (see the .c file).
cc -O2 -shared -fPIC Benchmarks/profile/sigsuspend-shim.c -o "$WORK/sigsuspend-shim.so" -ldl

# The daemon the bench spawns: binderyd under callgrind (but not for the bench's --version probe).
cat > "$WORK/binderyd" <<WRAPPER
#!/bin/sh
if [ "\${1:-}" = --version ]; then exec "$BIN/binderyd" "\$@"; fi
LD_PRELOAD="$WORK/sigsuspend-shim.so" exec valgrind --tool=callgrind --callgrind-out-file="$OUT" "$BIN/binderyd" "\$@"
WRAPPER
chmod +x "$WORK/binderyd"

rm -f "$OUT"
"$BIN/bindery-bench" --no-build --daemon "$WORK/binderyd" --only pipelined --requests "$REQUESTS"

# Rows of callgrind_annotate as "instructions  percent  function", Swift names demangled, the file
# and object dropped, each function once (callgrind lists a function once per file it was inlined
# from).
demangle() { if command -v swift-demangle >/dev/null 2>&1; then swift-demangle --simplified; else cat; fi; }
rows() {
    callgrind_annotate --threshold=100 "$@" "$OUT" 2>/dev/null | demangle \
        | grep -E '^ *[0-9,]+ \( *[0-9.]+%\)  ' | grep -v 'PROGRAM TOTALS' \
        | sed -E 's/^ *([0-9,]+) \( *([0-9.]+%)\)  [^:]*:(.*)$/\1  \2  \3/; s/ \[[^]]*\]$//' \
        | awk '{ key = $0; sub(/^[^ ]+  [^ ]+  /, "", key); if (!seen[key]++) print }'
}
TOTAL=$(callgrind_annotate "$OUT" 2>/dev/null | grep 'PROGRAM TOTALS' | sed -E 's/^ *([0-9,]+).*/\1/')
echo
echo "== $TOTAL instructions in binderyd for $REQUESTS pipelined setFields (start-up included)"
echo
echo "== inclusive cost, top $TOP (thread entry points, dispatch/concurrency frames, thunks, closures"
echo "   and swift_release's recursive deinit chains left out)"
rows --inclusive=yes \
    | grep -vE 'libdispatch|_dispatch_|swift_job_run|__swift_run_job|jobInvoke|runJobInEstablishedExecutorContext|future_adapter|swift_task_switch|start_thread|startThread|partial apply|thunk for|closure #|swift_release|doDecrementSlow|_swift_release_dealloc|deallocating_deinit|Server.start\(\)|readLoop|  0x[0-9a-f]+$' \
    | head -n "$TOP"
echo
echo "== self cost, top $TOP"
rows | head -n "$TOP"
echo
echo "callgrind output: $OUT (callgrind_annotate $OUT, or kcachegrind)"
