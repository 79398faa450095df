"""Mutants of one source file, as made by universalmutator.

universalmutator writes every mutant as a whole copy of the file. We keep only the change: the
range of original lines it replaces and the lines it puts there. A mutant's id is a hash of its
file and of the stripped text before and after, so it survives edits elsewhere in the file
(line numbers do not); scripts/mutation-equivalent.txt names mutants by that id.
"""

import dataclasses
import difflib
import hashlib
import json
import os
import subprocess
import tempfile

CACHE_VERSION = 1


@dataclasses.dataclass(frozen=True)
class Mutant:
    path: str  # relative to the repository root
    start: int  # first replaced line, 0-based
    end: int  # one past the last replaced line (start == end: lines inserted)
    old: tuple  # the replaced lines
    new: tuple  # the lines put in their place
    # An insertion's anchor: the line it follows ("" at the top of the file).
    anchor: str = ""
    # How many earlier lines of the file read the same as old[0] (or, for an insertion, as the
    # anchor): tells apart the same change made to two identical lines.
    occurrence: int = 0

    @property
    def id(self):
        text = "\0".join([self.path, "\n".join(l.strip() for l in self.old) or self.anchor.strip(),
                           "\n".join(l.strip() for l in self.new), str(self.occurrence)])
        return hashlib.sha1(text.encode()).hexdigest()[:12]

    @property
    def line(self):  # 1-based, for people
        return self.start + 1

    def apply(self, lines):
        """The mutated file, given the original's lines (without line ends)."""
        return lines[:self.start] + list(self.new) + lines[self.end:]

    def diff(self, lines):
        mutated = self.apply(lines)
        return "".join(
            difflib.unified_diff([l + "\n" for l in lines], [l + "\n" for l in mutated],
                                 "a/" + self.path, "b/" + self.path, n=3))


def strip_comments(line):
    """The code of one line: // and /* */ comments removed (outside string and character
    literals), surrounding space removed."""
    out = []
    i = 0
    quote = None
    while i < len(line):
        c = line[i]
        if quote:
            out.append(c)
            if c == "\\":
                out.append(line[i + 1:i + 2])
                i += 2
                continue
            if c == quote:
                quote = None
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            close = line.find("*/", i + 2)
            i = len(line) if close < 0 else close + 2
            continue
        else:
            if c in "\"'":
                quote = c
            out.append(c)
        i += 1
    return "".join(out).strip()


def changes_code(mutant):
    """False for a change that only touches comments or spacing: not a mutant at all."""
    return [strip_comments(l) for l in mutant.old
            if strip_comments(l)] != [strip_comments(l) for l in mutant.new if strip_comments(l)]


def _single_change(path, original, mutated):
    ops = [op for op in difflib.SequenceMatcher(None, original, mutated, autojunk=False)
           .get_opcodes() if op[0] != "equal"]
    if len(ops) != 1:
        return None
    _, i1, i2, j1, j2 = ops[0]
    return Mutant(path, i1, i2, tuple(original[i1:i2]), tuple(mutated[j1:j2]),
                  anchor(original, i1, i2), occurrence(original, i1, i2))


def anchor(original, start, end):
    return original[start - 1] if end == start and start > 0 else ""


def occurrence(original, start, end):
    anchor = start if end > start else start - 1
    if anchor < 0:
        return 0
    text = original[anchor].strip()
    return sum(1 for line in original[:anchor] if line.strip() == text)


def generate(repo, path, mutate_tool, cache_dir):
    """Every distinct mutant of repo/path that changes code, cached by the file's content."""
    with open(os.path.join(repo, path), encoding="utf-8") as f:
        text = f.read()
    original = text.split("\n")
    digest = hashlib.sha1(text.encode()).hexdigest()
    cache = os.path.join(cache_dir, path.replace("/", "__") + ".json")
    if os.path.exists(cache):
        with open(cache, encoding="utf-8") as f:
            stored = json.load(f)
        if stored.get("digest") == digest and stored.get("version") == CACHE_VERSION:
            return [Mutant(path, m[0], m[1], tuple(original[m[0]:m[1]]), tuple(m[2]),
                           anchor(original, m[0], m[1]), occurrence(original, m[0], m[1]))
                    for m in stored["mutants"]]

    suffix = os.path.splitext(path)[1]
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "source" + suffix)
        with open(source, "w", encoding="utf-8") as f:
            f.write(text)
        out = os.path.join(tmp, "mutants")
        os.mkdir(out)
        subprocess.run([mutate_tool, source, "cpp", "--noCheck", "--mutantDir", out],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seen = {}
        for name in sorted(os.listdir(out)):
            with open(os.path.join(out, name), encoding="utf-8", errors="replace") as f:
                mutant = _single_change(path, original, f.read().split("\n"))
            if mutant and changes_code(mutant):
                seen.setdefault((mutant.start, mutant.end, mutant.new), mutant)
    mutants = sorted(seen.values(), key=lambda m: (m.start, m.end, m.new))
    os.makedirs(cache_dir, exist_ok=True)
    with open(cache, "w", encoding="utf-8") as f:
        json.dump({"version": CACHE_VERSION, "digest": digest,
                   "mutants": [[m.start, m.end, list(m.new)] for m in mutants]}, f)
    return mutants
