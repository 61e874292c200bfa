#!/usr/bin/env python3
"""Before/after table of `cargo run --release --example cpu_per_call` outputs.

    python3 bench/cpu_per_call_summary.py BEFORE-1.txt,BEFORE-2.txt,... AFTER-1.txt,... [--min US]

Medians over the runs of each (collective, algorithm, p); rows where either
median is at least --min µs (default 3). Fails if an algorithm's message
count differs between the two (the change was meant to keep the pattern)."""
import collections
import statistics
import sys


def load(paths):
    runs = collections.defaultdict(list)
    for path in paths.split(','):
        for line in open(path):
            if line.startswith('#') or not line.strip():
                continue
            coll, algo, p, messages, us = line.split()
            runs[(coll, algo, int(p))].append((int(messages), float(us)))
    return {k: (v[0][0], statistics.median(us for _, us in v)) for k, v in runs.items()}


def main():
    args = sys.argv[1:]
    least = 3.0
    if '--min' in args:
        i = args.index('--min')
        least = float(args[i + 1])
        del args[i:i + 2]
    before, after = load(args[0]), load(args[1])
    print('| collective | algorithm | p | messages | µs before | µs after | after / before |')
    print('|---|---|---|---|---|---|---|')
    differ = []
    for key in sorted(before.keys() & after.keys()):
        (mb, tb), (ma, ta) = before[key], after[key]
        if mb != ma:
            differ.append(key)
        if max(tb, ta) >= least:
            print(f'| {key[0]} | {key[1]} | {key[2]} | {ma} | {tb:.2f} | {ta:.2f} | {ta / tb:.2f} |')
    if differ:
        sys.exit(f'message counts differ: {differ}')


if __name__ == '__main__':
    main()
