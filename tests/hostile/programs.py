"""Hostile learner programs for cgoa-ci (tests/hostile/test_cgoa_programs.py): a fresh world
per program, the module's whole grading of it in a fresh driver process (its probes run for
real), and everything a grading must leave as it was, measured around that process.

What is measured is what the learner's programs could change or learn, never how the grader
keeps them from it: the world's files (digests of every path), files planted in shared places,
requests that the API server answered for the grader's identity, processes left behind, the
grader's token in the answer (plain, split, reversed, base64, hex), the answer being the
module's own (a nonce only the driver knows), time, and (when asked) the peak memory of the
program's processes together and the peak disk use while it runs.

Safety on a shared machine: programs that kill, stop or write to "every python process" only
ever target processes whose command line carries the case's marker (the driver is started with
it as an argument), and /proc/1 (this machine's own init) is never read; see `scoped_pythons`.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml

DRIVER = Path(__file__).with_name("driver.py")
# The grader's own token (grader kubeconfig, admin kubeconfig, the learner's copy of it, the API
# server's accepted token, and an environment variable of the module process). Letters that are
# not hex digits, so that no commit id or marker ever contains a piece of it.
TOKEN_ALPHABET = "ghjkmnpqrstvwxyz"
GRADER_TOKEN = "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(28))
TOKEN_PIECE = 7  # the shortest piece of the token that counts as leaked
REVIEW_PATHS = ("/apis/authorization.k8s.io/v1/", "/apis/authentication.k8s.io/v1/")
SHARED_PLACES = ("/tmp", "/var/tmp", "/dev/shm")  # where a program may plant files outside its world
VM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
LAB = "cgoa-ci"
PROBE_CHECKS = (
    "cgoa-ci.4.validate-accepts-valid", "cgoa-ci.4.validate-rejects-string-replicas",
    "cgoa-ci.4.validate-rejects-unknown-field", "cgoa-ci.4.validate-rejects-mixed",
    "cgoa-ci.5.hook-rejects-typo-on-main", "cgoa-ci.5.hook-accepts-valid-main",
    "cgoa-ci.5.hook-rejects-delete-main", "cgoa-ci.5.hook-accepts-other-branch",
)
# A verdict string has one letter per probe check (PROBE_CHECKS, spaces ignored): P PASS, F FAIL,
# - anything but PASS (a run that was cut short proves nothing), ? whatever.
VERDICT_LETTERS = {"P": lambda s: s == "PASS", "F": lambda s: s == "FAIL", "-": lambda s: s != "PASS",
                   "?": lambda s: True}
_world_lock = threading.Lock()  # FakeApi.world numbers hosts without a lock


def new_marker():
    """A name unique to one case (hex: it never holds a piece of GRADER_TOKEN)."""
    return "hx" + secrets.token_hex(5)


# ------------------------------------------------------------------ the learner's programs

PRELUDE = r"""#!/bin/bash
MARK=@MARK@
ZERO=0000000000000000000000000000000000000000
TYPO='^[[:space:]]+"?replica"?:|^[[:space:]]+"?replicas"?:[[:space:]]*[^0-9[:space:]]'
# What a decent learner's validate.sh does (no cluster here): refuse a misspelled replica: key
# and a replicas that is not a number, in every file of the folder, YAML or JSON.
good_validate() {
  local status=0 f
  for f in "${1%/}"/*; do
    if grep -Eq "$TYPO" "$f"; then echo "$(basename "$f"): does not validate"; status=1; fi
  done
  return $status
}
# What a decent pre-receive gate does: main may not be deleted nor get a deploy/web.yaml that
# does not validate; other branches pass.
good_gate() {
  local status=0 old new ref
  while read -r old new ref; do
    [ "$ref" = refs/heads/main ] || continue
    if [ "$new" = "$ZERO" ]; then echo "deleting main is not allowed"; status=1; continue; fi
    if git show "$new:deploy/web.yaml" | grep -Eq "$TYPO"; then echo "deploy/web.yaml of $new does not validate"; status=1; fi
  done
  return $status
}
# Python (or ansible) processes whose command line carries this case's marker: on this shared
# machine they stand for "every python process", and only the case's own grader has it.
scoped_pythons() {
  local f
  for f in $(grep -las -- "$MARK" /proc/[0-9]*/cmdline); do
    tr '\0' ' ' < "$f" 2>/dev/null | grep -qE 'python|ansible' && { f=${f#/proc/}; echo "${f%/cmdline}"; }
  done
}
# A solved VM's answer, as the driver would print it.
forged() {
  local checks='"checks": {"cgoa-ci.4.validate-accepts-valid": ["PASS", "forged"]}'
  printf '{"answer": {"nonce": "forged-%s", %s, "full": {"labs": {"forged-%s": {}}}}, "seconds": 0.1}\n' \
    "$MARK" "$checks" "$MARK"
}
"""


def validate_program(attack="", end='good_validate "$1"'):
    """validate.sh: the prelude, the attack, then (by default) an honest validation."""
    return f"{PRELUDE}{attack}\n{end}\n"


def hook_program(attack="", end='printf "%s\\n" "$input" | good_gate'):
    """A pre-receive hook: reads the pushed refs into $input, runs the attack, then (by default)
    the honest gate on them."""
    return f"{PRELUDE}input=$(cat)\n{attack}\n{end}\n"


def other_hook(name):
    """An extra hook: it writes outside its repo (the shared /tmp and the real workspace) and
    succeeds; that it ran at all is the finding."""
    return (f"{PRELUDE}cat >/dev/null\necho \"$MARK {name}\" > /tmp/$MARK-{name}\n"
            f"echo \"$MARK {name}\" > @WS@/$MARK-{name}\nexit 0\n")


GOOD_VALIDATE = validate_program()
GOOD_HOOK = hook_program()


# ------------------------------------------------------------------ a world per case


class World:
    """One materialized cgoa-ci host (golden.yaml, probes run for real) whose grader token is
    GRADER_TOKEN, with an admin kubeconfig of its own, a second bare repo next to the lab's, and
    a HOME for the module process."""

    def __init__(self, host, marker, site_packages):
        self.host = host
        self.marker = marker
        self.site_packages = site_packages
        self.workspace = host / "root" / LAB
        self.clone = self.workspace / "repo"
        self.bare = host / "srv" / "bare" / "ci.git"
        self.other_bare = host / "srv" / "bare" / "other.git"
        self.grader_kubeconfig = host / "kubeconfig"
        self.admin_kubeconfig = host / "etc" / "rancher" / "k3s" / "k3s.yaml"
        self.grader_home = host / "grader-home"

    def fill(self, text):
        """`text` with @MARK@, @WS@, @CLONE@, @BARE@, @OTHER@, @HOST@, @GRADER_KC@, @ADMIN_KC@,
        @GRADER_HOME@ and @SITE@ replaced by this world's values."""
        values = {"MARK": self.marker, "WS": self.workspace, "CLONE": self.clone, "BARE": self.bare,
                  "OTHER": self.other_bare, "HOST": self.host, "GRADER_KC": self.grader_kubeconfig,
                  "ADMIN_KC": self.admin_kubeconfig, "GRADER_HOME": self.grader_home, "SITE": self.site_packages}
        return re.sub(r"@([A-Z_]+)@", lambda m: str(values[m.group(1)]), text)

    def place(self, where):
        """"ws/x", "bare/x", "clone/x" -> the path x in the workspace, the bare repo, the clone."""
        base, _, relative = where.partition("/")
        return {"ws": self.workspace, "bare": self.bare, "clone": self.clone}[base] / relative

    def install(self, files):
        """Write the programs ({place: text}), executable."""
        for where, text in files.items():
            path = self.place(where)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.fill(text))
            path.chmod(0o755)

    def git(self, *args, stdin=None):
        """git as the learner, on this world's repos (paths given in `args`); its output."""
        env = {"PATH": VM_PATH, "HOME": str(self.grader_home), "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "Lab Learner",
               "GIT_AUTHOR_EMAIL": "learner@lab.example", "GIT_COMMITTER_NAME": "Lab Learner",
               "GIT_COMMITTER_EMAIL": "learner@lab.example"}
        return subprocess.run(["git", *args], input=stdin, capture_output=True, text=True, check=True, env=env,
                              timeout=120).stdout.strip()

    def link_part(self, part):
        """Make `part` of the bare repo (refs/heads, config, objects...) a symbolic link, by its
        absolute path, to where its content now is (`part`.d): a learner's repo layout whose
        copy, link kept, reaches into the real repo."""
        path = self.bare / part
        moved = path.with_name(path.name + ".d")
        path.rename(moved)
        path.symlink_to(moved)


