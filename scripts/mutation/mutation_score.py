"""Measured mutation score of the default gate's tests (scripts/mutation-score.sh).

Generates every mutant of the chosen C++ files with universalmutator, shuffles them with the
seed, keeps the first N that compile (this shard's share), builds each incrementally in a
scratch tree and runs the tests. Writes report.md (survivors with their diffs) and
results.json in the work folder."""

import argparse
import concurrent.futures
import json
import os
import random
import shlex
import sys
import time

import compile_check
import equivalents
import folders
import mutants as mutant_source
import report
import scratch_tree
import test_run

DEFAULT_ROOTS = ("runtime_ext/", "mocks/")
CXX_SUFFIXES = (".cpp", ".h")


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="scripts/mutation-score.sh",
        description="Mutation score of the unit and property tests, measured with "
        "universalmutator on a reproducible sample of compiling mutants.")
    parser.add_argument("--sample", type=int, default=300, metavar="N",
                        help="mutants to test, across all shards (default 300)")
    parser.add_argument("--seed", type=int, default=1, metavar="S",
                        help="seed of the shuffle that picks the sample (default 1)")
    parser.add_argument("--per-folder", type=int, metavar="N",
                        help="instead of --sample: N mutants from each reporting folder "
                        "(at least one per file, taken round-robin over its files), and the "
                        "score of each folder; default PATH: the folders of the report")
    parser.add_argument("--shard", default="1/1", metavar="I/N",
                        help="test only shard I of N (each takes its share of the sample "
                        "from its own slice of the shuffled mutants; default 1/1)")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="C++ files or folders to mutate (default: the .cpp files of "
                        "runtime_ext/ and mocks/ that the build compiles, tests excluded)")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    parser.add_argument("--test-timeout", type=int, default=60, metavar="SECONDS",
                        help="ctest's timeout for each test (default 60)")
    parser.add_argument("--work", default=os.environ.get(
        "MUTATION_DIR", os.path.join(os.environ.get("TMPDIR", "/tmp"), "devplan-mutation")),
                        help="scratch folder, kept between runs (default "
                        "$TMPDIR/devplan-mutation)")
    parser.add_argument("--rerun-survivors", metavar="RESULTS_JSON",
                        help="test again only the mutants that survived in an earlier run's "
                        "results.json (after tests were added; the source files must be "
                        "unchanged) and report the combined outcome")
    parser.add_argument("--mutate-tool", required=True, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        index, count = (int(x) for x in args.shard.split("/"))
        if not 1 <= index <= count:
            raise ValueError
    except ValueError:
        parser.error(f"--shard: expected I/N with 1 <= I <= N, got '{args.shard}'")
    args.shard_index, args.shard_count = index, count
    if args.sample < 1:
        parser.error(f"--sample: expected a positive count, got {args.sample}")
    if args.per_folder is not None and args.per_folder < 1:
        parser.error(f"--per-folder: expected a positive count, got {args.per_folder}")
    if args.jobs < 1:
        parser.error(f"--jobs: expected a positive count, got {args.jobs}")
    return args


def say(*parts):
    print("mutation-score:", *parts, flush=True)


def fail(message):
    """Stops with exit status 2: the score could not be measured."""
    print("mutation-score: " + message, file=sys.stderr, flush=True)
    sys.exit(2)


def expand_paths(repo, paths):
    """The C++ files PATH names (folders expanded, test folders left out), relative to the
    repository; checked before anything is built. None for the default set."""
    if not paths:
        return None
    files = []
    for given in paths:
        full = os.path.realpath(os.path.join(repo, given) if not os.path.isabs(given) else given)
        relative = os.path.relpath(full, repo)
        if relative.startswith(".."):
            fail(f"{given}: not inside the repository {repo}")
        if os.path.isdir(full):
            for folder, _, names in os.walk(full):
                for name in sorted(names):
                    path = os.path.relpath(os.path.join(folder, name), repo)
                    if name.endswith(CXX_SUFFIXES) and "/test/" not in "/" + path:
                        files.append(path)
        elif os.path.isfile(full):
            if not full.endswith(CXX_SUFFIXES):
                fail(f"{given}: not a C++ file (.cpp or .h)")
            files.append(relative)
        else:
            fail(f"{given}: no such file or folder")
    if not files:
        fail(" ".join(paths) + ": no C++ files outside test/")
    return sorted(set(files))


def chosen_files(database, named, per_folder):
    """The files to mutate that the scratch build compiles (a header: a source in its folder)."""
    if named is None and per_folder:
        return folders.default_files(database.sources())
    if named is None:
        return [p for p in database.sources() if p.startswith(DEFAULT_ROOTS) and
                p.endswith(".cpp") and "/test/" not in p]
    built = [f for f in named if database.syntax_check_command(f, f) is not None]
    for f in sorted(set(named) - set(built)):
        say(f"skipping {f}: the scratch build compiles nothing in its folder")
    return built


def pick_sample(args, database, all_mutants, originals):
    """This shard's share of the sample: the first mutants of its slice of the shuffled list
    that compile. Checked in parallel, in order, so the pick does not depend on --jobs."""
    order = sorted(all_mutants, key=lambda m: (m.path, m.start, m.end, m.new))
    random.Random(args.seed).shuffle(order)
    candidates = order[args.shard_index - 1::args.shard_count]
    quota = args.sample // args.shard_count + (
        1 if args.shard_index - 1 < args.sample % args.shard_count else 0)
    chosen, checked = [], 0
    batch = 4 * args.jobs
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        while len(chosen) < quota and checked < len(candidates):
            group = candidates[checked:checked + batch]
            verdicts = list(pool.map(
                lambda m: compile_check.compiles(database, m, originals[m.path]), group))
            for mutant, ok in zip(group, verdicts):
                checked += 1
                if ok:
                    chosen.append(mutant)
                    if len(chosen) == quota:
                        break
    if len(chosen) < quota:
        say(f"only {len(chosen)} of the {len(candidates)} mutants of this shard compile;"
            f" testing those")
    return chosen, checked, checked - len(chosen)


