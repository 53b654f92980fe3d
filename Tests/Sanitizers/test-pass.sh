#!/bin/bash
# One sanitized `swift test` run of `make test-sanitized-*`, its output appended to OUT:
#   Tests/Sanitizers/test-pass.sh OUT REPORTS -- COMMAND...
# If the test process dies of a crash inside ThreadSanitizer's own runtime (a SEGV whose frame #0 is in
# __tsan::, reading the shadow of a garbage address: seen twice in pure single-threaded tests, JoinPlanTests and
# a Store test, under Swift 6.3's TSan), the report is kept aside and printed, and the run is made once more. A
# second such crash, any other crash, a failed test or any sanitizer finding fails the pass as before.
set -o pipefail
out=$1; reports=$2; shift 3
for attempt in 1 2; do
    attemptOut=$(mktemp)
    "$@" 2>&1 | tee "$attemptOut"
    status=$?
    crashed=""
    if [ $status -ne 0 ] && ! grep -qE 'Test run with [0-9]+ tests?' "$attemptOut"; then
        for report in "$reports"/report.*; do
            [ -f "$report" ] || continue
            if grep -q 'ERROR: ThreadSanitizer: SEGV' "$report" && grep -qE '^ +#0 __tsan::' "$report"; then
                crashed="$crashed $report"
            fi
        done
    fi
    if [ -n "$crashed" ] && [ $attempt -eq 1 ]; then
        echo "make: the test process crashed inside ThreadSanitizer's runtime; its report, then the run once more:"
        for report in $crashed; do cat "$report"; mv "$report" "$reports/runtime-crash.$(basename "$report")"; done
        rm -f "$attemptOut"
        continue
    fi
    cat "$attemptOut" >> "$out"
    rm -f "$attemptOut"
    exit $status
done
