"""Invitation tokens, CSRF tokens and the bounded form parser.

Tokens come from ``secrets`` and only their sha256 is stored, so a copy of the study file does
not let anyone in. CSRF tokens are an HMAC of the rater and a random per-browser session cookie
under the study's secret: a form posted from another site lacks the cookie's value, and the
server keeps no session state to lose when it restarts.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import parse_qsl

TOKEN_BYTES = 24  # 192 bits: far beyond guessing, short enough for a link
MAX_FORM_BYTES = 16 * 1024  # the largest form a study page sends is a few hundred bytes
MAX_FIELDS = 40
MAX_FIELD_CHARS = 2000


class FormError(ValueError):
    """A form that cannot be used; the message is shown to the person as it is."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def csrf_token(secret: str, rater_id: int, session: str) -> str:
    message = f"{rater_id}:{session}".encode()
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def csrf_ok(secret: str, rater_id: int, session: str | None, given: str | None) -> bool:
    if not session or not given:
        return False
    return hmac.compare_digest(csrf_token(secret, rater_id, session), given)


def parse_form(body: bytes) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body, bounded in size, fields and lengths.

    A field given twice is refused rather than silently resolved: no study form repeats one.
    """
    if len(body) > MAX_FORM_BYTES:
        raise FormError(f"form too large (more than {MAX_FORM_BYTES} bytes)", 413)
    try:
        text = body.decode("utf-8")
        pairs = parse_qsl(
            text, keep_blank_values=True, strict_parsing=bool(text), max_num_fields=MAX_FIELDS
        )
    except UnicodeDecodeError:
        raise FormError("form is not UTF-8 text") from None
    except ValueError:
        raise FormError(f"malformed form (at most {MAX_FIELDS} name=value fields)") from None
    form: dict[str, str] = {}
    for name, value in pairs:
        if name in form:
            raise FormError(f"field {name!r} given twice")
        if len(value) > MAX_FIELD_CHARS:
            raise FormError(f"field {name!r} too long (more than {MAX_FIELD_CHARS} characters)")
        form[name] = value
    return form


def text_field(form: dict[str, str], name: str, limit: int, required: bool = True) -> str:
    """A stripped text field no longer than ``limit`` characters."""
    value = form.get(name, "").strip()
    if required and not value:
        raise FormError(f"field {name!r} is required")
    if len(value) > limit:
        raise FormError(f"field {name!r} too long (at most {limit} characters)")
    if any(ord(c) < 32 and c not in "\t\n\r" for c in value):
        raise FormError(f"field {name!r} contains control characters")
    return value


def choice_field(form: dict[str, str], name: str, allowed: tuple[str, ...]) -> str:
    value = form.get(name, "")
    if value not in allowed:
        raise FormError(f"field {name!r} must be one of {', '.join(allowed)}")
    return value
