"""Webhook bots: N games between bots served by a local asyncio server on 127.0.0.1.

python3 bench/webhooks.py [--games 200] [--at-once 10] [--game craits|scat] [--database sqlite|URL] [--no-share]

Two runs on one server (--webhooks-allow-private): bots answering after 50 ms (timeout 1000 ms):
turns/s and the engine's added latency per turn — from the bot's answer to its next call in the same
game, the server's time around the bot's — p50/p99; then bots answering after 200 ms with a 500 ms
timeout: the share of turns the bot played (not the clock's default move), a run four times as long
that ``--no-share`` leaves out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]  # (bench/http.py is no http)
sys.path.insert(0, str(HERE.parent))

import httpx

from bench._common import percentile, print_table, running

#: The options of each game played: a short craits runs to hundreds of turns between random bots, a
#: scat with one life to a few dozen (the smoke test's).
GAMES = {"craits": {"short": True}, "scat": {"lives": 1}}
#: How often the script asks the server whether the games it has not seen end are still running.
POLL_SECONDS = 5.0


class BotServer:
    """A minimal HTTP/1.1 server on an event loop of its own: answers /move after ``delay`` seconds."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.answered: dict[str, float] = {}  # game -> when its last move was answered
        self.added: list[float] = []
        self.ended: set[str] = set()  # games whose /end a bot was called with
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()
        self.ready.wait()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self.ready.set()
        self.loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                lines = head.decode().split("\r\n")
                length = next(int(line.split(":")[1]) for line in lines if line.lower().startswith("content-length"))
                body = json.loads(await reader.readexactly(length))
                answer = b"{}"
                if lines[0].split()[1].endswith("/move"):
                    arrived = time.monotonic()
                    if (before := self.answered.get(body["game_id"])) is not None:
                        self.added.append(arrived - before)
                    await asyncio.sleep(self.delay)
                    answer = json.dumps({"move": random.choice(body["view"]["legal_moves"])}).encode()
                    self.answered[body["game_id"]] = time.monotonic()
                elif lines[0].split()[1].endswith("/end"):
                    self.ended.add(body["game_id"])
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                             % (len(answer), answer))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


def play(base: str, bots: BotServer, games: int, timeout_ms: int, tag: str, game: str,
         at_once: int) -> tuple[list[str], float]:
    """``games`` games between pairs of webhook bots, at most ``at_once`` of them running at a time,
    waited for; their ids and the seconds they took."""
    client = httpx.Client(base_url=base, timeout=30)
    keys = []
    for number in range(2):
        key = client.post("/v1/accounts", json={"name": f"{tag}{number}", "kind": "bot"}).json()["key"]
        client.put("/v1/account/webhook", headers={"Authorization": f"Bearer {key}"},
                   json={"url": f"http://127.0.0.1:{bots.port}/{tag}{number}", "timeout_ms": timeout_ms,
                         "concurrency": 1000})
        keys.append(key)

    def start() -> str:
        made = client.post("/v1/challenges", headers={"Authorization": f"Bearer {keys[0]}"},
                           json={"game": game, "players": 2, "options": {**GAMES[game], "move_seconds": 5},
                                 "to": [f"{tag}1"]}).json()
        return client.post(f"/v1/challenges/{made['id']}/accept",
                           headers={"Authorization": f"Bearer {keys[1]}"}).json()["game_id"]

    # A game is over once its bots are called with /end, as a webhook bot learns it: the script does not poll
    # the server (its polls would be counted in the server's time around the bots'); it asks each game still
    # running every POLL_SECONDS in case an /end was not delivered.
    began, ids, running_now, asked = time.monotonic(), [], [], time.monotonic()
    while len(ids) < games or running_now:
        while len(ids) < games and len(running_now) < at_once:
            ids.append(start())
            running_now.append(ids[-1])
        time.sleep(0.02)
        running_now = [game_id for game_id in running_now if game_id not in bots.ended]
        if time.monotonic() - asked > POLL_SECONDS:
            asked = time.monotonic()
            running_now = [game_id for game_id in running_now
                           if client.get(f"/v1/games/{game_id}").json()["status"] == "active"]
    return ids, time.monotonic() - began


def outcomes(base: str, ids: list[str]) -> tuple[int, int]:
    """Turns the bots played, and turns the clock played."""
    played = timed_out = 0
    with httpx.Client(base_url=base, timeout=30) as client:
        for game_id in ids:
            calls = client.get(f"/v1/games/{game_id}/webhook-calls").json()["calls"]
            played += sum(call["outcome"] == "played" for call in calls)
            events = client.get(f"/v1/games/{game_id}/events", params={"limit": 1000}).json()["events"]
            timed_out += sum(event["type"] == "TurnTimedOut" for event in events)
    return played, timed_out


def cpu_seconds(session: int) -> float:
    """The CPU seconds the processes of session ``session`` (the server and its workers) have used (Linux)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # (after the command's name: state is field 3)
        except OSError:
            continue
        if int(fields[3]) == session:
            total += int(fields[11]) + int(fields[12])  # (utime and stime, fields 14 and 15)
    return total / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--game", choices=GAMES, default="craits")
    parser.add_argument("--database", default="sqlite")
    parser.add_argument("--at-once", type=int, default=10, help="games running at a time (default 10)")
    parser.add_argument("--no-share", action="store_true", help="only the latency run (not the 200/500 ms one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        database = f"sqlite:///{directory}/bench.db" if args.database == "sqlite" else args.database
        with running(database, Path(directory), options=("--webhooks-allow-private", "--webhook-scan-seconds",
                                                         "0.5")) as server:
            fast = BotServer(0.05)
            session = server.process.pid  # type: ignore[union-attr]  # (started in a session of its own)
            cpu = cpu_seconds(session)
            ids, seconds = play(server.base_url, fast, args.games, 1000, "fast", args.game, args.at_once)
            cpu = cpu_seconds(session) - cpu
            played, _ = outcomes(server.base_url, ids)
            slow_played = slow_timed_out = 0
            if not args.no_share:
                slow = BotServer(0.2)
                slow_ids, _ = play(server.base_url, slow, args.games, 500, "slow", args.game, args.at_once)
                slow_played, slow_timed_out = outcomes(server.base_url, slow_ids)
    added = fast.added  # (measured from the bot's answer: its 50 ms are not in it)
    print_table("Webhook bots:", ["games", "at once", "turns", "turns/s", "added p50 ms", "added p99 ms", "server CPU ms/turn",
                                  "bot's share (200/500 ms)"],
                [[args.games, args.at_once, played, f"{played / seconds:.1f}", f"{percentile(added, 0.5) * 1000:.1f}",
                  f"{percentile(added, 0.99) * 1000:.1f}", f"{cpu * 1000 / max(1, played):.1f}",
                  "-" if args.no_share else f"{100 * slow_played / max(1, slow_played + slow_timed_out):.2f} %"]],
                note="added: from a bot's answer to its next call in the game, measured at the bot (the "
                     "bot's own 50 ms are not in it); server CPU: the server's processes' CPU time over the 50 ms "
                     "run (its answers to the script's few polls included) per turn; share: turns the bot played over "
                     "those it played and the clock played")


if __name__ == "__main__":
    main()
