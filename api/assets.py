"""Swagger UI's files, served by Cardhall itself: ``/docs`` works on a machine without internet.

They come from a pinned PyPI package, ``flask-swagger-ui`` (see pyproject.toml), whose ``dist/``
folder is Swagger UI's own distribution (swagger-ui-dist, © SmartBear, Apache-2.0): its
``LICENSE`` and ``VERSION`` are served beside the files. Only the files are used, not the
package's blueprint: flask-smorest renders the page (``OPENAPI_SWAGGER_UI_URL`` points here).
"""

from __future__ import annotations

from pathlib import Path

import flask_swagger_ui
from flask import Blueprint

SWAGGER_UI_DIST = Path(flask_swagger_ui.__file__).resolve().parent / "dist"
SWAGGER_UI_URL = "/docs/assets/"

blp = Blueprint("swagger_ui_assets", __name__, static_folder=SWAGGER_UI_DIST,
                static_url_path=SWAGGER_UI_URL.rstrip("/"))
