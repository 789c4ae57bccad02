"""Steps run at once over one pool of slots (tools/check_examples.py's runs)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from functools import partial
from pathlib import Path

from hermetic.runs.step_pool import StepPool

REPO = Path(__file__).resolve().parent.parent

#: A step that notes when it ran: "<start> <end>" into the file it is given.
TIMED_STEP = (
    "import sys, time; start = time.monotonic(); time.sleep(float(sys.argv[2])); "
    "open(sys.argv[1], 'w').write(f'{start} {time.monotonic()}'); print('done', sys.argv[1])"
)


def _most_at_once(spans: list[tuple[float, float]]) -> int:
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    at_once = most = 0
    for _, change in events:
        at_once += change
        most = max(most, at_once)
    return most


def test_steps_share_the_slots_and_never_exceed_them(tmp_path: Path) -> None:
    def one(index: int) -> int:
        noted = tmp_path / f"{index}.span"
        command = [sys.executable, "-c", TIMED_STEP, str(noted), "0.4"]
        code, seconds = pool.run(f"step {index}", command, tmp_path / f"{index}.log")
        assert seconds >= 0.4
        return code

    with StepPool(2, {}, say=lambda line: None) as pool:
        codes = pool.each([partial(one, index) for index in range(6)])
    assert codes == [0] * 6
    spans = [
        tuple(map(float, (tmp_path / f"{index}.span").read_text().split())) for index in range(6)
    ]
    assert _most_at_once(spans) == 2  # at once, but never more than the pool's slots
    log = (tmp_path / "3.log").read_text()
    assert log.startswith(f"$ {sys.executable} -c ") and log.rstrip().endswith("3.span")


def test_a_hermetic_run_in_the_pool_takes_further_workers_from_it(tmp_path: Path) -> None:
    """The pool's environment names it as make does: a run started there finds it."""
    probe = "from hermetic.runs import jobserver; c = jobserver.from_environment(); "
    probe += "print(*(c.take() is not None for _ in range(4)))"
    with StepPool(3, {"PYTHONPATH": str(REPO)}, say=lambda line: None) as pool:
        code, _ = pool.run("probe", [sys.executable, "-c", probe], tmp_path / "probe.log")
    assert code == 0
    # The step holds the pool's first slot (the tool's own, as make's first job does); the run
    # in it takes the other two as tokens: three workers in all, no fourth.
    assert (tmp_path / "probe.log").read_text().splitlines()[-1] == "True True True False"


def test_sigterm_reaches_every_running_step_and_starts_no_other(tmp_path: Path) -> None:
    driver = textwrap.dedent(
        f"""
        import sys, time
        from functools import partial
        from pathlib import Path
        sys.path.insert(0, {str(REPO)!r})
        from hermetic.runs.step_pool import StepPool
        scratch = Path({str(tmp_path)!r})
        step = "import signal, sys, time, pathlib\\n" \\
            "def bye(signum, frame):\\n" \\
            "    pathlib.Path(sys.argv[1]).write_text('cleaned up'); sys.exit(3)\\n" \\
            "signal.signal(signal.SIGTERM, bye)\\n" \\
            "pathlib.Path(sys.argv[1] + '.started').touch()\\n" \\
            "time.sleep(60)\\n"
        def one(index):
            note = scratch / f"{{index}}.note"
            return pool.run(f"step {{index}}", [sys.executable, "-c", step, str(note)],
                            scratch / f"{{index}}.log")[0]
        with StepPool(2, {{}}, say=print) as pool:
            print("ready", flush=True)
            codes = pool.each([partial(one, index) for index in range(4)])
        print("codes", codes, flush=True)
        """
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", driver],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert runner.stdout is not None
        assert runner.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("*.started"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        runner.send_signal(signal.SIGTERM)
        output = runner.communicate(timeout=60)[0]
    finally:
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)
            runner.wait()
    assert runner.returncode == 0, output
    started = sorted(path.name for path in tmp_path.glob("*.started"))
    assert len(started) == 2, output  # two slots: two ran, the other two never started
    assert "codes [3, 3, 130, 130]" in output, output
    for name in started:
        assert (tmp_path / name.removesuffix(".started")).read_text() == "cleaned up"
    assert "SIGTERM: passed on to 2 running step(s); no further step starts" in output


def test_a_pool_started_inside_another_joins_it(tmp_path: Path) -> None:
    """A tool run as one step of a pool (make -jN) adds no slots: its steps share the outer's."""
    with StepPool(2, {}, say=lambda line: None) as outer:
        with StepPool(5, outer.env, say=lambda line: None) as inner:
            assert inner.env["MAKEFLAGS"] == outer.env["MAKEFLAGS"]

            def one(index: int) -> int:
                noted = tmp_path / f"{index}.span"
                command = [sys.executable, "-c", TIMED_STEP, str(noted), "0.3"]
                return inner.run(f"step {index}", command, tmp_path / f"{index}.log")[0]

            assert inner.each([partial(one, index) for index in range(4)]) == [0] * 4
    spans = [
        tuple(map(float, (tmp_path / f"{index}.span").read_text().split())) for index in range(4)
    ]
    # The inner tool's own slot and the outer pool's one token: two at once, not five.
    assert _most_at_once(spans) == 2


def test_each_step_s_cpu_time_is_kept_with_its_children_s(tmp_path: Path) -> None:
    """What the cores spent on a step, its children included, whatever ran beside it."""
    burn = "import time; end = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
    in_a_child = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {burn!r}])"
    with StepPool(2, {}, say=lambda line: None) as pool:
        pool.run("burns", [sys.executable, "-c", in_a_child], tmp_path / "burns.log")
        pool.run("sleeps", [sys.executable, "-c", "import time; time.sleep(0.3)"], tmp_path / "s")
    assert pool.cpu_seconds["burns"] >= 0.3
    assert pool.cpu_seconds["sleeps"] < 0.25
