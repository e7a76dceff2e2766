"""Cardhall's domain: cards, the game interface and the games themselves.

Pure code only: this package imports the standard library and itself, does no
I/O, reads no clock and draws no randomness. The service passes ids, times and
chance outcomes in (see ``domain.game.ChanceRequest``).
"""
