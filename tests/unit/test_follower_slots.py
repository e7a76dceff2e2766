"""A process's follower slots: a limit for the process and one for each client; a slot given back once."""

from __future__ import annotations

import threading

import pytest

from api.followers import Followers
from service.errors import Unavailable


def test_past_the_process_limit_or_a_clients_share_a_follower_is_unavailable() -> None:
    followers = Followers(3, per_client=2)
    followers.take("stream", "10.0.0.1")
    followers.take("long_poll", "10.0.0.1")
    with pytest.raises(Unavailable, match="this address"):
        followers.take("stream", "10.0.0.1")
    followers.take("stream", "10.0.0.2")
    with pytest.raises(Unavailable, match="as many games as it can"):
        followers.take("stream", "10.0.0.3")


def test_a_slot_given_back_from_many_threads_at_once_is_given_back_once() -> None:
    changes: list[tuple[str, int]] = []
    followers = Followers(2, per_client=1, counted=lambda kind, change: changes.append((kind, change)))
    give_back = followers.take("stream", "10.0.0.1")
    other = followers.take("stream", "10.0.0.2")
    start = threading.Barrier(8)

    def racing() -> None:
        start.wait()
        give_back()

    threads = [threading.Thread(target=racing) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    followers.take("stream", "10.0.0.1")  # (its slot is free again)
    with pytest.raises(Unavailable):  # (and only its slot: the other client's is still held)
        followers.take("stream", "10.0.0.3")
    other()
    assert changes == [("stream", 1), ("stream", 1), ("stream", -1), ("stream", 1), ("stream", -1)]
