"""The Python client has a method for every operation of the HTTP API (docs/bots.md, "The client")."""

from __future__ import annotations

from pathlib import Path

import yaml

from cardhall_client import CardhallClient

ROOT = Path(__file__).resolve().parents[2]

#: Each operation id of openapi.yaml, and the client's method for it.
METHODS = {
    "health": "healthz", "listGameTypes": "game_types", "listGames": "list_games", "createGame": "create_game",
    "getGame": "game", "takeSeat": "join", "getState": "state", "makeMove": "move", "resign": "resign",
    "abort": "abort", "getEvents": "events", "getAudit": "audit", "streamEvents": "stream_events",
    "createAccount": "create_account", "getAccount": "account", "getOwnAccount": "account", "listKeys": "keys",
    "addKey": "add_key", "revokeKey": "revoke_key", "getAccountEvents": "account_events",
    "streamAccountEvents": "stream_account", "listChallenges": "challenges", "createChallenge": "challenge",
    "getChallenge": "challenge_info", "acceptChallenge": "accept", "declineChallenge": "decline",
    "cancelChallenge": "cancel", "getLeaderboard": "leaderboard", "getAccountRatings": "ratings",
    "joinPool": "join_pool", "getPoolEntry": "pool_entry", "leavePool": "leave_pool", "createTournament": "create_tournament",
    "getTournament": "tournament", "listTournaments": "tournaments", "getRecord": "record",
    "listRecords": "iter_records", "replayRecord": "replay_record", "getWebhook": "webhook", "putWebhook": "set_webhook",
    "deleteWebhook": "delete_webhook", "rotateWebhookSecret": "rotate_webhook_secret",
    "getWebhookCalls": "webhook_calls", "getSubscription": "subscription", "putSubscription": "subscribe",
    "deleteSubscription": "unsubscribe", "rotateSubscriptionSecret": "rotate_subscription_secret",
    "getTournamentEntry": "tournament_entry", "putTournamentEntry": "set_tournament_entry",
}
#: Documents about the API rather than operations of it: a browser or a generator reads them.
DOCUMENTS = {"openapiDocument", "getRecordSchema"}


def test_every_operation_of_the_api_has_a_client_method():
    document = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    operations = {operation["operationId"] for path in document["paths"].values() for operation in path.values()
                  if isinstance(operation, dict) and "operationId" in operation}
    assert operations - DOCUMENTS == set(METHODS)
    assert [method for method in METHODS.values() if not callable(getattr(CardhallClient, method, None))] == []
