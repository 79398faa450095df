"""The folders the mutation score is reported for, and a sample that covers every file of each.

A sample drawn from all mutants at once lands where files are long and mutable; a folder of
short files (the command-line validators, the fuzz campaign) may get none. With --per-folder N
each folder gets N mutants (at least one per file), taken round-robin over its files in a
seeded order, so that a file with many mutants does not crowd out the others."""

import random

# Where the score is reported (issue 40). A file under none of them is reported under its
# first two path components.
FOLDERS = (
    "harness/cli",
    "harness/fuzz",
    "harness/engine",
    "harness/commands",
    "mocks",
    "runtime_ext/analysis",
    "runtime_ext/planning",
    "runtime_ext/executor",
)


def folder_of(path):
    """The reporting folder of a repository-relative path: the longest of FOLDERS that holds it,
    else its first two components."""
    holding = [f for f in FOLDERS if path.startswith(f + "/")]
    if holding:
        return max(holding, key=len)
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def queues(mutants, seed):
    """Per folder, one queue per file: the file's mutants shuffled with the seed, files in a
    seeded order. Returns {folder: [[mutant, ...], ...]}; a pick that takes one mutant from each
    queue in turn covers min(k, files) files with its first k."""
    by_file = {}
    for m in sorted(mutants, key=lambda m: (m.path, m.start, m.end, m.new)):
        by_file.setdefault(m.path, []).append(m)
    rng = random.Random(seed)
    for path in sorted(by_file):
        rng.shuffle(by_file[path])
    by_folder = {}
    for path in sorted(by_file):
        by_folder.setdefault(folder_of(path), []).append(path)
    out = {}
    for folder, paths in sorted(by_folder.items()):
        rng.shuffle(paths)
        out[folder] = [by_file[p] for p in paths]
    return out


def file_count(paths):
    """{folder: number of files} for the files the score mutates."""
    counts = {}
    for p in paths:
        counts[folder_of(p)] = counts.get(folder_of(p), 0) + 1
    return counts


def is_reported(path):
    return any(path.startswith(f + "/") for f in FOLDERS)


def default_files(sources):
    """The non-test .cpp files of FOLDERS that the build compiles."""
    return [p for p in sources if is_reported(p) and p.endswith(".cpp") and "/test/" not in p]