def pick_per_folder(args, database, all_mutants, originals):
    """The sample of --per-folder: in each folder, rounds that take each file's next compiling
    mutant until the folder has N (or one per file, if it has more files than N). Every shard
    makes the same pick (the compile checks are cheap) and tests every shard_count-th of it."""
    chosen, checked = [], 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for folder, file_queues in folders.queues(all_mutants, args.seed).items():
            quota = max(args.per_folder, len(file_queues))
            positions = [0] * len(file_queues)
            taken = []

            def next_compiling(i):
                """File i's next compiling mutant (None when it has no more) and how many
                were checked to find it."""
                queue, tried = file_queues[i], 0
                while positions[i] < len(queue):
                    mutant = queue[positions[i]]
                    positions[i] += 1
                    tried += 1
                    if compile_check.compiles(database, mutant, originals[mutant.path]):
                        return mutant, tried
                return None, tried

            while len(taken) < quota:
                live = [i for i in range(len(file_queues)) if positions[i] < len(file_queues[i])]
                if not live:
                    break
                for mutant, tried in pool.map(next_compiling, live):
                    checked += tried
                    if mutant and len(taken) < quota:
                        taken.append(mutant)
            if len(taken) < quota:
                say(f"{folder}: only {len(taken)} compiling mutants (wanted {quota})")
            chosen += taken
    mine = chosen[args.shard_index - 1::args.shard_count]
    return mine, checked, checked - len(chosen)


