"""The web application: server-rendered pages over one study file.

Every error reaches the person as a plain-text message with a 4xx status (5xx only for a fault
of the server, still without a traceback). Tokens travel in the path, so pages send no
Referer; the media route serves only files that are media of the person's own items, from
inside a media root.

Media roots, in the order a file is looked for: the root stored at creation (an ``answer``
study's own clip folder, ``STUDY-clips/``, or the ``--media`` given to ``create``), the
``STUDY-clips/`` folder beside the study file (the study moved with its clips), then the
``--media`` given to ``serve``. ``--media`` only adds a place to look: it cannot hide the
study's own clips, so ``serve STUDY --media BENCHMARK`` still serves the clips cut at creation.
A ``--media`` under which some referenced media file is still not found is refused at start.
"""

from __future__ import annotations

import logging
import posixpath
import secrets
import socket
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from taskqa.problems import InvalidInputError, Problem
from taskqa.studio import db
from taskqa.studio.exports import export_files
from taskqa.studio.kinds import get_kind
from taskqa.studio.kinds.base import Kind
from taskqa.studio.queue import (
    AccessError,
    Person,
    own_response,
    person_for,
    queue_state,
    record_view,
    stage_of,
    stage_status,
    submit,
)
from taskqa.studio.security import MAX_FORM_BYTES, FormError, csrf_ok, csrf_token, parse_form
from taskqa.studio.summary import agreement, per_category, rater_stats

SESSION_COOKIE = "studio_session"
log = logging.getLogger("taskqa.studio")
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # links carry tokens
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; media-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "Cache-Control": "no-store",
}


@dataclass
class Study:
    path: Path
    media_roots: tuple[Path, ...]  # resolved; a media file is served from the first that has it
    # One connection per server thread, opened on the thread's first request and kept: opening
    # a connection (file check, schema read, pragmas, the WAL index) and closing it cost more
    # than the queries of a request. A connection is never shared between threads.
    _local: threading.local = field(default_factory=threading.local, repr=False)

    @cached_property
    def kind(self) -> Kind:
        with self.connect() as connection:
            return get_kind(str(db.meta(connection)["kind"]))

    @cached_property
    def secret(self) -> str:
        with self.connect() as connection:
            return str(db.meta(connection)["secret"])

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = db.connect(self.path)
            self._local.connection = connection
        try:
            yield connection
        finally:
            if connection.in_transaction:  # never hand a half-done transaction to a next request
                connection.execute("ROLLBACK")


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS`` to every response a route sends (those it sets itself win).

    A plain ASGI middleware: Starlette's ``BaseHTTPMiddleware`` (``@app.middleware``) runs each
    request in a task group of its own, which cost a fifth of the server's time per request.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _templates() -> Environment:
    return Environment(
        loader=PackageLoader("taskqa.studio", "templates"),
        autoescape=select_autoescape(["html"]),
        keep_trailing_newline=True,
        auto_reload=False,  # the templates ship with the package: no mtime check per page
    )


@dataclass(frozen=True)
class MediaCheck:
    """Whether the media files a study's items name can be found under its media roots."""

    roots: tuple[Path, ...]
    referenced: int  # distinct media paths the items name
    missing: tuple[str, ...]  # of those, the ones found under no root

    def summary(self) -> str:
        """One line for the organiser: how many media files were found, and where it looked."""
        where = ", ".join(str(root) for root in self.roots) or "no media root"
        if not self.referenced:
            return "no item has a media file"
        found = self.referenced - len(self.missing)
        return f"{found} of {self.referenced} media files found (looked in {where})"


def media_roots(study_path: Path, stored: str | None, extra: Path | None) -> tuple[Path, ...]:
    """Where a study's media files are looked for, in order (see the module's docstring)."""
    beside = study_path.with_name(f"{study_path.stem}-clips")
    candidates = [Path(stored) if stored else None, beside if beside.is_dir() else None, extra]
    roots: list[Path] = []
    for candidate in candidates:
        if candidate is not None and candidate.resolve() not in roots:
            roots.append(candidate.resolve())
    return tuple(roots)


