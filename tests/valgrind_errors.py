#!/usr/bin/env python3
"""Report the valgrind memcheck errors that involve fastred's code.

usage: valgrind_errors.py DIR -- COMMAND...
Runs COMMAND (which runs programs under valgrind with --log-file=DIR/vg.%p.log),
then reads the memcheck logs in DIR (one per process).

A record is one error or leak report (lines between two bare "==PID==" lines).
It counts when it is an error (invalid access, use of uninitialised values,
bad free, definite leak, ...) and one of its stack frames is in fastred: a
Rust source file (fastred is the only Rust code in the process) or a symbol or
object named fastred. Everything else is the MPI library's own noise.
Prints each counted record and a summary line; exits 1 if any was counted,
else with COMMAND's status.
"""
import glob
import re
import subprocess
import sys

KINDS = ("Invalid read", "Invalid write", "Invalid free", "Mismatched free", "uninitialised", "Conditional jump",
         "Syscall param", "definitely lost", "Source and destination overlap", "Argument 'size'")
FRAME = re.compile(r"(at|by) 0x[0-9A-Fa-f]+: ")
OURS = re.compile(r"fastred|\.rs:\d+\)")

if len(sys.argv) < 4 or sys.argv[2] != "--":
    sys.exit(__doc__)
status = subprocess.call(sys.argv[3:])
counted, records, files = 0, 0, 0
for path in sorted(glob.glob(f"{sys.argv[1]}/vg.*.log")):
    files += 1
    with open(path, errors="replace") as f:
        lines = [re.sub(r"^==\d+== ?", "", l.rstrip("\n")) for l in f]
    record = []
    for line in lines + [""]:
        if line.strip():
            record.append(line)
            continue
        if record:
            records += 1
            is_error = any(k in record[0] for k in KINDS)
            ours = any(FRAME.search(l) and OURS.search(l) for l in record)
            if is_error and ours:
                counted += 1
                print(f"--- {path}")
                print("\n".join(record))
        record = []
print(f"valgrind: {counted} errors in fastred's code ({records} records in {files} logs)")
sys.exit(1 if counted or files == 0 else status)