def set_token(path, token):
    config = yaml.safe_load(path.read_text())
    config["users"][0]["user"]["token"] = token
    path.write_text(yaml.safe_dump(config))


def make_world(fake_api, marker, site_packages):
    """A fresh world named `marker` (its host directory and API path carry the marker, so that
    every process running one of its programs can be found by it)."""
    with _world_lock:
        host = fake_api.world(f"{LAB}/golden.yaml", host=marker)
    world = World(host, marker, site_packages)
    (host / "probes.json").unlink()  # run the probes for real
    state = json.loads((host / "cluster.json").read_text())
    state["token"] = GRADER_TOKEN
    (host / "cluster.json").write_text(json.dumps(state))
    set_token(world.grader_kubeconfig, GRADER_TOKEN)
    set_token(world.workspace / "kubeconfig", GRADER_TOKEN)  # the learner's copy of the admin one
    world.admin_kubeconfig.parent.mkdir(parents=True)
    shutil.copy(world.grader_kubeconfig, world.admin_kubeconfig)
    world.grader_home.mkdir()
    world.git("clone", "--bare", "--quiet", str(world.bare), str(world.other_bare))
    world.install({"ws/validate.sh": GOOD_VALIDATE, "bare/hooks/pre-receive": GOOD_HOOK})
    return world


