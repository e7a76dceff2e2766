"""Each benchmark script runs for a few seconds with tiny sizes and prints its table, so none can rot.

No figure is checked: these are smoke tests, not benchmarks.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_script(name: str, *args: str, postgres: str | None = None) -> str:
    """Run ``bench/<name>`` as a user would, on the PostgreSQL server ``postgres`` if given (else the script
    starts a cluster of its own); its output (the run must succeed)."""
    env = {**os.environ, "CARDHALL_TEST_POSTGRES_URL": postgres} if postgres else None
    finished = subprocess.run([sys.executable, str(ROOT / "bench" / name), *args], check=False, cwd=ROOT,
                              capture_output=True, text=True, timeout=240, env=env)
    assert finished.returncode == 0, finished.stderr[-3000:]
    return finished.stdout


def test_the_http_benchmark_plays_games_on_sqlite_and_prints_its_table() -> None:
    out = run_script("http.py", "--clients", "2", "--workers", "1", "--databases", "sqlite", "--seconds", "1")
    assert "HTTP:" in out and "healthz req/s" in out and "game/healthz" in out
    assert "machine CPU ms per healthz" in out and "per game req" in out
    assert "│ sqlite" in out


def test_the_http_benchmark_repeats_each_row_and_prints_every_runs_ratio() -> None:
    out = run_script("http.py", "--clients", "2", "--workers", "1", "--databases", "sqlite", "--seconds", "0.5",
                     "--repeat", "2")
    assert "the median of 2 runs a row" in out and "game/healthz, each run" in out
    assert re.search(r"│ +\d+% \d+% │", out), out


@pytest.mark.postgres
def test_the_http_benchmark_plays_games_on_postgresql_too(postgres_server_url: str) -> None:
    out = run_script("http.py", "--clients", "2", "--workers", "1", "--databases", "postgresql", "--seconds", "1",
                     postgres=postgres_server_url)
    assert "│ postgresql" in out


def test_the_growth_benchmark_times_young_old_and_cold_moves() -> None:
    out = run_script("growth.py", "--games", "1", "--low", "12", "--high", "60", "--window", "20")
    assert "Growth:" in out and "warm (cached table)" in out and "cold (first move after a restart)" in out


def test_the_growth_benchmark_profiles_the_move_path_in_process() -> None:
    out = run_script("growth.py", "--profile", "--low", "12", "--high", "60", "--window", "20")
    assert "moves at versions" in out and "GameService.move" in out


def test_the_store_benchmark_compares_appends_and_replay_with_eventsourcing() -> None:
    out = run_script("store.py", "--appends", "50", "--rounds", "1")
    assert "Store:" in out and "appends/s" in out and "eventsourcing" in out


def test_the_engine_benchmark_simulates_and_replays_every_game() -> None:
    out = run_script("engine.py", "--games", "1")
    assert "replay events/s" in out and "craits" in out and "scat" in out


@pytest.mark.postgres
def test_the_postgresql_throughput_benchmark_measures_one_and_two_server_processes(postgres_server_url: str) -> None:
    out = run_script("pg_throughput.py", "--processes", "1,2", "--clients", "2", "--seconds", "1",
                     postgres=postgres_server_url)
    assert "moves/s" in out


def test_the_clock_benchmark_times_out_a_burst_of_expired_games_and_measures_an_idle_sweep() -> None:
    out = run_script("clocks.py", "--games", "30", "--expired", "10", "--idle-seconds", "0.5")
    assert "Clocks: 10 of 30 clocked games expired at once" in out and "idle sweep" in out
    assert "│ sqlite" in out


def test_the_soak_prints_memory_and_the_players_moves_alone_and_beside_the_hostile_mix() -> None:
    out = run_script("soak.py", "--minutes", "0.15", "--sample", "0.1", "--clients", "1", "--hostile")
    assert "RSS MiB" in out and "hostile mix joins" in out
    assert "soak: moves alone:" in out and "soak: moves beside the hostile mix:" in out


def test_the_web_benchmark_renders_and_steps_a_finished_game_in_chromium_at_two_viewports() -> None:
    out = run_script("web.py", "--events", "40", "--tries", "1", "--steps", "5", "--runs", "1", "--viewport", "phone-360",
                     "--viewport", "laptop-1440")
    assert "Web pages:" in out and "first render" in out and "5 back" in out and "forward from server" in out
    for viewport in ("360×740", "1440×900"):
        assert re.search(rf"{viewport} +│ +\d+\.\d KB +│ +\d+\.\d KB", out), out


def test_the_screenshots_script_makes_the_readmes_three_pictures(tmp_path: Path) -> None:
    out = run_script("screenshots.py", "--out", str(tmp_path))
    sizes = {"lobby.png": (1200, 600), "table.png": (1100, 900), "table-phone.png": (780, 1688)}  # (the phone's at 2x)
    for name, size in sizes.items():
        picture = (tmp_path / name).read_bytes()
        assert picture[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", picture[16:24]) == size, name
        assert len(picture) < 300 * 1024 and f"{name}: " in out, name


def test_the_followers_benchmark_follows_games_while_movers_play_and_prints_its_table() -> None:
    out = run_script("followers.py", "--followers", "0,10", "--databases", "sqlite", "--games", "4", "--movers", "2",
                     "--seconds", "1", "--rate", "0")
    assert "Followers over 4 games, 2 movers at full speed" in out, out
    assert "delivery p99 ms" in out and "client CPU" in out
    assert re.search(r"│ sqlite ×1 +│ +10 │", out), out


def test_the_followers_benchmark_repeated_prints_each_round_and_the_medians() -> None:
    out = run_script("followers.py", "--followers", "0,10", "--databases", "sqlite", "--games", "3", "--movers", "4",
                     "--seconds", "1", "--repeat", "2")
    for round_ in (1, 2):
        assert re.search(rf"│ sqlite ×1 #{round_} +│ +0 │", out) and re.search(rf"│ sqlite ×1 #{round_} +│ +10 │", out), out
    assert re.search(r"│ sqlite ×1 median +│ +10 │ .*\d+\.\d\d× N = 0", out), out


def test_the_followers_benchmark_paces_its_movers_at_the_rate_asked() -> None:
    out = run_script("followers.py", "--followers", "10", "--databases", "sqlite", "--games", "4", "--movers", "2",
                     "--rate", "20", "--seconds", "2")
    assert "2 movers offering 20 moves/s" in out, out
    row = re.search(r"│ sqlite ×1 +│ +10 │ +(\d+) │(?: +(?:[\d.]+|nan) │){5} +(\d+) │ +(\d+) │ +(\d+) │", out, re.MULTILINE)
    assert row is not None, out
    moves_per_second, deliveries, errors = int(row[1]), int(row[2]), int(row[4])
    # The pace caps the rate (at full speed: a hundred moves/s and more). How far under it the movers stay is the
    # machine's: a CI machine with a load average of 16 on two cores once made a move take 800 ms.
    assert moves_per_second <= 22 and deliveries > 0 and errors == 0, out


def test_the_deliveries_benchmark_measures_a_long_poll_and_a_stream_frame_in_one_process() -> None:
    out = run_script("deliveries.py", "--followers", "5", "--rounds", "2", "--repeat", "2")
    assert "Deliveries: CPU per delivery in one process" in out
    assert re.search(r"│ long-poll +│ +5 │ +2 │ +-?\d+ │ +-?\d+ -?\d+ │", out), out
    assert re.search(r"│ stream +│ +5 │ +2 │ +-?\d+ │ +-?\d+ -?\d+ │", out), out


def test_the_environment_benchmark_plays_cardhall_beside_rlcard_and_open_spiel() -> None:
    out = run_script("env.py", "--seconds", "0.06", "--slice", "0.02")
    assert "cardhall env craits 4p" in out and "decisions/s" in out and "in 3 turns of 0.02 s, rows taking turns" in out
    assert re.search(r"rlcard uno 2p .* 1\.00 +1\.00–1\.00\n", out), out
    assert re.search(r"cardhall env scat 5p .* \d+\.\d\d +\d+\.\d\d–\d+\.\d\d\n", out), out
    assert "rlcard uno 2p" in out and "open_spiel crazy_eights 2p" in out and "not installed" not in out


def test_the_accounts_benchmark_challenges_in_pairs_and_prints_its_table() -> None:
    out = run_script("accounts.py", "--accounts", "4", "--rounds", "1", "--databases", "sqlite")
    assert "Accounts:" in out and "│ sqlite x1" in out and "gameStarts" in out and "challenges/s offered" in out
    burst = run_script("accounts.py", "--accounts", "4", "--rounds", "1", "--databases", "sqlite", "--rate", "0")
    assert "every pair at once" in burst


def test_the_records_benchmark_exports_validates_and_imports_and_prints_its_table() -> None:
    out = run_script("records.py", "--games", "4")
    assert "Records:" in out and "export gzip" in out and "validate" in out and "import (into SQLite)" in out
    assert "│ sqlite x1" in out


def test_the_webhooks_benchmark_plays_games_between_webhook_bots_and_prints_its_table() -> None:
    out = run_script("webhooks.py", "--games", "2", "--game", "scat")
    assert "Webhook bots:" in out and "turns/s" in out


def test_the_ladder_benchmark_plays_from_the_pools_and_audits_the_ratings() -> None:
    out = run_script("ladder.py", "--bots", "4", "--seconds", "5", "--databases", "sqlite:1")
    assert "Ladder: 4 random bots" in out and "sqlite x1" in out and "pool wait p99 s" in out
    assert "end -> ratings changed (server) p50 s" in out and "rebuild = live" in out and "the client's CPU" in out
