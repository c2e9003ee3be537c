"""Read-only snapshot of the cluster, bounded in time and size.

A lab names the few GET/LIST requests it needs; they run once per grading attempt and the
raw JSON (exactly what `kubectl get -o json` shows: managedFields, status, annotations) is
handed to the checks. Only GET is ever sent.

The kubeconfig is the grader's own environment (provisioned with a token), so a problem with
it is an ERROR; it is still read defensively (docs/hostile-input.md): bounded, exec and
auth-provider plugins refused (they would run a command), files it names checked with the
bounded reader first (a FIFO as tokenFile must not hang), and every token registered with
redaction.scrub so that no message carries it. The common grader kubeconfig (a server, its CA or
insecure-skip-tls-verify, a bearer token) is read directly; any other shape goes to the
kubernetes package's loader, imported only then (the import costs about 0.2 CPU-s on every VM
graded, docs/performance.md). The requests themselves go through http.client so that one
deadline covers the whole collection: a watchdog shuts the socket down when it passes, however
slowly a server trickles its answer, and no answer is read past MAX_ANSWER_BYTES.

The current context's cluster and user are checked as a client would use them (a server URL
that parses, for an https server a CA that is a PEM certificate and a client certificate and
key that load together), so that a broken kubeconfig is one clear reason: an ERROR for the
grader's own, a FAIL for a learner's (collect.read_kubeconfig), never a traceback.

The objects in an answer are the learner's: any of them may nest thousands of levels deep (a
custom resource with x-kubernetes-preserve-unknown-fields, such as an Application's
helm.valuesObject; the API server accepts up to 10000). An answer is parsed without recursion
limits, and an object deeper than MAX_OBJECT_DEPTH is kept as a DeepObject (its kind and name):
the checks that read it FAIL with ObjectTooDeep, the other objects are judged as usual.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import http.client
import json
import os
import re
import socket
import ssl
import tempfile
import threading
import time
from urllib.parse import urlencode, urlsplit

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import Refused, depth, load_yaml, read_regular
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.redaction import register_secret, scrub, scrub_value

DEFAULT_TIMEOUT = 10.0
MAX_KUBECONFIG_BYTES = 1024 * 1024
MAX_ANSWER_BYTES = 32 * 1024 * 1024
# A whole collection (every GET of one attempt) may take this many api_timeouts: enough for
# nine answers from a loaded API server, far below grade_task_timeout (300 s).
DEADLINE_TIMEOUTS = 3
# Levels of one API object. Kubernetes objects need about 15 with managedFields; an Application
# from a workspace file (at most limits.MAX_DEPTH levels) gains about 10 in managedFields.
MAX_OBJECT_DEPTH = 100


class ClusterError(Exception):
    """The cluster could not be read: the grader cannot judge (ERROR, not FAIL)."""

    def __init__(self, kind, detail, reason=None):
        detail = scrub(detail)
        super().__init__(f"{kind}: {detail}")
        self.kind = kind  # kubeconfig, unreachable, forbidden, unauthorized, api
        self.detail = detail
        # {"key": a message key (i18n.MESSAGES), its params} when the detail is a catalogue
        # entry, so a learner reads it in their language; None for text from elsewhere. Its
        # texts are scrubbed as the detail is (a token must not reach a report through either).
        self.reason = scrub_value(reason)


def catalogued_error(kind, key, **params):
    """A ClusterError whose detail is the catalogue entry `key` (its English text)."""
    return ClusterError(kind, i18n.message(key, params, "en"), {"key": key, "params": params})


def kubeconfig_error(message_key, where, **params):
    """A kubeconfig the grader cannot use: `where` is (phrase, params) of the place in it
    (where_file, _where_user, _where_cluster), `message_key` says why."""
    phrase, place = where
    return catalogued_error("kubeconfig", message_key, where_key=phrase, **place, **params)


def where_file(path):
    return "phrase_kc_where_file", {"kubeconfig": path}


def _where_user(path, name):
    return "phrase_kc_where_user", {"kubeconfig": path, "user": repr(str(name)[:60])}


def _where_cluster(path, name):
    return "phrase_kc_where_cluster", {"kubeconfig": path, "cluster": repr(str(name)[:60])}


def _checked_file(holder, key, base, where):
    """Check a file the kubeconfig names (`certificate-authority`, `client-key`, ...) with the
    bounded reader and hand the loader its resolved path: it opens only a small regular file,
    and key material is not copied to a temp file as -data would be."""
    if key not in holder:
        return
    path = os.path.join(base, str(holder[key]))
    real = os.path.realpath(path)
    try:
        read_regular(real, MAX_KUBECONFIG_BYTES)
    except Refused as refused:
        raise kubeconfig_error("kc_file_refused", where, detail=refused.describe(path)) from None
    holder[key] = real


def load_kubeconfig(path):
    """The kubeconfig at `path` as a dict the kubernetes loader can take, or ClusterError."""
    try:
        raw = read_regular(os.path.realpath(path), MAX_KUBECONFIG_BYTES)  # the grader's file: links are fine
        documents = load_yaml(raw.decode("utf-8", "replace"))
    except Refused as refused:
        if refused.problem == "missing":
            raise catalogued_error("kubeconfig", "host_kubeconfig_missing", path=path) from None
        if refused.problem == "invalid_yaml":
            raise kubeconfig_error("kc_file_refused", where_file(path), detail=refused.detail) from None
        raise catalogued_error("kubeconfig", "kc_unreadable", detail=refused.describe(path)) from None
    config = documents[0] if documents else None
    if not isinstance(config, dict):
        raise kubeconfig_error("kc_not_mapping", where_file(path))
    for key in ("clusters", "users", "contexts"):
        if config.get(key) is not None and not isinstance(config[key], list):
            raise kubeconfig_error("kc_not_list", where_file(path), field=key)
    base = os.path.dirname(os.path.abspath(path))
    for entry in config.get("users") or []:
        user = entry.get("user") if isinstance(entry, dict) else None
        if not isinstance(user, dict):
            continue
        where = _where_user(path, entry.get("name"))
        for plugin in ("exec", "auth-provider"):
            if user.get(plugin):
                raise kubeconfig_error("kc_plugin", where, plugin=plugin)
        for secret in ("token", "password", "client-key-data"):
            register_secret(user.get(secret))
        if "tokenFile" in user:
            token_path = os.path.join(base, str(user.pop("tokenFile")))
            try:
                token = read_regular(os.path.realpath(token_path), 64 * 1024).decode("utf-8", "replace")
            except Refused as refused:
                raise kubeconfig_error("kc_file_refused", where, detail=refused.describe(token_path)) from None
            register_secret(token)
            # client-go reads a tokenFile with strings.TrimSpace (transport/token_source.go).
            user.setdefault("token", token.strip())
        token = user.get("token")
        if isinstance(token, str) and (token != token.strip() or any(c in token for c in "\r\n\0")):
            raise kubeconfig_error("kc_token_unsendable", where)
        _checked_file(user, "client-certificate", base, where)
        _checked_file(user, "client-key", base, where)
        register_secret(user.get("client-key-data"))
    for entry in config.get("clusters") or []:
        cluster = entry.get("cluster") if isinstance(entry, dict) else None
        if isinstance(cluster, dict):
            _checked_file(cluster, "certificate-authority", base, _where_cluster(path, entry.get("name")))
    _check_current_context(config, path)
    return config


def _check_current_context(config, path):
    """The current context's cluster and user as a client would use them, or ClusterError with
    the first reason they cannot be (a context that does not resolve is left to the loader,
    or to the checks that compare a learner's kubeconfig)."""
    context = _named(config.get("contexts"), config.get("current-context"), "context") or {}
    cluster_name, user_name = context.get("cluster"), context.get("user")
    cluster = _named(config.get("clusters"), cluster_name, "cluster")
    if cluster is None:
        return
    where = _where_cluster(path, cluster_name)
    server = cluster.get("server")
    if server is None or server == "":
        raise kubeconfig_error("kc_no_server", where)
    problem = server_problem(server)
    if problem:
        raise kubeconfig_error(problem[0], where, **problem[1])
    if server_url(server).scheme != "https":
        return  # the CA and a client certificate are used for https only (the kubernetes package)
    problem = _ca_problem(cluster)
    if problem:
        raise kubeconfig_error(problem[0], where, **problem[1])
    user = _named(config.get("users"), user_name, "user")
    problem = _client_certificate_problem(user) if user is not None else None
    if problem:
        raise kubeconfig_error(problem[0], _where_user(path, user_name), **problem[1])


def server_url(server):
    """urlsplit of a kubeconfig's server; one without a scheme is read as https://, as
    client-go's DefaultServerURL does. ValueError for an unclosed [."""
    return urlsplit(server if "://" in server else f"https://{server}")


def server_problem(server):
    """Why `server` is not a URL a client can connect to, as (message key, params), or None."""
    shown = {"server": repr(server)[:100] if isinstance(server, str) else repr(server)[:40]}
    if not isinstance(server, str):
        return "kc_server_not_url", shown
    if any(char.isspace() or not char.isprintable() for char in server):
        return "kc_server_unprintable", shown
    try:
        url = server_url(server)
        url.port  # noqa: B018 - parses the port: ValueError for 'notaport' or 99999
    except ValueError as exc:
        return "kc_server_unparsable", {**shown, "detail": str(exc)}
    if not url.hostname:
        return "kc_server_no_host", shown
    return None


def _pem(data):
    """The PEM text of a base64 *-data value, or None when it is not base64 of ASCII text."""
    try:
        return base64.b64decode(str(data)).decode("ascii")
    except ValueError:  # binascii.Error, UnicodeDecodeError
        return None


def _ca_problem(cluster):
    """Why the cluster's CA (certificate-authority-data, else the certificate-authority file,
    as client-go and the kubernetes package choose) cannot verify a server, as (message key,
    params), or None."""
    if cluster.get("certificate-authority-data"):  # empty: no CA (client-go's HasCA), the system's are used
        name, pem = "certificate-authority-data", _pem(cluster["certificate-authority-data"])
        if pem is None:
            return "kc_not_base64_pem", {"field": name}
        source = {"cadata": pem}
    elif cluster.get("certificate-authority"):
        name = f"certificate-authority {cluster['certificate-authority']}"
        source = {"cafile": cluster["certificate-authority"]}  # checked by _checked_file: a small regular file
    else:
        return None
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(**source)
    except (ssl.SSLError, ValueError):
        return "kc_not_pem_certificate", {"field": name}
    return None


def _client_certificate_problem(user):
    """Why the user's client certificate and key cannot be used for TLS, or None (no client
    certificate). -data values are loaded from files in a private temp directory, removed
    at once: ssl loads a certificate chain from files only. A problem is (message key, params)."""
    cert_key = "client-certificate-data" if user.get("client-certificate-data") else "client-certificate"
    key_key = "client-key-data" if user.get("client-key-data") else "client-key"
    if not user.get(cert_key) and not user.get(key_key):
        return None
    if not user.get(cert_key):
        return "kc_key_without_certificate", {"field": key_key}
    if not user.get(key_key):
        return "kc_certificate_without_key", {"field": cert_key}
    with tempfile.TemporaryDirectory(prefix="labgrader-") as scratch:
        paths = {}
        for key in (cert_key, key_key):
            if not key.endswith("-data"):
                paths[key] = user[key]  # checked by _checked_file: a small regular file
                continue
            pem = _pem(user[key])
            if pem is None:
                return "kc_not_base64_text", {"field": key}
            paths[key] = os.path.join(scratch, key)
            with open(os.open(paths[key], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
                handle.write(pem)
        try:
            ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=paths[cert_key])
        except (ssl.SSLError, ValueError):
            return "kc_not_pem_certificate", {"field": cert_key}
        try:
            # an empty password: an encrypted key fails here instead of prompting on a terminal
            ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_cert_chain(paths[cert_key], paths[key_key], password=b"")
        except ssl.SSLError as exc:
            if exc.reason == "KEY_VALUES_MISMATCH":
                return "kc_key_mismatch", {"field": key_key, "certificate": cert_key}
            return "kc_key_unusable", {"field": key_key}
    return None


# The only POSTs: questions to the API server that store nothing (authorization.k8s.io
# SubjectAccessReview, authentication.k8s.io TokenReview).
REVIEW_APIS = ("/apis/authorization.k8s.io/v1/", "/apis/authentication.k8s.io/v1/")


class ClientSettings:
    """What a request needs from a kubeconfig: the same fields as kubernetes.client.Configuration."""

    def __init__(self, host, ca_file=None, ca_data=None, verify_ssl=True, cert_file=None, key_file=None,
                 headers=None):
        self.host, self.ca_file, self.ca_data, self.verify_ssl = host, ca_file, ca_data, verify_ssl
        self.cert_file, self.key_file, self.headers = cert_file, key_file, headers or {}


TOKEN_CLUSTER_KEYS = {"server", "certificate-authority", "certificate-authority-data", "insecure-skip-tls-verify"}


def _named(entries, name, key):
    """The `key` mapping of the one entry called `name`, or None (absent, duplicated, malformed)."""
    found = [e.get(key) for e in entries or [] if isinstance(e, dict) and e.get("name") == name]
    return found[0] if len(found) == 1 and isinstance(found[0], dict) else None


def token_settings(config):
    """ClientSettings of a token kubeconfig, read as kubernetes.config.kube_config.KubeConfigLoader
    reads it (_load_user_token, _load_cluster_info: server without trailing "/", the CA only for
    https, verify_ssl = not insecure-skip-tls-verify, "Bearer <token>"); None for every other
    shape, which the loader itself interprets."""
    context = _named(config.get("contexts"), config.get("current-context"), "context")
    if not context or not isinstance(context.get("cluster"), str) or not isinstance(context.get("user"), str):
        return None
    cluster = _named(config.get("clusters"), context["cluster"], "cluster")
    user = _named(config.get("users"), context["user"], "user")
    if cluster is None or user is None or set(cluster) - TOKEN_CLUSTER_KEYS or set(user) != {"token"}:
        return None
    server, token = cluster.get("server"), user["token"]
    insecure = cluster.get("insecure-skip-tls-verify", False)
    if not isinstance(server, str) or not server.startswith(("http://", "https://")) \
            or not isinstance(token, str) or not token or not isinstance(insecure, bool):
        return None
    settings = ClientSettings(server.rstrip("/"), verify_ssl=not insecure,
                              headers={"authorization": f"Bearer {token}"})
    if settings.host.startswith("https"):
        settings.ca_file = cluster.get("certificate-authority")
        if "certificate-authority-data" in cluster:
            try:
                settings.ca_data = base64.b64decode(str(cluster["certificate-authority-data"]),
                                                    validate=True).decode("ascii")
            except (binascii.Error, UnicodeDecodeError):
                return None
    return settings


def loader_settings(config, kubeconfig):
    """ClientSettings from the kubernetes package's loader, for every kubeconfig shape."""
    try:
        import kubernetes  # only for the kubeconfigs that token_settings does not read
    except ImportError:
        raise catalogued_error("kubeconfig", "kc_no_kubernetes_package") from None
    try:
        configuration = kubernetes.client.Configuration()
        kubernetes.config.load_kube_config_from_dict(config, client_configuration=configuration)
    except Exception as exc:  # any loader error means: cannot talk to this cluster  # noqa: BLE001
        raise kubeconfig_error("kc_loader_refused", where_file(kubeconfig), detail=" ".join(str(exc).split())[:200]) from None
    headers = {setting["key"]: setting["value"] for setting in configuration.auth_settings().values()
               if setting.get("in") == "header" and setting.get("value")}
    return ClientSettings(configuration.host, configuration.ssl_ca_cert, None, configuration.verify_ssl,
                          configuration.cert_file, configuration.key_file, headers)


def _tls_context(settings, kubeconfig):
    """The ssl context of an https server, or ClusterError (load_kubeconfig has checked the
    current context's CA and client certificate; this guards what the loader made of them)."""
    try:
        context = ssl.create_default_context(cafile=settings.ca_file, cadata=settings.ca_data)
        if not settings.verify_ssl:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        if settings.cert_file:
            context.load_cert_chain(settings.cert_file, settings.key_file, password=b"")
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise kubeconfig_error("kc_tls_unusable", where_file(kubeconfig), detail=" ".join(str(exc).split())[:200]) from None
    return context


class KubeReader:
    """A GET-only client with bounded timeouts and one deadline that counts its requests.

    `timeout` bounds connecting and each socket read; `deadline` (time.monotonic() value,
    default now + DEADLINE_TIMEOUTS * timeout) bounds everything this reader does.
    """

    def __init__(self, kubeconfig, timeout=DEFAULT_TIMEOUT, deadline=None):
        config = load_kubeconfig(kubeconfig)
        settings = token_settings(config) or loader_settings(config, kubeconfig)
        self.host = settings.host
        # load_kubeconfig checked the current context; the loader may have read another shape
        problem = server_problem(settings.host)
        if problem:
            raise kubeconfig_error(problem[0], where_file(kubeconfig), **problem[1])
        url = urlsplit(settings.host)
        if url.scheme not in ("http", "https"):
            raise kubeconfig_error("kc_server_scheme", where_file(kubeconfig), server=f"{settings.host!r:.100}")
        # host and port given apart: http.client would read user:password@ or [::1] as a port
        self._hostname, self._port = url.hostname, url.port or (443 if url.scheme == "https" else 80)
        self._prefix = url.path.rstrip("/")
        self._context = _tls_context(settings, kubeconfig) if url.scheme == "https" else None
        # scrub() redacts any Bearer/Basic value
        self._headers = {"Accept": "application/json", "User-Agent": "labgrader", **settings.headers}
        self.timeout = timeout
        self.budget = DEADLINE_TIMEOUTS * timeout
        self.deadline = deadline if deadline is not None else time.monotonic() + self.budget
        self.requests = 0  # one connection per GET: nothing stays open between them

    def _connection(self, timeout):
        if self._context is not None:
            return http.client.HTTPSConnection(self._hostname, self._port, timeout=timeout, context=self._context)
        return http.client.HTTPConnection(self._hostname, self._port, timeout=timeout)

    def get(self, path, query=None):
        """GET `path`; returns the decoded JSON, or None for 404."""
        return self._send("GET", path, query)

    def review(self, path, body):
        """POST a review object (SubjectAccessReview, TokenReview): the API server answers a
        question and stores nothing. No other POST is ever sent."""
        if not path.startswith(REVIEW_APIS):
            raise ValueError(f"not a review API: {path}")
        return self._send("POST", path, body=json.dumps(body).encode())

    def _send(self, method, path, query=None, body=None):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise catalogued_error("unreachable", "api_out_of_time", host=self.host, budget=f"{self.budget:g}")
        url = self._prefix + path + (f"?{urlencode(query)}" if query else "")
        self.requests += 1
        connection = self._connection(min(self.timeout, remaining))
        cut = threading.Event()

        def shut_down():
            cut.set()
            sock = connection.sock
            if sock is not None:
                # socket.socket's own shutdown: SSLSocket.shutdown would drop its state under the reader
                with contextlib.suppress(OSError):
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

        watchdog = threading.Timer(remaining, shut_down)
        watchdog.daemon = True
        watchdog.start()
        try:
            headers = self._headers if body is None else {**self._headers, "Content-Type": "application/json"}
            connection.request(method, url, body=body, headers=headers)
            response = connection.getresponse()
            body = response.read(MAX_ANSWER_BYTES + 1)
            if len(body) > MAX_ANSWER_BYTES:
                raise catalogued_error("api", "api_answer_too_large", method=method, path=path, limit=MAX_ANSWER_BYTES)
            if response.length:  # read(amt) returns what came before the end without raising
                raise http.client.IncompleteRead(body, response.length)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if cut.is_set():
                raise catalogued_error("unreachable", "api_cut_off", host=self.host, method=method, path=path,
                                       budget=f"{self.budget:g}") from None
            key, params = connection_reason(exc)
            raise catalogued_error("unreachable", key, host=self.host, **params) from None
        finally:
            watchdog.cancel()
            connection.close()
        return self._status(path, response.status, body)

    @staticmethod
    def _status(path, status, body):
        if status == 404:
            return None
        text = body.decode("utf-8", "replace")
        if status == 401:
            raise catalogued_error("unauthorized", "api_unauthorized", path=path)
        if status == 403:
            raise catalogued_error("forbidden", "api_forbidden", path=path, detail=_status_message(text))
        if status >= 300:
            raise catalogued_error("api", "api_status", path=path, status=status, detail=_status_message(text))
        try:
            return decode_answer(text)
        except ValueError:
            raise catalogued_error("api", "api_not_json", path=path) from None


class DeepObject(dict):
    """What is kept of an API object nested deeper than MAX_OBJECT_DEPTH levels: its apiVersion,
    kind, name and namespace. The learner made it; grading.ClusterView raises ObjectTooDeep
    when a check reads it, so that check FAILs with the reason."""

    @classmethod
    def of(cls, obj):
        obj = obj if isinstance(obj, dict) else {}
        metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        kept = {key: obj[key] for key in ("apiVersion", "kind") if isinstance(obj.get(key), str)}
        kept["metadata"] = {key: metadata[key] for key in ("name", "namespace") if isinstance(metadata.get(key), str)}
        return cls(kept)

    def describe(self):
        """'Application argocd/src-helm'."""
        metadata = self["metadata"]
        name = "/".join(metadata[key] for key in ("namespace", "name") if key in metadata)
        return f"{self.get('kind', 'object')} {name or '(no name)'}"[:200]


class ObjectTooDeep(Exception):
    """A check read a DeepObject: the learner's object cannot be judged (FAIL, not ERROR)."""

    def __init__(self, obj):
        super().__init__(obj.describe())
        self.object = obj


def readable(obj):
    """`obj`, or ObjectTooDeep when it is a DeepObject."""
    if isinstance(obj, DeepObject):
        raise ObjectTooDeep(obj)
    return obj


def decode_answer(text):
    """The JSON answer `text` with every object (the answer itself, or each of a LIST's items)
    nested deeper than MAX_OBJECT_DEPTH levels replaced by a DeepObject; ValueError when it is
    not JSON."""
    try:
        answer = json.loads(text)
    except RecursionError:  # deeper than the C decoder's recursion limit (about 1500 levels)
        answer = _decode_deep(text)
    if isinstance(answer, dict) and isinstance(answer.get("items"), list):
        answer["items"] = [_within_depth(item) for item in answer["items"]]
        return answer
    return _within_depth(answer)


def _within_depth(obj):
    if depth(obj, MAX_OBJECT_DEPTH) > MAX_OBJECT_DEPTH:
        return DeepObject.of(obj)
    return obj


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
# Skipping a value: a string (brackets in it do not count) or a run of text between strings;
# a lone quote is an unterminated string.
_STRING_OR_RUN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^"]+|"')
_BRACKET = re.compile(r"[\[\]{}]")


def _decode_deep(text):
    """An answer that the C decoder cannot parse: the answer, its items and an object's metadata
    are parsed member by member (the C decoder parses each member it can), so that only the
    objects too deep for it become DeepObjects, read from their kind and metadata; what else is
    too deep is skipped unbuilt. Four levels at most are parsed by hand, so each byte goes
    through the C decoder at most five times: the time stays linear in the size of the answer."""
    index = _space(text, 0)
    if text[index:index + 1] != "{":
        raise ValueError("the answer is not an object")
    answer, index, skipped = _members(text, index, {"items": _deep_items, "metadata": _metadata})
    if _space(text, index) != len(text):
        raise ValueError("extra data after the answer")
    return DeepObject.of(answer) if skipped else answer


def _deep_items(text, index):
    items, index, _ = _members(text, index, {None: _deep_object})
    return items, index, False


def _deep_object(text, index):
    obj, index, _ = _members(text, index, {"metadata": _metadata})
    return DeepObject.of(obj), index, False  # far deeper than MAX_OBJECT_DEPTH: the C decoder gave up


def _metadata(text, index):
    """metadata (name, namespace: strings) whose managedFields are too deep for the C decoder."""
    return _members(text, index, {})


def _members(text, index, descend):
    """(container, end, skipped) of the object or array at text[index], parsed member by member:
    a member the C decoder cannot parse goes to descend[key] (descend[None] for an array's
    elements), a function (text, index) -> (value, end, skipped); without one it is skipped
    (None, skipped=True)."""
    opener = text[index]
    closer, members = ("}", {}) if opener == "{" else ("]", [])
    skipped = False
    index = _space(text, index + 1)
    if text[index:index + 1] == closer:
        return members, index + 1, False
    while True:
        key = None
        if opener == "{":
            if text[index:index + 1] != '"':
                raise ValueError(f"expected a key at {index}")
            key, index = json.decoder.scanstring(text, index + 1)
            index = _space(text, index)
            if text[index:index + 1] != ":":
                raise ValueError(f"expected ':' at {index}")
            index = _space(text, index + 1)
        try:
            value, index = _DECODER.raw_decode(text, index)
        except RecursionError:  # a container too deep for the C decoder
            if key in descend:
                value, index, inner = descend[key](text, index)
                skipped = skipped or inner
            else:
                value, index, skipped = None, _skip(text, index), True
        if opener == "{":
            members[key] = value
        else:
            members.append(value)
        index = _space(text, index)
        separator = text[index:index + 1]
        if separator == closer:
            return members, index + 1, skipped
        if separator != ",":
            raise ValueError(f"expected ',' or {closer!r} at {index}")
        index = _space(text, index + 1)


def _space(text, index):
    return _SPACE.match(text, index).end()


def _skip(text, index):
    """The end of the container that starts at text[index], found without building it. A run
    of text between strings is counted whole unless it may close the container, and only then
    walked bracket by bracket."""
    level = 0
    for match in _STRING_OR_RUN.finditer(text, index):
        run = match.group()
        if run[0] == '"':
            if len(run) == 1:
                raise ValueError(f"unterminated string at {match.start()}")
            continue
        closing = run.count("]") + run.count("}")
        if closing < level:
            level += run.count("[") + run.count("{") - closing
            continue
        for bracket in _BRACKET.finditer(run):
            level += 1 if bracket.group() in "[{" else -1
            if level == 0:
                return match.start() + bracket.end()
    raise ValueError("the answer ends inside a container")


def connection_reason(exc):
    """The useful part of a connection error, as (message key, params): a timeout, a closed
    connection, else the system's own words ('Connection refused')."""
    if isinstance(exc, TimeoutError):
        return "api_timed_out", {}
    if isinstance(exc, http.client.RemoteDisconnected):
        return "api_closed", {}
    if isinstance(exc, http.client.IncompleteRead):
        return "api_closed_midway", {}
    text = " ".join(str(getattr(exc, "strerror", None) or exc).split())
    return "api_unreachable", {"detail": text.strip("()'\" ")[:200] or type(exc).__name__}


def _status_message(text):
    try:
        return str(json.loads(text).get("message", ""))[:200]
    except (ValueError, AttributeError, RecursionError):
        return text[:200]


class ClusterState:
    """The answers to a lab's reads: `reads[name]` is a list of items (LIST), an object
    (GET), or None (404). `problem` is set when the cluster could not be read at all."""

    def __init__(self, reads=None, problem=None, detail="", requests=0, seconds=0.0, reason=None):
        self.reads = reads or {}
        self.problem = problem
        self.detail = detail
        self.reason = reason  # `detail` as a catalogue entry (ClusterError.reason)
        self.requests = requests
        self.seconds = seconds

    @property
    def ok(self):
        return self.problem is None

    def items(self, name):
        value = self.reads.get(name)
        return value if isinstance(value, list) else []

    def find(self, name, object_name):
        for item in self.items(name):
            if (item.get("metadata") or {}).get("name") == object_name:
                return item
        return None


def collect_cluster(kubeconfig, reads, timeout=DEFAULT_TIMEOUT, deadline=None, reviews=None):
    """Run the lab's reads: {name: (path, query or None)}. A path ending in a collection
    yields the list of items; anything else yields the object or None. `reviews`
    ({name: (path, body)}) are POSTed to the review APIs after the reads; their answer's
    `status` is kept. `deadline` (a time.monotonic() value) bounds them all; see KubeReader."""
    started = time.monotonic()
    try:
        reader = KubeReader(kubeconfig, timeout, deadline)
    except ClusterError as exc:
        return ClusterState(problem=exc.kind, detail=exc.detail, reason=exc.reason)
    answers = {}
    try:
        for name, (path, query) in reads.items():
            answer = reader.get(path, query)
            if isinstance(answer, dict) and isinstance(answer.get("items"), list):
                answer = answer["items"]
            answers[name] = answer
        for name, (path, body) in (reviews or {}).items():
            answer = reader.review(path, body)
            answers[name] = answer.get("status") if isinstance(answer, dict) else None
    except ClusterError as exc:
        return ClusterState(answers, exc.kind, exc.detail, reader.requests, time.monotonic() - started, exc.reason)
    return ClusterState(answers, requests=reader.requests, seconds=time.monotonic() - started)
