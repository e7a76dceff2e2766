"""Schemathesis against the whole OpenAPI document: every default check, zero server errors.

Runs in-process (WSGI) on a fresh memory store, stateless per operation and
then stateful, following the document's links (create → seat → state/moves/events).
"""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings

from api import create_app
from service.bootstrap import open_service

app = create_app(open_service("memory://", migrate=False, max_wait=0.05), CARDHALL_SSE_HEARTBEAT=0.05,
                 CARDHALL_STREAM_MAX=0.2)
schema = schemathesis.openapi.from_wsgi("/openapi.json", app)


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_conforms_to_the_document(case):
    case.call_and_validate()


APIWorkflow = schema.as_state_machine()
APIWorkflow.TestCase.settings = settings(
    max_examples=40, stateful_step_count=8, deadline=None, suppress_health_check=list(HealthCheck)
)
TestStatefulWorkflows = APIWorkflow.TestCase
