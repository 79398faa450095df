"""The mutation score's report: a summary, then every survivor with its diff, so that it can be
killed with a test or listed as equivalent."""

import collections
import json

import folders

KILLED, TIMED_OUT, SURVIVED = "killed", "timed out", "survived"
EQUIVALENT_LISTED, EQUIVALENT_OBJECT, NOT_BUILT = ("equivalent (listed)",
                                                   "equivalent (same object code)",
                                                   "did not build")
# A survivor of an earlier run whose code was rewritten before --rerun-survivors: not scored,
# listed with its diff against the code it mutated.
GONE = "gone (its code was rewritten)"


def score(counts):
    """Killed (timeouts included) over the mutants that count: equivalent and unbuilt ones
    do not."""
    detected = counts[KILLED] + counts[TIMED_OUT]
    scored = detected + counts[SURVIVED]
    return detected, scored, (100.0 * detected / scored if scored else 0.0)


def summary_lines(counts, checked, not_compiling):
    detected, scored, percent = score(counts)
    return [
        f"compile checks: {checked} mutants tried, {not_compiling} did not compile (dropped)",
        f"killed:         {counts[KILLED]}",
        f"timed out:      {counts[TIMED_OUT]}",
        f"survived:       {counts[SURVIVED]}",
        f"equivalent:     {counts[EQUIVALENT_LISTED] + counts[EQUIVALENT_OBJECT]}"
        f" ({counts[EQUIVALENT_LISTED]} listed in scripts/mutation-equivalent.txt,"
        f" {counts[EQUIVALENT_OBJECT]} with the original's object code)",
        f"did not build:  {counts[NOT_BUILT]}",
    ] + ([f"gone:           {counts[GONE]} (survivors whose code was rewritten since;"
          " not scored)"] if counts[GONE] else []) + [
        f"score:          {detected}/{scored} = {percent:.1f}% of the non-equivalent mutants"
        " killed (timeouts count as killed)",
    ]


def folder_table(results, files_per_folder):
    """The score of each reporting folder, as a Markdown table: files mutated, files the
    sample reached, and the outcomes."""
    by_folder = collections.defaultdict(list)
    for r in results:
        by_folder[folders.folder_of(r["mutant"].path)].append(r)
    lines = ["| folder | files (in sample) | killed | timed out | survived | equivalent | gone |"
             " score |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for folder in sorted(by_folder):
        rows = by_folder[folder]
        counts = collections.Counter(r["outcome"] for r in rows)
        reached = len({r["mutant"].path for r in rows})
        detected, scored, percent = score(counts)
        lines.append(
            f"| {folder} | {files_per_folder.get(folder, reached)} ({reached}) |"
            f" {counts[KILLED]} | {counts[TIMED_OUT]} | {counts[SURVIVED]} |"
            f" {counts[EQUIVALENT_LISTED] + counts[EQUIVALENT_OBJECT]} | {counts[GONE]} |"
            f" {percent:.1f}% ({detected}/{scored}) |")
    return lines


def write(report_path, json_path, command, results, originals, checked, not_compiling,
          files_per_folder):
    counts = collections.Counter(r["outcome"] for r in results)
    with open(report_path, "w", encoding="utf-8") as f:
        f.write("# Mutation score\n\n")
        f.write(f"Command: `{command}`\n\n```\n" + "\n".join(
            summary_lines(counts, checked, not_compiling)) + "\n```\n\n")
        f.write("\n".join(folder_table(results, files_per_folder)) + "\n")
        for outcome in (SURVIVED, TIMED_OUT, NOT_BUILT, GONE):
            chosen = [r for r in results if r["outcome"] == outcome]
            if not chosen:
                continue
            f.write(f"\n## {outcome.capitalize()} ({len(chosen)})\n")
            for r in chosen:
                mutant = r["mutant"]
                f.write(f"\n### {mutant.id}  {mutant.path}:{mutant.line}\n\n```diff\n")
                if outcome == GONE:
                    f.write("".join(f"-{line}\n" for line in mutant.old) +
                            "".join(f"+{line}\n" for line in mutant.new))
                else:
                    f.write(mutant.diff(originals[mutant.path]))
                f.write("```\n")
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump({"command": command, "checked": checked, "not_compiling": not_compiling,
                   "counts": dict(counts),
                   "mutants": [{"id": r["mutant"].id, "path": r["mutant"].path,
                                "line": r["mutant"].line, "old": list(r["mutant"].old),
                                "new": list(r["mutant"].new),
                                "outcome": r["outcome"], "tests": r.get("tests", []),
                                "seconds": round(r.get("seconds", 0.0), 1)}
                               for r in results]}, f, indent=1)
    return counts
