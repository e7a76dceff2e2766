"""A bot that lives on the platform: CARDHALL_KEY=chk_… python3 examples/live_bot.py [SERVER] (see docs/bots.md)."""
import os
import random
import sys

from cardhall_client import CardhallClient
from cardhall_client.lobby import live


def choose(view):
    return random.choice(view["legal_moves"])


server = sys.argv[1] if len(sys.argv) > 1 else "http://localhost:8000"
key = os.environ.get("CARDHALL_KEY") or sys.exit("set CARDHALL_KEY to the bot account's key (docs/bots.md)")
with CardhallClient(server, token=key) as me:  # (a key on the command line is seen by anyone listing processes)
    print("live as", me.account()["name"])
    live(me, choose, accept={"craits", "scat"}, concurrency=4)
