"""The records resource: a game's ``cardhall-record/1``, finished games' records in bulk (JSON Lines),
a record checked and replayed for a viewer, and the format's JSON Schema."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

from flask import Response, current_app, request, stream_with_context, url_for
from flask.views import MethodView
from marshmallow import fields, validate

from api.accounts import ACCOUNT_NAME
from api.context import bearer_token, service
from api.games import OPTIONAL_BEARER, problems, ready
from api.limits import charge_read
from api.parsing import Blueprint, json_body
from api.schemas import CURSOR_PATTERN, GAME_NAME_PATTERN, Pattern, Strict
from domain import records as formats
from service import records
from service.errors import BadRequest

blp = Blueprint("records", __name__, url_prefix="", description="Game records that travel (cardhall-record/1).")
SCHEMA_URL = "/schemas/cardhall-record-1.json"
#: The largest record a viewer may send to be checked and replayed (a long game's full record).
MAX_RECORD_BYTES = 8 << 20
#: A record, as the OpenAPI document describes it: its JSON Schema is served apart (SCHEMA_URL), not inlined.
RECORD = {"type": "object", "description": f"A cardhall-record/1 document; its JSON Schema: {SCHEMA_URL}"}
RECORD_RESPONSE = {"description": "A cardhall-record/1 document", "content": {"application/json": {"schema": RECORD}}}


class RecordsQuerySchema(Strict):
    game = fields.String(validate=Pattern(GAME_NAME_PATTERN), metadata={"pattern": GAME_NAME_PATTERN})
    since = fields.AwareDateTime(metadata={"description": "Only games created at or after this time (RFC 3339)"})
    account = fields.String(validate=Pattern(ACCOUNT_NAME),
                            metadata={"description": "Only games with a seat of this account", "pattern": ACCOUNT_NAME})
    limit = fields.Integer(load_default=records.MAX_RECORDS_PAGE,
                           validate=validate.Range(min=1, max=records.MAX_RECORDS_PAGE))
    cursor = fields.String(validate=Pattern(CURSOR_PATTERN),
                           metadata={"description": "The Next-Cursor of the previous page", "pattern": CURSOR_PATTERN})


class ReplaySchema(Strict):
    valid = fields.Boolean()
    problems = fields.List(fields.String())
    views = fields.List(fields.Dict(), metadata={"description": "The spectator's view after each event, from "
                                                                "version 1 (empty unless valid)"})


@blp.route("/v1/games/<game_id:game_id>/record")
class GameRecord(MethodView):
    @blp.doc(operationId="getRecord", security=OPTIONAL_BEARER, responses={"200": RECORD_RESPONSE})
    @problems(401, 403, 404)
    def get(self, game_id: str) -> Response:
        """The game's cardhall-record/1 document as the caller may see it: a finished game's hides
        nothing; a running game's shows only what the caller (a seat's token, else a spectator) may see."""
        record = records.record(service(), game_id, bearer_token())
        charge_read(len(record["events"]))
        return ready(record)


@blp.route("/v1/records")
class Records(MethodView):
    @blp.doc(operationId="listRecords", responses={"200": {
        "description": "JSON Lines: one finished game's full record a line, newest first. The header Next-Cursor "
                       "(and Link rel=next) gives the next page's cursor; none on the last page. Sent gzipped "
                       "when the request accepts gzip",
        "content": {"application/jsonl": {"schema": {"type": "string"}}}}})
    @blp.arguments(RecordsQuerySchema(), location="query")
    @problems(422)
    def get(self, query: dict[str, Any]) -> Response:
        """Finished games' records in bulk, as JSON Lines, paged by cursor; charged to the client's read budget
        the events of every game the page reads, as one game's record is."""
        lines, cursor, events = records.finished_records(service(), game=query.get("game"), since=query.get("since"),
                                                         account=query.get("account"), limit=query["limit"],
                                                         cursor=query.get("cursor"))
        charge_read(events)
        body: Iterator[bytes] = records.json_lines(lines)
        headers = {"Vary": "Accept-Encoding"}
        if cursor is not None:
            headers["Next-Cursor"] = cursor
            following = {**request.args.to_dict(), "cursor": cursor}
            headers["Link"] = f'<{url_for("records.Records", **following)}>; rel="next"'
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            body, headers["Content-Encoding"] = _gzipped(body), "gzip"
        return Response(stream_with_context(body), mimetype="application/jsonl", headers=headers)


@blp.route("/v1/records/replay")
class Replay(MethodView):
    #: Larger than the app's MAX_CONTENT_LENGTH: the ASGI mount reads a body this far for this route (api/mount.py).
    max_content_length = MAX_RECORD_BYTES

    @blp.doc(operationId="replayRecord", requestBody={
        "required": True, "content": {"application/json": {"schema": RECORD}}})
    @blp.response(200, ReplaySchema)
    @problems(400, 413, 415, 422)
    def post(self) -> Response:
        """Check a record (its schema, its rules replay, its commitments) and, when it is sound, the
        spectator's view after every event: what the /replay page steps through. Nothing is stored.
        A record may be up to 8 MiB; it is charged to the client's read budget the events it holds."""
        request.max_content_length = self.max_content_length
        document = json_body(request)  # (413 for a chunked record past the limit, not a record cut short)
        if not isinstance(document, dict):
            raise BadRequest("a record is a JSON object")
        events = document.get("events")
        charge_read(len(events) if isinstance(events, list) else 0)  # (each replayed, and a view made of each)
        return ready(records.replay_views(document))


@blp.route(SCHEMA_URL)
class RecordSchema(MethodView):
    @blp.doc(operationId="getRecordSchema", responses={"200": {
        "description": "The JSON Schema (draft 2020-12) of cardhall-record/1",
        "content": {"application/schema+json": {"schema": {"type": "object"}}}}})
    def get(self) -> Response:
        """The JSON Schema of the cardhall-record/1 format (also domain/cardhall-record-1.json in the repository)."""
        response = current_app.json.response(formats.schema())
        response.mimetype = "application/schema+json"
        response.headers["Cache-Control"] = "public, max-age=86400"
        return response


def _gzipped(body: Iterator[bytes]) -> Iterator[bytes]:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)  # (31: the gzip container)
    for chunk in body:
        if packed := packer.compress(chunk):
            yield packed
    yield packer.flush()
