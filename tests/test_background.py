"""The low-priority children that build tables: they import the project, run niced, and end
when the server stops."""

from __future__ import annotations

import subprocess
import time

from companion.background import end_child, start_child


def test_a_child_imports_the_engine_and_runs_at_the_lowest_priority(tmp_path):
    out = tmp_path / "child.log"
    with open(out, "wb") as log:
        child = start_child("import os, sys, engine; print(os.nice(0), sys.argv[1])", ["hello"], log)
    assert child.wait(60) == 0
    niceness, word = out.read_text().split()
    assert int(niceness) == 19 and word == "hello"


def test_a_running_child_is_ended_and_one_that_ignores_the_request_is_killed(tmp_path):
    polite = start_child("import time; time.sleep(60)", [])
    end_child(polite, grace=10)
    assert polite.returncode is not None and polite.returncode != 0

    stubborn = start_child("import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                           "print('ready', flush=True); time.sleep(60)", [], output=subprocess.PIPE)
    assert stubborn.stdout.readline().strip() == b"ready"  # the handler is in place
    started = time.monotonic()
    end_child(stubborn, grace=0.5)
    assert stubborn.returncode == -9 and time.monotonic() - started < 30
    end_child(stubborn)  # already ended: nothing to do
    stubborn.stdout.close()
