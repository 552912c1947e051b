#!/bin/sh
# `make fuzz`: every libFuzzer harness of the ASan+UBSan build runs for
# FUZZ_SECONDS (default 60) from its seed corpus (tests/fuzz/corpus/<name>,
# read only: new inputs go to a scratch directory, kept under
# build-asan/fuzz-out/<name> for a look).  FUZZ_ONLY="dcerpc rpc_pipe"
# runs some.  Any crash, leak or sanitizer report fails the run; the
# reproducer is left in build-asan/fuzz-out/<name>/ (crash-*, leak-*).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/build-asan/tests/fuzz"
out="$top/build-asan/fuzz-out"
secs=${FUZZ_SECONDS:-60}
passed=0
failed=0
for f in "$bin"/fuzz_*; do
	[ -x "$f" ] && [ -f "$f" ] || continue
	case "$f" in *.o) continue ;; esac
	name=${f##*/fuzz_}
	if [ -n "${FUZZ_ONLY:-}" ]; then
		case " $FUZZ_ONLY " in *" $name "*) ;; *) continue ;; esac
	fi
	corpus="$top/tests/fuzz/corpus/$name"
	work="$out/$name"
	mkdir -p "$work/new"
	printf 'fuzz %-14s %ss ... ' "$name" "$secs"
	if (cd "$work" && "$f" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$work/" "$work/new" \
		$( [ -d "$corpus" ] && echo "$corpus" ) >"$work/log" 2>&1); then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
			"$work/log" | tail -1)
		echo "ok (${execs:-?} runs)"
		passed=$((passed + 1))
	else
		echo "FAILED (log: $work/log)"
		tail -20 "$work/log"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
