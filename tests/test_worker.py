"""A part's own thread (``pi_table.worker``): started on a named daemon thread, stopped by its
event, waited for a bounded time, and never waited for from its own thread."""

import threading

from pi_table.worker import Worker


def test_the_loop_runs_on_its_named_thread_and_ends_when_stopped():
    worker = Worker("the-test-loop")
    seen = []

    def loop():
        seen.append(threading.current_thread().name)
        worker.stopping.wait(30)

    worker.start(loop)
    worker.stop()
    assert seen == ["the-test-loop"] and worker.thread is not None and not worker.thread.is_alive()
    assert worker.thread.daemon  # a loop that never ends does not hold the table's exit


def test_a_loop_that_stops_itself_is_not_waited_for():
    worker = Worker("the-test-loop", join_s=30)
    ended = threading.Event()

    def loop():
        worker.stop()  # from its own thread: joining here would raise
        ended.set()

    worker.start(loop)
    assert ended.wait(5) and worker.stopping.is_set()


def test_a_loop_that_does_not_look_at_its_event_is_waited_for_only_join_s():
    worker = Worker("the-test-loop", join_s=0.05)
    release = threading.Event()
    worker.start(lambda: release.wait(30))
    worker.stop()
    assert worker.thread is not None and worker.thread.is_alive()  # stop came back without it
    release.set()
    worker.thread.join(5)
    assert not worker.thread.is_alive()


def test_stopping_a_worker_never_started_only_sets_its_event():
    worker = Worker("the-test-loop")
    worker.stop()
    assert worker.stopping.is_set() and worker.thread is None


def test_a_loop_that_ended_is_told_apart_from_one_not_started_or_running():
    worker = Worker("the-test-loop")
    assert worker.ended("the test") is None  # not started: nothing has died
    go_on = threading.Event()
    worker.start(lambda: go_on.wait(30))
    assert worker.ended("the test") is None
    go_on.set()
    worker.thread.join(5)
    assert worker.ended("the test") == "the test's thread has ended"  # the watchdog hears of it (tests/test_control.py)
