#!/usr/bin/env python3
"""Times whole commands, interleaved round by round, and prints one table with ratios.

    measure.py [--runs N] [--warmup N] [--prepare SHELL_CMD] [--check SHELL_CMD] \
               [--title T] -- LABEL COMMAND [LABEL COMMAND ...]

Each round runs every command once, so a drift of the machine's speed touches all of them
alike, in an order shuffled anew each round (seeded, so a rerun shuffles alike): no command
always follows the same one, and whatever a command leaves behind (caches it evicted, files it
deleted, work it left the kernel) falls on the others by chance, not always on its neighbour in
the list. (Rotating the list would keep every neighbour.) The table quotes
medians and each command's ratio to the first one (the reference). A command is split like a
shell would (shlex) and exec'd directly, so no shell start-up is counted. `--prepare` runs
through the shell before every timed run (not timed), with $LABEL set, e.g. to recreate an empty
database; `--check` likewise after it, and a failing check (or a non-zero exit of the command)
aborts the benchmark. Peak RSS comes from one more, untimed run of each command under GNU time
(`/usr/bin/time -f %M`): a child forked straight from Python would report Python's own memory.
The timed runs are exec'd directly, because time's own start (about 1 ms here) would be added to
every command alike and pull each ratio towards 1.
"""
import argparse
import os
import random
import shlex
import statistics
import subprocess
import sys
import time


def run(argv, env):
    """Runs argv once; its wall time in ms, exit code and the tail of its stderr."""
    start = time.perf_counter_ns()
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=env)
    elapsed_ms = (time.perf_counter_ns() - start) / 1e6
    return elapsed_ms, proc.returncode, proc.stderr.decode(errors="replace").rstrip("\n")


def peak_rss_mb(argv, env):
    """Runs argv once under GNU time; its peak RSS in MB, exit code and stderr."""
    _, code, stderr = run(["/usr/bin/time", "-f", "%M", *argv], env)
    lines = stderr.rsplit("\n", 1)
    peak_kb = float(lines[-1]) if lines[-1].isdigit() else 0.0
    return peak_kb / 1024.0, code, stderr


def shell(command, label):
    if command:
        subprocess.run(command, shell=True, check=True, env={**os.environ, "LABEL": label},
                       stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--prepare", default="")
    parser.add_argument("--check", default="")
    parser.add_argument("--title", default="")
    parser.add_argument("pairs", nargs="+")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("commands come as LABEL COMMAND pairs")
    commands = [(args.pairs[i], shlex.split(args.pairs[i + 1]))
                for i in range(0, len(args.pairs), 2)]

    def one_run(label, measure, argv):
        shell(args.prepare, label)
        value, code, stderr = measure(argv, os.environ.copy())
        if code != 0:
            sys.exit(f"{label}: exit {code}\n{stderr[-2000:]}")
        shell(args.check, label)
        return value

    rss = {label: one_run(label, peak_rss_mb, argv) for label, argv in commands}
    times = {label: [] for label, _ in commands}
    shuffler = random.Random(0)
    for round_index in range(args.warmup + args.runs):
        order = list(commands)
        shuffler.shuffle(order)
        for label, argv in order:
            elapsed = one_run(label, run, argv)
            if round_index >= args.warmup:
                times[label].append(elapsed)

    reference = statistics.median(times[commands[0][0]])
    if args.title:
        print(f"\n### {args.title}  ({args.runs} runs each, interleaved)\n")
    print("| command | median ms | min–max ms | peak RSS MB | ratio to first |")
    print("|---|---:|---:|---:|---:|")
    for label, _ in commands:
        median = statistics.median(times[label])
        print(f"| {label} | {median:.1f} | {min(times[label]):.1f}–{max(times[label]):.1f} "
              f"| {rss[label]:.1f} | {median / reference:.2f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
