#!/usr/bin/env python3
"""`make stress`: races, churn, soak and fuzz time, bounded, with their
figures written to docs/reliability.md (RELIABILITY.md's goals G1-G11).

    tests/stress/run.py                 short mode (~20 minutes)
    tests/stress/run.py --long          long mode (~2.5 hours: 30-minute
                                        soaks, longer races, fuzz CPU
                                        time per harness)
    tests/stress/run.py --only churn    one part (symlink, churn, races,
                                        limits, teardown, soak, soak-asan,
                                        fuzz, durability, catalogue;
                                        repeatable)

Parts: symlink_race.py (G10), churn.py (T5, G7), races.py (item 41 under
ASan+UBSan), limits.py (G4, G5, G7: idle, stalled and reset clients, the
slow bad-input cases), teardown.py (T10, item 42 under ASan+UBSan),
soak.py (T13, G11, heap after a burst), soak_asan.py (the soak on the
ASan+UBSan build: G11's sanitizer count), fuzz.py (G1),
durability.py (T8, G6: kill -9 with WRITEs in flight, fsync before the
reply; copy, splice and io_uring-off), catalogue.py (G2, G8, G9: the
bad-input catalogue, the io_uring fallbacks and the authentication rules
that make test checks, with their counts).  Each
prints its figures; report.py keeps the figures of earlier runs for the
parts not run this time and leaves every section of docs/reliability.md
it did not write as it was.  Exit status 1 when any part found a problem.
"""
import argparse
import datetime
import os
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import common                                            # noqa: E402
import report                                            # noqa: E402

PARTS = ("symlink", "churn", "races", "limits", "teardown", "soak",
         "soak-asan", "fuzz", "durability", "catalogue")


def part_module(name):
    import importlib
    return importlib.import_module({"symlink": "symlink_race",
                                    "soak-asan": "soak_asan"}.get(name,
                                                                  name))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--long", action="store_true",
                    help="long mode (30-minute soak, fuzz CPU time)")
    ap.add_argument("--only", action="append", choices=PARTS, default=[])
    ap.add_argument("--skip", action="append", choices=PARTS, default=[])
    ap.add_argument("--report", default=str(common.REPO / "docs" /
                                            "reliability.md"),
                    help="the report to update ('' for none)")
    ap.add_argument("--smbd", default=str(common.RELEASE_SMBD),
                    help="release smbd (rates, symlink race, churn, soak)")
    ap.add_argument("--asan-smbd", default=str(common.ASAN_SMBD),
                    help="ASan+UBSan smbd (races)")
    ap.add_argument("--note", default="",
                    help="a remark kept with this run's figures (e.g. what "
                    "else ran on the machine)")
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    parts = [p for p in (args.only or PARTS) if p not in args.skip]
    mode = "long" if args.long else "short"
    command = "make stress" + (" LONG=1" if args.long else "")
    print("make stress (%s mode): %s" % (mode, ", ".join(parts)))
    print("machine: %s" % common.machine())
    results, failed = {}, []
    for name in parts:
        binary = args.asan_smbd if name in ("races", "teardown",
                                            "soak-asan") \
            else args.smbd
        if name != "fuzz" and not Path(binary).exists():
            print("%s: %s not found (make build / make asan)"
                  % (name, binary))
            failed.append(name)
            continue
        base = tempfile.mkdtemp(prefix="ringsmb-stress-")
        t0 = time.monotonic()
        load = os.getloadavg()[0]
        print("== %s" % name)
        try:
            tree = common.make_tree(base) if name != "fuzz" else None
            fig, problems = part_module(name).run(tree, args.long, binary)
        except Exception:                  # noqa: BLE001
            fig, problems = None, [traceback.format_exc()]
        finally:
            shutil.rmtree(base, ignore_errors=True)
        took = time.monotonic() - t0
        for p in problems:
            print("  PROBLEM: %s" % p)
        print("  %s: %s in %.0f s" % (name, "FAILED" if problems else "ok",
                                      took))
        if problems:
            failed.append(name)
        if fig is not None:
            results[name] = {
                "mode": mode, "command": command + (
                    "" if not args.only else " STRESS_ARGS='%s'" %
                    " ".join("--only " + p for p in parts)),
                "date": datetime.date.today().isoformat(),
                "machine": common.machine(), "seconds": round(took),
                "load1": round(load, 1), "note": args.note,
                "ok": not problems, "problems": [p[:300] for p in problems],
                "figures": fig}
    if args.report and results:
        report.update(Path(args.report), results)
        print("report: %s" % os.path.relpath(args.report))
    print("stress: %s" % ("FAILED: " + ", ".join(failed) if failed
                          else "all parts ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
