"""Jinja2 rendering of world strings, with helpers that know the built repos."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import jinja2

from . import WorldError

_SINGLE = re.compile(r"^\s*\{\{-?(.*?)-?\}\}\s*$", re.DOTALL)


def parse_time(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, bool):
        raise WorldError(f"not a timestamp: {value!r}")
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            raise WorldError(f"not an RFC 3339 timestamp: {value!r}") from None
        return dt if dt.tzinfo else dt.replace(tzinfo=UTC)
    raise WorldError(f"not a timestamp: {value!r}")


def rfc3339(dt: datetime) -> str:
    dt = dt.astimezone(UTC)
    if dt.microsecond:
        return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


class Renderer:
    def __init__(self, shas: dict[str, dict[str, str]], heads: dict[str, str],
                 dates: dict[str, dict[str, str]], host: str, world_vars: dict, host_root: str = "",
                 server: str = "", ca_data: str = ""):
        self.shas = shas
        self.heads = heads
        self.dates = dates
        self.env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                      autoescape=False)
        g = self.env.globals
        g.update(sha=self.sha, sha7=self.sha7, head=self.head, commit_date=self.commit_date,
                 unix=self.unix, iso=self.iso, host=host, host_root=host_root, server=server, ca_data=ca_data)
        self.env.filters.update(unix=self.unix, iso=self.iso)
        # vars are rendered in order; each may use helpers and the vars before it
        rendered: dict = {}
        for key, value in world_vars.items():
            g["vars"] = rendered
            rendered[key] = self.render(value, f"vars.{key}")
            g[key] = rendered[key]
        g["vars"] = rendered

    # -- helpers -------------------------------------------------------------------------------
    def _lookup(self, args: tuple) -> tuple[str, str]:
        if len(args) == 2:
            repo, label = args
            if repo not in self.shas:
                raise WorldError(f"sha(): no repo {repo!r} (repos: {sorted(self.shas)})")
            if label not in self.shas[repo]:
                raise WorldError(f"sha(): repo {repo!r} has no commit {label!r} "
                                 f"(ids: {list(self.shas[repo])})")
            return repo, label
        if len(args) == 1:
            label = args[0]
            found = [r for r, m in self.shas.items() if label in m]
            if len(found) != 1:
                raise WorldError(f"sha({label!r}): commit id found in {len(found)} repos "
                                 f"{found}; write sha('<repo>', {label!r})")
            return found[0], label
        raise WorldError("sha() takes (label) or (repo, label)")

    def sha(self, *args: str) -> str:
        repo, label = self._lookup(args)
        return self.shas[repo][label]

    def sha7(self, *args: str) -> str:
        return self.sha(*args)[:7]

    def commit_date(self, *args: str) -> str:
        repo, label = self._lookup(args)
        return self.dates[repo][label]

    def head(self, repo: str | None = None) -> str:
        if repo is None:
            if len(self.heads) != 1:
                raise WorldError(f"head(): name the repo, one of {sorted(self.heads)}")
            repo = next(iter(self.heads))
        if repo not in self.heads:
            raise WorldError(f"head({repo!r}): repo unknown or has no commits (repos: {sorted(self.heads)})")
        return self.heads[repo]

    @staticmethod
    def unix(value: Any, plus: int = 0) -> int:
        return int(parse_time(value).timestamp()) + int(plus)

    @staticmethod
    def iso(value: Any, plus: float = 0) -> str:
        return rfc3339(parse_time(value) + timedelta(seconds=plus))

    # -- rendering -----------------------------------------------------------------------------
    def render(self, value: Any, where: str) -> Any:
        """Render every string in value. A string that is exactly one `{{ expr }}` keeps the
        expression's type (so `"{{ unix('...') }}"` gives a JSON number)."""
        if isinstance(value, dict):
            return {self.render(k, f"{where} (key)") if isinstance(k, str) else k:
                    self.render(v, f"{where}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [self.render(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if not isinstance(value, str) or ("{{" not in value and "{%" not in value):
            return value
        try:
            m = _SINGLE.match(value)
            if m and "{{" not in m.group(1) and "}}" not in m.group(1) and "{%" not in value:
                result = self.env.compile_expression(m.group(1), undefined_to_none=False)()
                if isinstance(result, jinja2.Undefined):
                    result._fail_with_undefined_error()
                return result
            return self.env.from_string(value).render()
        except WorldError as exc:
            raise WorldError(f"{where}: {exc}") from None
        except jinja2.TemplateError as exc:
            line = getattr(exc, "lineno", None)
            raise WorldError(f"{where}: template error{f' (line {line})' if line else ''}: {exc}") from None
        except (TypeError, ValueError) as exc:
            raise WorldError(f"{where}: template error: {exc}") from None