def grader_python(root):
    """A python of the grader's own (a venv in `root` that imports the project's packages through
    a path file): programs that plant files in "the grader's site-packages" plant them here, not
    in the shared venv. Returns (python, site-packages)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    python = root / "bin" / "python"
    site_packages = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                        capture_output=True, text=True, check=True).stdout.strip())
    deps = [p for p in sys.path if p.endswith("site-packages")]
    (site_packages / "project-deps.pth").write_text("".join(f"{p}\n" for p in deps))
    return python, site_packages


# ------------------------------------------------------------------ measuring around a grading


def tree_digest(root, skip=("requests.log",)):
    """{relative path: (type and mode, size, content hash or link target)} of everything under root
    (special files are never opened). mtimes are left out: a read does not change them and a
    write that changes nothing else changes nothing."""
    entries = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            relative = os.path.relpath(path, root)
            if relative in skip:
                continue
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                content = os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    content = hashlib.file_digest(handle, "sha256").hexdigest()
            else:
                content = ""
            entries[relative] = (info.st_mode, info.st_size if stat.S_ISREG(info.st_mode) else 0, content)
    return entries


def marked_processes(marker, exclude=()):
    """{pid: command line} of live processes whose command line holds `marker`."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in exclude:
            continue
        with contextlib.suppress(OSError):
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            if marker.encode() in cmdline:
                found[int(entry)] = cmdline.replace(b"\0", b" ").decode("utf-8", "replace").strip()
    return found


def rss_bytes(pid):
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return 0


class Sampler(threading.Thread):
    """While the grading runs: the peak of the memory the program's processes hold together,
    their peak number, and the peak drop of free space on the world's file system."""

    def __init__(self, marker, exclude, path):
        super().__init__(daemon=True)
        self.marker, self.exclude, self.path = marker, exclude, path
        self.stopped = threading.Event()
        self.start_free = self.free()
        self.peak_rss = self.peak_count = self.peak_disk_drop = 0

    def free(self):
        info = os.statvfs(self.path)
        return info.f_bavail * info.f_frsize

    def run(self):
        while not self.stopped.wait(0.2):
            pids = marked_processes(self.marker, self.exclude)
            self.peak_count = max(self.peak_count, len(pids))
            self.peak_rss = max(self.peak_rss, sum(rss_bytes(pid) for pid in pids))
            self.peak_disk_drop = max(self.peak_disk_drop, self.start_free - self.free())


