#!/bin/sh
# Benchmarks, side by side with Debian's Samba smbd (see docs/performance.md)
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/.venv/bin/python3" "$top/tests/bench/bench_get.py" "$@"