def survivors_of(results_path, all_mutants):
    """The survivors of an earlier run, found again by file, line and mutated text, and the
    earlier run's other outcomes (kept as they were: tests were only added since)."""
    try:
        with open(results_path, encoding="utf-8") as f:
            earlier = json.load(f)
        records = earlier["mutants"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        fail(f"{results_path}: not a results.json of an earlier run ({error})")
    by_text = {}
    for m in all_mutants:
        by_text.setdefault((m.path, tuple(m.new)), []).append(m)

    def find(record):
        """Today's mutant with the record's id, else the one making the same change nearest
        to the record's line (the file may have moved since); None when the code it mutated
        was rewritten."""
        candidates = by_text.get((record["path"], tuple(record["new"])), [])
        for m in candidates:
            if m.id == record["id"]:
                return m
        if not record["old"]:
            # An insertion ("continue;", "break;") is only itself where its anchor line is: the
            # same words inserted elsewhere are another mutant.
            return None
        candidates = [m for m in candidates if list(m.old) == record["old"]]
        ranked = sorted(candidates, key=lambda m: abs(m.line - record["line"]))
        if not ranked or (len(ranked) > 1 and abs(ranked[0].line - record["line"]) == abs(
                ranked[1].line - record["line"])):
            return None
        return ranked[0]

    def as_recorded(record):
        return mutant_source.Mutant(record["path"], record["line"] - 1,
                                    record["line"] - 1 + len(record["old"]),
                                    tuple(record["old"]), tuple(record["new"]))

    survivors, kept = [], []
    for record in records:
        mutant = find(record)
        if mutant is None:
            # Its code is gone (rewritten or moved to another file since): nothing to test.
            outcome = (report.GONE if record["outcome"] == report.SURVIVED
                       else record["outcome"])
            kept.append({"mutant": as_recorded(record), "outcome": outcome,
                         "tests": record.get("tests", []), "seconds": record.get("seconds", 0)})
        elif record["outcome"] == report.SURVIVED:
            survivors.append(mutant)
        else:
            kept.append({"mutant": mutant, "outcome": record["outcome"],
                         "tests": record.get("tests", []), "seconds": record.get("seconds", 0)})
    return survivors, kept, earlier.get("checked", 0), earlier.get("not_compiling", 0)


def rebuilt_objects(database, since):
    objects = [database.object_of(p) for p in database.sources()]
    return [o for o in objects if o and os.path.exists(o) and os.path.getmtime(o) >= since]


def test_mutants(args, tree, database, chosen, originals, listed, excluded):
    object_files = [database.object_of(p) for p in database.sources()]
    baseline_objects = scratch_tree.object_digests(object_files)
    logs = os.path.join(args.work, "logs")
    os.makedirs(logs, exist_ok=True)
    results = []
    ordered = sorted(chosen, key=lambda m: (m.path, m.start, m.id))
    current = None
    try:
        for number, mutant in enumerate(ordered, 1):
            start = time.monotonic()
            result = {"mutant": mutant}
            if mutant.id in listed:
                result["outcome"] = report.EQUIVALENT_LISTED
            else:
                if current and current != mutant.path:
                    tree.restore(current, originals[current])
                current = mutant.path
                tree.write(mutant.path, mutant.apply(originals[mutant.path]))
                since = time.time() - 1
                if not tree.build(os.path.join(logs, "build.log")):
                    result["outcome"] = report.NOT_BUILT
                else:
                    rebuilt = rebuilt_objects(database, since)
                    digests = scratch_tree.object_digests(rebuilt)
                    if rebuilt and all(baseline_objects.get(o) == d for o, d in digests.items()):
                        result["outcome"] = report.EQUIVALENT_OBJECT
                    else:
                        outcome = test_run.run_tests(tree.build_dir, args.jobs,
                                                     args.test_timeout, excluded,
                                                     os.path.join(logs, "test.log"))
                        if outcome.failed:
                            result["outcome"], result["tests"] = report.KILLED, outcome.failed
                        elif outcome.timed_out:
                            result["outcome"], result["tests"] = (report.TIMED_OUT,
                                                                  outcome.timed_out)
                        else:
                            result["outcome"] = report.SURVIVED
            result["seconds"] = time.monotonic() - start
            results.append(result)
            by = f" by {result['tests'][0]}" if result.get("tests") else ""
            say(f"[{number}/{len(ordered)}] {mutant.id} {mutant.path}:{mutant.line}"
                f" {result['outcome']}{by} ({result['seconds']:.0f} s)")
    finally:
        if current:
            tree.restore(current, originals[current])
            tree.build(os.path.join(logs, "build.log"))
    return results


def main(argv):
    args = parse_args(argv)
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    named = expand_paths(repo, args.paths)
    try:
        listed = equivalents.load(os.path.join(repo, "scripts", "mutation-equivalent.txt"))
    except ValueError as error:
        fail(str(error))
    os.makedirs(args.work, exist_ok=True)
    begin = time.monotonic()
    tree = scratch_tree.ScratchTree(repo, args.work, args.jobs)
    tree.sync()
    if not tree.configure(os.path.join(args.work, "configure.log")):
        say(f"configuring the scratch tree failed (see {args.work}/configure.log)")
        return 2
    say(f"building the scratch tree {tree.src} in {tree.build_dir}")
    if not tree.build(os.path.join(args.work, "build-baseline.log")):
        say(f"the unmutated tree does not build (see {args.work}/build-baseline.log)")
        return 2
    database = compile_check.CompileDatabase(tree.build_dir, tree.src)
    files = chosen_files(database, named, args.per_folder)
    if not files:
        say("nothing to mutate")
        return 2
    originals, all_mutants = {}, []
    for path in files:
        with open(os.path.join(repo, path), encoding="utf-8") as f:
            originals[path] = f.read().split("\n")
        all_mutants += mutant_source.generate(repo, path, args.mutate_tool,
                                              os.path.join(args.work, "mutants"))
    say(f"{len(all_mutants)} distinct mutants of {len(files)} files"
        f" (changes of comments or spacing left out)")
    earlier = []
    if args.rerun_survivors:
        chosen, earlier, checked, not_compiling = survivors_of(args.rerun_survivors, all_mutants)
        say(f"testing again the {len(chosen)} survivors of {args.rerun_survivors}"
            f" ({len(earlier)} other outcomes kept)")
    elif args.per_folder:
        chosen, checked, not_compiling = pick_per_folder(args, database, all_mutants, originals)
        say(f"per-folder sample of shard {args.shard}: {len(chosen)} compiling mutants"
            f" ({checked} checked, seed {args.seed})")
    else:
        chosen, checked, not_compiling = pick_sample(args, database, all_mutants, originals)
        say(f"sample of shard {args.shard}: {len(chosen)} compiling mutants"
            f" ({checked} checked, seed {args.seed})")

    baseline = test_run.run_tests(tree.build_dir, args.jobs, args.test_timeout, [],
                                  os.path.join(args.work, "test-baseline.log"),
                                  stop_on_failure=False)
    excluded = baseline.failed + baseline.timed_out
    if excluded:
        say("these tests fail without any mutant and are left out: " + ", ".join(excluded))
    say(f"baseline tests: {baseline.seconds:.0f} s")

    results = earlier + test_mutants(args, tree, database, chosen, originals, listed, excluded)
    command = "scripts/mutation-score.sh " + " ".join(shlex.quote(a) for a in argv)
    report_path = os.path.join(args.work, "report.md")
    counts = report.write(report_path, os.path.join(args.work, "results.json"), command.strip(),
                          results, originals, checked, not_compiling,
                          folders.file_count(files))
    print()
    for line in report.summary_lines(counts, checked, not_compiling):
        print(line)
    print()
    for line in report.folder_table(results, folders.file_count(files)):
        print(line)
    print(f"report:         {report_path} (survivors with their diffs)")
    print(f"time:           {time.monotonic() - begin:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
