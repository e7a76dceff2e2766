"""Liveness and the OpenAPI document."""

from __future__ import annotations

from typing import Any

import yaml
from flask import Response, current_app
from flask.views import MethodView

from api import examples
from api.context import service
from api.errors import PROBLEM
from api.parsing import Blueprint
from api.schemas import HealthSchema, ProblemSchema

blp = Blueprint("health", __name__, description="Liveness and the API's own description.")


@blp.route("/healthz")
class Health(MethodView):
    @blp.doc(operationId="health")
    @blp.response(200, HealthSchema)
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM, description="The database is unreachable",
                      examples=examples.problem_examples(503))
    def get(self) -> dict[str, Any]:
        """Liveness and database reachability."""
        return service().health()


@blp.route("/openapi.yaml")
class OpenApiYaml(MethodView):
    @blp.doc(operationId="openapiDocument")
    @blp.response(200, {"type": "object"}, content_type="application/yaml", description="OpenAPI 3.1 document")
    def get(self) -> Response:
        """This API's OpenAPI document."""
        return Response(spec_yaml(current_app.extensions["cardhall_api"]), mimetype="application/yaml")


def spec_yaml(api: Any) -> str:
    """The OpenAPI document as YAML, stable from run to run."""
    return yaml.safe_dump(api.spec.to_dict(), sort_keys=False, allow_unicode=True, width=100)