class Outcome:
    """What one grading did, as seen from outside the module process."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def grade(world, python, time_budget, wall_timeout, sample=False):
    """Run the module's grading of `world` (driver op grade_host) and measure around it."""
    nonce = secrets.token_hex(16)
    # The driver's RLIMIT_AS is inherited as a hard limit: above the 4 GiB each script may reserve.
    request = {"op": "grade_host", "memory_mb": 8192, "labs": [LAB], "host_dir": str(world.host),
               "k3s_kubeconfig": str(world.admin_kubeconfig), "time_budget": time_budget, "nonce": nonce}
    env = {"PATH": VM_PATH, "HOME": str(world.grader_home), "LANG": "C.UTF-8", "K8S_AUTH_API_KEY": GRADER_TOKEN}
    (world.host / "requests.log").unlink(missing_ok=True)
    before = tree_digest(world.host)
    started = time.monotonic()
    # Its own session: a program that signals the grader's process group reaches no further.
    driver = subprocess.Popen([str(python), str(DRIVER), world.marker], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, start_new_session=True)
    sampler = Sampler(world.marker, {os.getpid(), driver.pid}, str(world.host)) if sample else None
    if sampler:
        sampler.start()
    hung = False
    try:
        stdout, stderr = driver.communicate(json.dumps(request).encode(), timeout=wall_timeout)
    except subprocess.TimeoutExpired:
        hung = True
        os.kill(driver.pid, signal.SIGKILL)
        try:
            stdout, stderr = driver.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # a program of the case holds the driver's pipes
            kill_all(marked_processes(world.marker, {os.getpid()}))
            stdout, stderr = driver.communicate()
    seconds = time.monotonic() - started
    if sampler:
        sampler.stopped.set()
        sampler.join()
    left = processes_left(world.marker)
    after = tree_digest(world.host)
    return Outcome(
        nonce=nonce, hung=hung, returncode=driver.returncode, stdout=stdout.decode("utf-8", "replace"),
        stderr=stderr.decode("utf-8", "replace"), seconds=seconds, left=left,
        changed=sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k)),
        planted=planted_files(world), api_writes=grader_writes(world.host / "requests.log"),
        peak_rss=sampler.peak_rss if sampler else None, peak_count=sampler.peak_count if sampler else None,
        peak_disk_drop=sampler.peak_disk_drop if sampler else None)


def kill_all(processes):
    for pid in processes:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def processes_left(marker, grace=3.0):
    """The case's processes still alive `grace` seconds after the grading (a killed process may
    take a moment to be reaped); they are then killed, so that a failing case leaves nothing."""
    deadline = time.monotonic() + grace
    while True:
        left = marked_processes(marker, {os.getpid()})
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    kill_all(left)
    return sorted(set(left.values()))


def planted_files(world):
    """Files named with the case's marker in the shared places and the grader's site-packages
    (they are removed once found)."""
    found = []
    for place in (*SHARED_PLACES, world.site_packages):
        for path in Path(place).glob(f"*{world.marker}*"):
            found.append(str(path))
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    return sorted(found)


def grader_writes(log):
    """Requests the API server answered as the grader's (any status but 401) other than reads and
    the grader's own access and token reviews."""
    if not log.exists():
        return []
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    return [f"{e['method']} {e['path']} -> {e['status']}" for e in entries
            if e.get("status") != 401 and e["method"] not in ("GET", "HEAD")
            and not (e["method"] == "POST" and e["path"].startswith(REVIEW_PATHS))]


# ------------------------------------------------------------------ the properties