def check_media(connection: sqlite3.Connection, roots: tuple[Path, ...]) -> MediaCheck:
    rows = connection.execute(
        "SELECT DISTINCT media FROM items WHERE media IS NOT NULL AND media != '' ORDER BY media"
    ).fetchall()
    names = [str(row[0]) for row in rows]
    missing = tuple(name for name in names if _locate(roots, name) is None)
    return MediaCheck(roots, len(names), missing)


def create_app(study_path: Path, media_root: Path | None = None) -> FastAPI:
    """The app for one study; ``media_root`` (``serve --media``) is a further place to look for
    media files, after the study's own (see the module's docstring).

    A ``media_root`` that is not a folder, or under which some media file the items name is
    still not found, is refused (``InvalidInputError``): the raters would wait on a video that
    never comes. Without one, what is missing is only reported (``app.state.media``).
    """
    probe = db.connect(study_path)  # refuses a missing or foreign file at once
    try:
        stored = db.meta(probe).get("media_root")
        if media_root is not None and not media_root.is_dir():
            raise InvalidInputError(
                [Problem(str(media_root), "", "--media is not a folder (the media root to add)")]
            )
        roots = media_roots(study_path, str(stored) if stored else None, media_root)
        checked = check_media(probe, roots)
    finally:
        probe.close()
    if media_root is not None and checked.missing:
        message = _missing_message(checked) + (
            ". --media only adds a folder to look in (the study's own media come first): "
            "give the folder that holds these files, or leave --media out"
        )
        raise InvalidInputError([Problem(str(media_root), "", message)])
    study = Study(study_path, roots)
    study.kind  # noqa: B018 -- fails now, not on the first request, for an unknown kind
    templates = _templates()
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.state.media = checked
    static = Path(__file__).with_name("static")
    app.mount("/static", StaticFiles(directory=static), name="static")
    _handlers(app)

    app.add_middleware(SecurityHeaders)

    def page(name: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(templates.get_template(name).render(**context), status_code=status)

    @app.get("/", response_class=PlainTextResponse)
    def home() -> str:
        return "taskqa studio: open the invitation link you were given.\n"

    @app.get("/healthz", response_class=PlainTextResponse)
    def health() -> str:
        return "ok\n"

    @app.get("/r/{token}")
    def queue(token: str) -> Response:
        with study.connect() as connection:
            person = person_for(connection, token, "rater")
            state = queue_state(connection, person)
        if state.next_item is not None:
            return RedirectResponse(f"/r/{token}/items/{state.next_item}", status_code=303)
        return page("done.html", state=state, person=person, kind=study.kind)

    @app.get("/r/{token}/items/{item_id}")
    def item_page(token: str, item_id: str, request: Request) -> Response:
        number = _item_number(item_id)
        session = request.cookies.get(SESSION_COOKIE) or secrets.token_urlsafe(24)
        with study.connect() as connection:
            person = person_for(connection, token, "rater")
            stage = stage_of(connection, person, number)
            answered = own_response(connection, person, number)
            status = "ready" if answered is not None else stage_status(connection, number, stage)
            if status == "wait":
                raise AccessError(f"item {number} waits for the other reviewers", 409)
            if status == "skip":
                raise AccessError(f"item {number} needs no decision: the reviewers agreed", 409)
            if answered is None:
                record_view(connection, person, number)
            item = _item(connection, number)
            context = study.kind.context(connection, item, stage)
            state = queue_state(connection, person)
        response = page(
            study.kind.template,
            kind=study.kind,
            item=item,
            stage=stage,
            answered=answered,
            state=state,
            person=person,
            token=token,
            csrf=csrf_token(study.secret, person.id, session),
            submission_id=secrets.token_urlsafe(18),
            media_url=f"/media/{token}/{item.media}" if item.media else None,
            **context,
        )
        response.set_cookie(
            SESSION_COOKIE, session, httponly=True, samesite="strict", max_age=30 * 86_400
        )
        return response

    @app.post("/r/{token}/items/{item_id}")
    async def answer(token: str, item_id: str, request: Request) -> Response:
        number = _item_number(item_id)
        form = parse_form(await _bounded_body(request))
        session = request.cookies.get(SESSION_COOKIE)
        await run_in_threadpool(_store, study, token, number, form, session)
        # acknowledged only now: the row is committed (in the WAL, see db.py) before this returns
        return RedirectResponse(f"/r/{token}", status_code=303)

    @app.get("/media/{token}/{path:path}")
    def media(token: str, path: str) -> Response:
        if not study.media_roots:
            raise AccessError("this study has no media root", 404)
        with study.connect() as connection:
            person = _any_person(connection, token)
            relative = posixpath.normpath(path)
            if relative == ".." or relative.startswith(("../", "/")):
                raise AccessError("path outside the media root")
            if not _may_see_media(connection, person, relative):
                raise AccessError("not a media file of your items", 404)
        target = _locate(study.media_roots, relative)
        if target is None:
            raise AccessError("media file not found", 404)
        return FileResponse(target)

    @app.get("/admin/{token}")
    def progress(token: str) -> Response:
        with study.connect() as connection:
            person_for(connection, token, "admin")
            stats = rater_stats(connection, study.kind)
            context: dict[str, Any] = {
                "stats": stats,
                "categories": per_category(connection),
                "agreement": agreement(connection, study.kind),
                "exports": sorted(export_files(connection, study.kind)),
                "meta": db.meta(connection),
            }
        return page("progress.html", kind=study.kind, token=token, **context)

    @app.get("/admin/{token}/exports/{name}")
    def download(token: str, name: str) -> Response:
        with study.connect() as connection:
            person_for(connection, token, "admin")
            files = export_files(connection, study.kind)
        if name not in files:
            raise AccessError(f"no export named {name!r}", 404)
        media_type = "application/json" if name.endswith(".json") else "application/x-ndjson"
        return Response(
            files[name],
            media_type=media_type,
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    return app


def _missing_message(checked: MediaCheck) -> str:
    shown = ", ".join(checked.missing[:3])
    if len(checked.missing) > 3:
        shown += f" and {len(checked.missing) - 3} more"
    where = ", ".join(str(root) for root in checked.roots) or "it has none"
    return (
        f"{len(checked.missing)} of the {checked.referenced} media files the study's items "
        f"name are in none of its media roots ({where}): {shown}"
    )


def _locate(roots: tuple[Path, ...], relative: str) -> Path | None:
    """The file ``relative`` names under the first root that has it; never outside a root
    (a link that leads out of its root is not followed)."""
    for root in roots:
        target = (root / relative).resolve()
        if target.is_relative_to(root) and target.is_file():
            return target
    return None


def _listener(host: str, port: int) -> socket.socket:
    """A bound TCP socket; the port actually bound is known before uvicorn starts (``--port 0``)."""
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, protocol, _, address = info[0]
        listener = socket.socket(family, kind, protocol)
    except OSError as error:
        raise InvalidInputError(
            [Problem(f"{host}:{port}", "", f"cannot listen: {error}")]
        ) from None
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
    except OSError as error:
        listener.close()
        message = f"cannot listen: {error.strerror or error}"
        raise InvalidInputError([Problem(f"{host}:{port}", "", message)]) from None
    return listener


def served_url(listener: socket.socket) -> str:
    host, port = listener.getsockname()[:2]
    shown = f"[{host}]" if ":" in str(host) else str(host)
    return f"http://{shown}:{port}/"


def _print(line: str) -> None:
    print(line, file=sys.stdout, flush=True)


def serve(
    study_path: Path,
    media_root: Path | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    echo: Callable[[str], None] = _print,
) -> None:
    """``taskqa studio serve``: the app under uvicorn, saying where it listens and when it stops.

    Prints ``studio: serving STUDY at URL (Ctrl-C to stop)`` once the server accepts
    connections, a line on its media files (a warning when some are missing), and
    ``studio: stopped`` when it has shut down (Ctrl-C or SIGTERM). A refused study or media
    root, or an address it cannot listen on, raises ``InvalidInputError`` before anything is
    served.
    """
    import uvicorn

    application = create_app(study_path, media_root)
    checked: MediaCheck = application.state.media
    listener = _listener(host, port)
    url = served_url(listener)
    config = uvicorn.Config(application, log_level="warning", access_log=False)

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                echo(f"studio: serving {study_path} at {url} (Ctrl-C to stop)")
                if checked.missing:
                    echo(f"studio: warning: {_missing_message(checked)}; their items show no video")
                elif checked.referenced:
                    echo(f"studio: media: {checked.summary()}")

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            await super().shutdown(sockets=sockets)
            echo("studio: stopped")

    try:
        Server(config).run(sockets=[listener])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it shut down on: that is the end
        pass
    finally:
        listener.close()


def _store(
    study: Study, token: str, item_id: int, form: dict[str, str], session: str | None
) -> None:
    with study.connect() as connection:
        person = person_for(connection, token, "rater")
        stage = stage_of(connection, person, item_id)
        if not csrf_ok(study.secret, person.id, session, form.get("csrf")):
            raise FormError("the form's security token does not match; reload the page", 403)
        item = _item(connection, item_id)
        response = study.kind.parse(form, item, stage, connection)
        submit(connection, person, item_id, stage, form.get("submission_id", ""), response)


def _item_number(text: str) -> int:
    if not text.isdigit() or len(text) > 9:
        raise AccessError(f"no item {text[:40]!r}", 404)
    return int(text)


def _item(connection: sqlite3.Connection, item_id: int) -> db.Item:
    row = connection.execute(
        f"SELECT {db.ITEM_COLUMNS} FROM items WHERE id = ?", (item_id,)
    ).fetchone()
    if row is None:
        raise AccessError(f"no item {item_id}", 404)
    return db.item_from_row(row)


def _any_person(connection: sqlite3.Connection, token: str) -> Person:
    try:
        return person_for(connection, token, "rater")
    except AccessError as error:
        if "does not open" not in str(error):
            raise
    return person_for(connection, token, "admin")


def _may_see_media(connection: sqlite3.Connection, person: Person, relative: str) -> bool:
    if person.role == "admin":
        query, arguments = "SELECT 1 FROM items WHERE media = ?", (relative,)
    else:
        query = (
            "SELECT 1 FROM items JOIN assignments ON assignments.item_id = items.id "
            "WHERE items.media = ? AND assignments.rater_id = ?"
        )
        arguments = (relative, person.id)  # type: ignore[assignment]
    return connection.execute(query + " LIMIT 1", arguments).fetchone() is not None


async def _bounded_body(request: Request) -> bytes:
    """The request body, refused (413) past the form limit before it is all read."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip()
    if content_type != "application/x-www-form-urlencoded":
        raise FormError("expected a form (application/x-www-form-urlencoded)", 415)
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_FORM_BYTES):
        raise FormError(f"form too large (more than {MAX_FORM_BYTES} bytes)", 413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise FormError(f"form too large (more than {MAX_FORM_BYTES} bytes)", 413)
    return bytes(body)


def _plain(message: str, status: int) -> PlainTextResponse:
    return PlainTextResponse(message.rstrip() + "\n", status_code=status)


def _handlers(app: FastAPI) -> None:
    @app.exception_handler(AccessError)
    async def access(_: Request, error: AccessError) -> Response:
        return _plain(str(error), error.status)

    @app.exception_handler(FormError)
    async def form(_: Request, error: FormError) -> Response:
        return _plain(str(error), error.status)

    @app.exception_handler(InvalidInputError)
    async def invalid(_: Request, error: InvalidInputError) -> Response:
        return _plain("; ".join(str(p) for p in error.problems[:5]), 400)

    @app.exception_handler(StarletteHTTPException)
    async def http(_: Request, error: StarletteHTTPException) -> Response:
        messages = {404: "not found", 405: "method not allowed"}
        return _plain(messages.get(error.status_code, str(error.detail)), error.status_code)

    @app.exception_handler(RequestValidationError)
    async def validation(_: Request, error: RequestValidationError) -> Response:
        return _plain("malformed request", 400)

    @app.exception_handler(Exception)
    async def unexpected(_: Request, error: Exception) -> Response:
        log.error("internal error: %s: %s", type(error).__name__, error)
        return _plain("internal error; the study's organiser can see the server log", 500)
