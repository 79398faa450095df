"""The scratch copy of the source tree and its build, kept between runs so that each mutant
costs an incremental build: one object file and one shared library. The build uses shared
libraries and CMAKE_LINK_DEPENDS_NO_SHARED, so a mutant does not relink the test executables.
It is optimised (-O1, no debug information), so that a mutant that compiles to the same object
code as the original can be recognised as equivalent (trivial compiler equivalence), and it has
libstdc++'s assertions on."""

import fnmatch
import hashlib
import os
import shutil
import subprocess
import time

BUILD_SETTINGS = [
    "-G", "Ninja", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
    # libstdc++'s assertions make an out-of-range index abort instead of reading past a
    # vector's end unnoticed (what the sanitizer builds would catch).
    "-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -D_GLIBCXX_ASSERTIONS",
    "-DBUILD_SHARED_LIBS=ON", "-DCMAKE_LINK_DEPENDS_NO_SHARED=ON",
    "-DDEVPLAN_WITH_CUDA=OFF", "-DDEVPLAN_BUILD_BENCHMARKS=OFF", "-DDEVPLAN_LONG_TESTS=OFF",
]


# Folders at the top of the working tree that are not sources: builds, git, virtual
# environments, ExecuTorch's runtime (linked, not copied), outputs.
SKIPPED_AT_TOP = ("build*", ".git", ".venv*", ".deps", "out")


def source_files(top):
    """The files under `top` (relative paths), less the folders of SKIPPED_AT_TOP."""
    for folder, dirs, names in os.walk(top):
        relative_folder = os.path.relpath(folder, top)
        if relative_folder == ".":
            dirs[:] = [d for d in dirs if not any(
                fnmatch.fnmatch(d, pattern) for pattern in SKIPPED_AT_TOP)]
        for name in names:
            yield os.path.normpath(os.path.join(relative_folder, name))


class ScratchTree:
    def __init__(self, repo, work, jobs):
        self.repo = repo
        self.work = work
        self.src = os.path.join(work, "src")
        self.build_dir = os.path.join(work, "build")
        self.jobs = jobs
        # A file holding a mutant while we run; if we are interrupted it is named here, so
        # that the next run gives its restored copy a fresh time (a copy with the old time
        # would leave the mutant's object file in place).
        self.dirty_marker = os.path.join(work, "mutated-file")

    def sync(self):
        """Make the scratch copy the working tree. A file whose content changed gets a fresh
        time (a copy that kept the original's time could be older than the object the scratch
        build made from the previous copy, which would then not be rebuilt); unchanged files
        keep theirs, so nothing is rebuilt for them. Files gone from the working tree go."""
        os.makedirs(self.src, exist_ok=True)
        wanted = set(source_files(self.repo))
        for relative in wanted:
            self._copy_if_changed(relative)
        for relative in source_files(self.src):
            full = os.path.join(self.src, relative)
            if relative not in wanted and not os.path.islink(full):
                os.remove(full)
        deps = os.path.join(self.src, ".deps")  # ExecuTorch's runtime, used in place
        if os.path.isdir(os.path.join(self.repo, ".deps")) and not os.path.lexists(deps):
            os.symlink(os.path.join(self.repo, ".deps"), deps)
        if os.path.exists(self.dirty_marker):
            with open(self.dirty_marker, encoding="utf-8") as f:
                os.utime(os.path.join(self.src, f.read().strip()))
            os.remove(self.dirty_marker)

    def _copy_if_changed(self, relative):
        source = os.path.join(self.repo, relative)
        target = os.path.join(self.src, relative)
        if os.path.islink(source):
            return
        with open(source, "rb") as f:
            content = f.read()
        if os.path.exists(target):
            with open(target, "rb") as f:
                if f.read() == content:
                    return
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(content)
        shutil.copymode(source, target)

    def configure(self, log):
        with open(log, "w") as out:
            return subprocess.run(["cmake", "-S", self.src, "-B", self.build_dir] +
                                  BUILD_SETTINGS, stdout=out, stderr=subprocess.STDOUT
                                  ).returncode == 0

    def build(self, log):
        with open(log, "w") as out:
            return subprocess.run(["cmake", "--build", self.build_dir, "-j", str(self.jobs)],
                                  stdout=out, stderr=subprocess.STDOUT).returncode == 0

    def write(self, path, lines):
        """Put a file's text in the scratch tree with a fresh time."""
        with open(self.dirty_marker, "w", encoding="utf-8") as f:
            f.write(path)
        with open(os.path.join(self.src, path), "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        now = time.time()
        os.utime(os.path.join(self.src, path), (now, now))

    def restore(self, path, lines):
        self.write(path, lines)
        os.remove(self.dirty_marker)


def object_digests(paths):
    digests = {}
    for path in paths:
        if path and os.path.exists(path):
            with open(path, "rb") as f:
                digests[path] = hashlib.sha1(f.read()).hexdigest()
    return digests
