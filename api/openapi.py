"""Write the OpenAPI document the code generates: ``python -m api.openapi > openapi.yaml``."""

from __future__ import annotations

import sys

from api import create_app
from api.health import spec_yaml
from service.bootstrap import open_service


def generate() -> str:
    """The OpenAPI document as YAML (built from the code, no database needed)."""
    app = create_app(open_service("memory://", migrate=False))
    return spec_yaml(app.extensions["cardhall_api"])


if __name__ == "__main__":
    sys.stdout.write(generate())
