"""Does a mutant compile? Checked with the compiler's own command for the file, from the scratch
build's compile_commands.json, with -fsyntax-only: about a second a mutant, against several for
a build. The mutated text goes into a hidden file beside the original, so that its quoted
includes resolve as they would for the original. A header is checked as a translation unit of
its own, with the flags of a source file in the same folder."""

import json
import os
import shlex
import subprocess


class CompileDatabase:
    def __init__(self, build_dir, src_dir):
        with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
            entries = json.load(f)
        self.src_dir = src_dir
        self.by_path = {}
        for entry in entries:
            path = os.path.relpath(os.path.join(entry["directory"], entry["file"]), src_dir)
            self.by_path[path] = entry

    def sources(self):
        return sorted(self.by_path)

    def object_of(self, path):
        """The object file the build makes from a source file (absolute), or None."""
        entry = self.by_path.get(path)
        if not entry:
            return None
        args = shlex.split(entry["command"]) if "command" in entry else entry["arguments"]
        output = entry.get("output") or args[args.index("-o") + 1]
        return os.path.join(entry["directory"], output)

    def _entry_for(self, path):
        if path in self.by_path:
            return self.by_path[path]
        folder = os.path.dirname(path)
        for candidate in sorted(self.by_path):
            if os.path.dirname(candidate) == folder:
                return self.by_path[candidate]
        return None

    def syntax_check_command(self, path, checked_file):
        """The compiler command that checks checked_file as if it were path; None when no
        compile command covers path's folder."""
        entry = self._entry_for(path)
        if entry is None:
            return None
        args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
        if "-o" in args:
            i = args.index("-o")
            del args[i:i + 2]
        original = os.path.join(entry["directory"], entry["file"])
        args = [a for a in args if a not in ("-c", entry["file"], original)]
        if path.endswith((".h", ".hpp")):
            args += ["-x", "c++"]
        return args + ["-fsyntax-only", "-w", checked_file], entry["directory"]


def compiles(database, mutant, original_lines):
    folder = os.path.join(database.src_dir, os.path.dirname(mutant.path))
    base, suffix = os.path.splitext(os.path.basename(mutant.path))
    checked = os.path.join(folder, f".{base}.mutant-{mutant.id}{suffix}")
    command = database.syntax_check_command(mutant.path, checked)
    if command is None:
        return False
    args, cwd = command
    with open(checked, "w", encoding="utf-8") as f:
        f.write("\n".join(mutant.apply(original_lines)))
    try:
        return subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    finally:
        os.remove(checked)