def strings_of(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_of(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_of(item)


def decodings(text):
    """`text` and what it becomes read as split lines (whitespace and git's "remote:" prefixes
    dropped), reversed, base64 (at every alignment) and hex."""
    yield text
    folded = re.sub(r"\s+", "", text.replace("remote:", ""))
    yield folded
    yield folded[::-1]
    for run in re.findall(r"[A-Za-z0-9+/=_-]{12,}", folded):
        for shift in range(4):
            chunk = run[shift:].rstrip("=")
            chunk = chunk[:len(chunk) - len(chunk) % 4]
            with contextlib.suppress(binascii.Error, ValueError):
                yield base64.b64decode(chunk.replace("-", "+").replace("_", "/")).decode("latin-1")
    for run in re.findall(r"[0-9a-fA-F]{14,}", folded):
        for shift in range(2):
            chunk = run[shift:]
            yield bytes.fromhex(chunk[:len(chunk) - len(chunk) % 2]).decode("latin-1")


def leaked_pieces(text, secret=GRADER_TOKEN, piece=TOKEN_PIECE):
    """Pieces of `secret` (at least `piece` long) found in `text` in any of its decodings."""
    grams = {secret[i:i + piece] for i in range(len(secret) - piece + 1)}
    found = set()
    for decoded in decodings(text):
        found.update(g for g in grams if g in decoded)
    return sorted(found)


def expected_check_ids():
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

    return {check.id for check in LABS[LAB].checks}


def answer_of(outcome):
    """The module's answer if stdout is exactly one JSON answer with the driver's nonce, else
    (None, why)."""
    try:
        report = json.loads(outcome.stdout)
    except ValueError as exc:
        return None, f"stdout is not one JSON answer ({exc}): {outcome.stdout[:300]!r}"
    answer = report.get("answer") if isinstance(report, dict) else None
    if not isinstance(answer, dict) or answer.get("nonce") != outcome.nonce:
        return None, f"the answer on stdout is not the module's own: {outcome.stdout[:300]!r}"
    return answer, None


def violations(outcome, world, time_bound, verdicts=None, peak_rss_mb=None, disk_drop_mb=None):
    """Every property of grading that `outcome` breaks, as sentences (empty: none)."""
    problems = []
    if outcome.hung:
        problems.append("the module process never finished (stopped or hung); it was killed")
    elif outcome.returncode != 0:
        problems.append(f"the module process died (exit status {outcome.returncode}): {outcome.stderr[-300:]!r}")
    answer, why = answer_of(outcome)
    if answer is None:
        problems.append(why)
    else:
        labs = answer["full"]["labs"]
        if set(labs) != {LAB}:
            problems.append(f"the answer grades labs {sorted(labs)}, not [{LAB!r}]")
        if set(answer["checks"]) != expected_check_ids():
            problems.append(f"the answer's checks differ from the lab's: {sorted(set(answer['checks']) ^ expected_check_ids())}")
    if f'"nonce": "forged-{world.marker}"' in outcome.stdout:  # unescaped: not text inside a message
        problems.append("a forged answer reached the module's stdout")
    if outcome.seconds > time_bound:
        problems.append(f"the grading took {outcome.seconds:.1f} s (bound {time_bound} s)")
    if outcome.changed:
        problems.append(f"the world changed: {outcome.changed[:12]}")
    if outcome.planted:
        problems.append(f"files were planted: {outcome.planted}")
    if outcome.api_writes:
        problems.append(f"the API server took writes with the grader's identity: {outcome.api_writes[:5]}")
    texts = [outcome.stdout, outcome.stderr] + (list(strings_of(answer)) if answer else [])
    pieces = sorted({p for text in texts for p in leaked_pieces(text)})
    if pieces:
        problems.append(f"the grader's token leaked into the answer ({len(pieces)} pieces of {TOKEN_PIECE} characters)")
    if outcome.left:
        problems.append(f"{len(outcome.left)} processes outlived the grading: {outcome.left[:4]}")
    if verdicts and answer is not None:
        wrong = {}
        for check, wanted in zip(PROBE_CHECKS, verdicts.replace(" ", ""), strict=True):
            status, message = answer["checks"].get(check, ["missing", ""])
            if not VERDICT_LETTERS[wanted](status):
                wrong[check.split(".", 2)[2]] = f"{status}, expected {wanted}: {message[:240]}"
        if wrong:
            problems.append(f"verdicts differ from the program's real use: {wrong}")
    if peak_rss_mb is not None and outcome.peak_rss > peak_rss_mb * 1024 * 1024:
        problems.append(f"the program's processes held {outcome.peak_rss / 2 ** 20:.0f} MB together "
                        f"(bound {peak_rss_mb} MB)")
    if disk_drop_mb is not None and outcome.peak_disk_drop > disk_drop_mb * 1024 * 1024:
        problems.append(f"the disk lost {outcome.peak_disk_drop / 2 ** 20:.0f} MB while grading (bound {disk_drop_mb} MB)")
    return problems
