"""Runs the `unit`, `property` and `executorch` tests of the scratch build (the default gate
less the CUDA label and the tests that install and build a consumer) and says what failed."""

import dataclasses
import os
import re
import subprocess
import time

LABELS = "^(unit|property|executorch)$"
# They configure and build a consumer project against an installed tree (minutes each), which
# the shared-library scratch build cannot serve.
NEVER_RUN = ["install_consumer", "executorch_consumer"]


@dataclasses.dataclass
class TestOutcome:
    failed: list  # tests that failed (not by timeout)
    timed_out: list
    seconds: float


def _regex_alternatives(names):
    return "|".join("^" + re.escape(n) + "$" for n in names)


def run_tests(build_dir, jobs, timeout, excluded, log, stop_on_failure=True):
    args = ["ctest", "--test-dir", build_dir, "-L", LABELS, "-j", str(jobs),
            "--timeout", str(timeout), "--output-on-failure"]
    if stop_on_failure:
        args.append("--stop-on-failure")
    args += ["-E", _regex_alternatives(NEVER_RUN + list(excluded))]
    failed_log = os.path.join(build_dir, "Testing", "Temporary", "LastTestsFailed.log")
    if os.path.exists(failed_log):
        os.remove(failed_log)
    start = time.monotonic()
    with open(log, "w") as out:
        # The whole run is bounded too: a mutant can hang a test binary's discovery or make a
        # test ignore ctest's timeout by leaving children behind.
        try:
            subprocess.run(args, stdout=out, stderr=subprocess.STDOUT,
                           timeout=max(600, 20 * timeout))
        except subprocess.TimeoutExpired:
            return TestOutcome([], ["(the whole test run)"], time.monotonic() - start)
    seconds = time.monotonic() - start
    with open(log, encoding="utf-8", errors="replace") as f:
        text = f.read()
    timed_out = sorted(set(re.findall(r"Test\s+#\d+: (\S+) \.+\*\*\*Timeout", text)))
    failed = []
    if os.path.exists(failed_log):
        with open(failed_log, encoding="utf-8") as f:
            failed = [line.split(":", 1)[1].strip() for line in f if ":" in line]
    failed = sorted(set(failed) - set(timed_out))
    return TestOutcome(failed, timed_out, seconds)
