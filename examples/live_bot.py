"""A bot that lives on the platform: python3 examples/live_bot.py KEY (see docs/bots.md)."""
import random
import sys

from cardhall_client import CardhallClient
from cardhall_client.lobby import live


def choose(view):
    return random.choice(view["legal_moves"])


with CardhallClient("http://localhost:8000", token=sys.argv[1]) as me:
    print("live as", me.account()["name"])
    live(me, choose, accept={"craits", "scat"}, concurrency=4)
