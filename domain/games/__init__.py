"""The built-in games; importing this package registers them."""

from domain.game import register
from domain.games import craits, scat

register(craits.GAME)
register(scat.GAME)
