"""Read-only snapshot of the cluster through the kubernetes client.

A lab names the few GET/LIST requests it needs; they run once per grading attempt and the
raw JSON (exactly what `kubectl get -o json` shows: managedFields, status, annotations) is
handed to the checks. Only GET is ever sent.
"""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

try:
    import kubernetes
    import urllib3
except ImportError:  # reported by the health gate
    kubernetes = None

DEFAULT_TIMEOUT = 10.0


class ClusterError(Exception):
    """The cluster could not be read: the grader cannot judge (ERROR, not FAIL)."""

    def __init__(self, kind, detail):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind  # kubeconfig, unreachable, forbidden, unauthorized, api
        self.detail = detail


class KubeReader:
    """A GET-only client with bounded timeouts that counts its requests."""

    def __init__(self, kubeconfig, timeout=DEFAULT_TIMEOUT):
        if kubernetes is None:
            raise ClusterError("kubeconfig", "the kubernetes Python package is not installed")
        try:
            configuration = kubernetes.client.Configuration()
            kubernetes.config.load_kube_config(config_file=kubeconfig, client_configuration=configuration)
        except Exception as exc:  # any loader error means: cannot talk to this cluster  # noqa: BLE001
            raise ClusterError("kubeconfig", f"{kubeconfig}: {' '.join(str(exc).split())[:200]}") from None
        configuration.retries = 1  # one quick retry, never urllib3's default of three with backoff
        self.api = kubernetes.client.ApiClient(configuration)
        self.timeout = (min(5.0, timeout), timeout)
        self.requests = 0

    def close(self):
        self.api.close()

    def get(self, path, query=None):
        """GET `path`; returns the decoded JSON, or None for 404."""
        method, url, headers, _, _ = self.api.param_serialize(
            method="GET", resource_path=path, header_params={"Accept": "application/json"},
            auth_settings=["BearerToken"])
        if query:
            url = f"{url}?{urlencode(query)}"
        self.requests += 1
        try:
            response = self.api.rest_client.request(method, url, headers=headers, _request_timeout=self.timeout)
            body = response.read()
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise ClusterError("unreachable", f"{self.api.configuration.host}: {connection_reason(exc)}") from None
        except kubernetes.client.exceptions.ApiException as exc:
            return self._status(path, exc.status, exc.body)
        return self._status(path, response.status, body)

    @staticmethod
    def _status(path, status, body):
        if status == 404:
            return None
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body or "")
        if status == 401:
            raise ClusterError("unauthorized", f"GET {path}: 401")
        if status == 403:
            raise ClusterError("forbidden", f"GET {path}: {_status_message(text)}")
        if status >= 300:
            raise ClusterError("api", f"GET {path}: HTTP {status} {_status_message(text)}")
        try:
            return json.loads(text)
        except ValueError:
            raise ClusterError("api", f"GET {path}: the answer is not JSON") from None


def connection_reason(exc):
    """The useful end of a urllib3 error: 'Connection refused', 'Read timed out', ..."""
    reason = getattr(exc, "reason", None) or exc
    text = " ".join(str(reason).split())
    for marker in ("Failed to establish a new connection: ", "Connection aborted.', "):
        if marker in text:
            text = text.split(marker, 1)[1]
    return text.strip("()'\" ")[:200]


def _status_message(text):
    try:
        return str(json.loads(text).get("message", ""))[:200]
    except (ValueError, AttributeError):
        return text[:200]


class ClusterState:
    """The answers to a lab's reads: `reads[name]` is a list of items (LIST), an object
    (GET), or None (404). `problem` is set when the cluster could not be read at all."""

    def __init__(self, reads=None, problem=None, detail="", requests=0, seconds=0.0):
        self.reads = reads or {}
        self.problem = problem
        self.detail = detail
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


def collect_cluster(kubeconfig, reads, timeout=DEFAULT_TIMEOUT):
    """Run the lab's reads: {name: (path, query or None)}. A path ending in a collection
    yields the list of items; anything else yields the object or None."""
    started = time.monotonic()
    try:
        reader = KubeReader(kubeconfig, timeout)
    except ClusterError as exc:
        return ClusterState(problem=exc.kind, detail=exc.detail)
    answers = {}
    try:
        for name, (path, query) in reads.items():
            answer = reader.get(path, query)
            if isinstance(answer, dict) and isinstance(answer.get("items"), list):
                answer = answer["items"]
            answers[name] = answer
    except ClusterError as exc:
        return ClusterState(answers, exc.kind, exc.detail, reader.requests, time.monotonic() - started)
    finally:
        reader.close()
    return ClusterState(answers, requests=reader.requests, seconds=time.monotonic() - started)
