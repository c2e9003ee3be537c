"""What an AppProject permits, judged with Argo CD v3.5.2's own rules (open question D of
docs/capa-drift-design.md: a port, since no read-only Argo CD command answers "is this permitted").
Sources, argo-cd v3.5.2 (`/var/cache/lab-controlplane/src/argo-cd-v3.5.2`):
- pkg/apis/application/v1alpha1/app_project_types.go globMatch: a pattern starting with "!" is a
  deny pattern (negated), "*" matches anything, else util/glob.Match;
- IsSourcePermitted: every sourceRepos entry and the source normalised by util/git NormalizeGitURL,
  matched with "/" as separator; a deny entry that does not match refuses;
- isDestinationMatched: (server or name) and namespace must match one entry, and a deny entry
  that does not match refuses;
- IsGroupKindPermitted: a cluster-scoped kind only when clusterResourceWhitelist is non-empty and
  lists it (absent and [] are the same), a namespaced kind when namespaceResourceWhitelist is
  absent or lists it ([] allows none); blacklists refuse what they list; kinds and groups
  compared with isResourceInList (Go's path/filepath.Match);
- util/glob/glob.go Match: github.com/gobwas/glob compiled with the separators; a pattern that
  does not compile matches nothing.
Tested against the cases of argo-cd's app_project_types_test.go and util/glob/glob_test.go
(tests/grader/test_capa_drift_checks.py)."""

from __future__ import annotations

import functools
import re
from urllib.parse import urlsplit

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig


class GlobError(ValueError):
    """The pattern does not compile (gobwas/glob would return an error)."""


def _class(pattern, start):
    """A [...] class of a glob from `start` (just after "["): (regex, index after "]")."""
    end = pattern.find("]", start + 1 if pattern[start:start + 1] in ("!", "^") else start)
    if end < 0:
        raise GlobError(f"unclosed [ in {pattern!r}")
    body = pattern[start:end]
    negate = body[:1] in ("!", "^")
    body = body[1:] if negate else body
    if not body:
        raise GlobError(f"empty class in {pattern!r}")
    return "[" + ("^" if negate else "") + re.sub(r"([\\\]\[^])", r"\\\1", body) + "]", end + 1


@functools.lru_cache(maxsize=512)
def _gobwas_regex(pattern, separators):
    """gobwas/glob syntax as a regular expression: `*` any run without a separator, `**` any run,
    `?` one character that is no separator, `[a-z]`/`[!a]` classes, `{a,b}` alternatives, `\\`
    escapes the next character."""
    not_sep = f"[^{re.escape(separators)}]" if separators else "."
    out, depth, i = [], 0, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if i + 1 >= len(pattern):
                raise GlobError(f"trailing \\ in {pattern!r}")
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if char == "*":
            double = pattern[i:i + 2] == "**"
            out.append(".*" if double or not separators else f"{not_sep}*")
            i += 2 if double else 1
            continue
        if char == "?":
            out.append(not_sep)
        elif char == "[":
            regex, i = _class(pattern, i + 1)
            out.append(regex)
            continue
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(char))
        i += 1
    if depth:
        raise GlobError(f"unclosed {{ in {pattern!r}")
    return re.compile("".join(out), re.DOTALL)


def glob_match(pattern, value, separators=""):
    """util/glob.Match: the whole value matches the gobwas glob; False for a bad pattern."""
    try:
        return _gobwas_regex(pattern, separators).fullmatch(value) is not None
    except GlobError:
        return False


def project_glob_match(pattern, value, separators=""):
    """app_project_types.go globMatch with negation allowed."""
    if pattern.startswith("!"):
        return not glob_match(pattern[1:], value, separators)
    return pattern == "*" or glob_match(pattern, value, separators)


def filepath_match(pattern, name):
    """Go's path/filepath.Match on Linux (the separator "/"): `*` and `?` never match "/", `[^a]`
    negates a class; a malformed pattern matches nothing (isResourceInList ignores its error)."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            try:
                regex, i = _class(pattern, i + 1)
            except GlobError:
                return False
            out.append(regex)
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return re.fullmatch("".join(out), name, re.DOTALL) is not None


def normalize_git_url(url):
    """util/git NormalizeGitURL for the URLs a lab uses: lower case, trimmed, no trailing ".git";
    scp-like SSH (git@host:path) becomes host/path as Argo CD writes it."""
    url = url.strip().lower()
    if re.match(r"^[\w.-]+@[\w.-]+:(?!//)", url) and not url.startswith("ssh://"):
        url = "ssh://" + url.replace(":", "/", 1)
    if url.endswith(".git"):
        url = url[:-len(".git")]
    try:
        urlsplit(url)
    except ValueError:
        return ""
    return url[len("ssh://"):] if url.startswith("ssh://") else url


def _strings(project, *keys):
    value = dig(project, "spec", *keys)
    return value if isinstance(value, list) else None


def source_permitted(project, repo_url):
    """IsSourcePermitted for one source URL."""
    source = normalize_git_url(repo_url)
    matched = False
    for entry in _strings(project, "sourceRepos") or []:
        if not isinstance(entry, str):
            continue
        deny = entry.startswith("!")
        pattern = ("!" if deny else "") + normalize_git_url(entry[1:] if deny else entry)
        if project_glob_match(pattern, source, "/"):
            matched = True
        elif deny:
            return False
    return matched


def destination_permitted(project, server, namespace, name=""):
    """isDestinationMatched for a destination (server and its cluster name, namespace)."""
    matched, denied = False, False
    for item in _strings(project, "destinations") or []:
        if not isinstance(item, dict):
            continue
        item_name, item_server, item_ns = (str(item.get(k) or "") for k in ("name", "server", "namespace"))
        name_ok = bool(name) and project_glob_match(item_name, name)
        server_ok = bool(server) and project_glob_match(item_server, server)
        namespace_ok = project_glob_match(item_ns, namespace)
        if (server_ok or name_ok) and namespace_ok:
            matched = True
        elif ((not name_ok and item_name.startswith("!")) or (not server_ok and item_server.startswith("!"))
              or (not namespace_ok and item_ns.startswith("!"))):
            denied = True
    return matched and not denied


def _in_list(group, kind, entries):
    """isResourceInList."""
    return any(isinstance(e, dict) and filepath_match(str(e.get("kind") or ""), kind)
               and filepath_match(str(e.get("group") or ""), group) for e in entries)


def group_kind_permitted(project, group, kind, namespaced):
    """IsGroupKindPermitted."""
    if namespaced:
        white = _strings(project, "namespaceResourceWhitelist")
        black = _strings(project, "namespaceResourceBlacklist") or []
        white_ok = white is None or (len(white) != 0 and _in_list(group, kind, white))
    else:
        white = _strings(project, "clusterResourceWhitelist") or []
        black = _strings(project, "clusterResourceBlacklist") or []
        white_ok = len(white) != 0 and _in_list(group, kind, white)
    return white_ok and not (black and _in_list(group, kind, black))
