"""The sandbox every run of a learner's program goes through (docs/sandbox.md).

A learner is root on the graded VM and their scripts and hooks are hostile input. Each run gets,
by construction:

- its own **user namespace**: uid and gid 0 inside are SANDBOX_UID outside, so the program looks
  like root to itself but owns no host file and has no capability over the host; every
  capability is dropped (bounding set included) before the learner's program starts, so it
  cannot undo a mount either;
- its own **mount namespace** whose root is a fresh, size-bounded tmpfs (bytes written count,
  not compressed size) holding only read-only binds of the system directories (/usr, /etc with
  the credentials' directories hidden, the PATH directories outside /usr), a few /dev nodes, a
  /proc of its own and a /tmp, plus throw-away copies of the learner's trees at their real paths
  (`Sandbox.stage_tree`): no symlink in a copy (their targets are copied), nothing of the host's
  /root, /srv, /var, /opt, /home: not the grader's kubeconfig, token, venv or module files;
- its own **PID and cgroup namespaces**: it sees only its own processes, cannot signal or trace
  the module or read its pipes (/proc/$PPID is the sandbox's own shell), and every process of
  it dies with its first one (the kernel kills a PID namespace whose init exits);
- its own **cgroup** (memory and pids bounded for all its processes together), killed whole
  when the run ends or its deadline passes.

Nothing here is shaped like a probe: the paths are the learner's own, the environment is a
root login's, and the names the lab gives its inputs are its business (labs/cgoa_ci/probe_cases.py).

Only util-linux (unshare, nsenter, setpriv, mount, pivot_root) and /bin/sh are used, all in the
base image of the VMs; the grader runs as root (it must read the learner's /root).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.bounded_run import run_bounded

SANDBOX_UID = 65534  # nobody: owns nothing a grader or a learner needs
MEMORY_BYTES = 1024 * 1024 * 1024  # every process of one run together, tmpfs pages included
PIDS_MAX = 256  # a fork bomb stops here
DISK_BYTES = 256 * 1024 * 1024  # the tmpfs root: copies plus whatever the run writes
COPY_MAX_BYTES = 64 * 1024 * 1024  # one staged tree (apparent size of its files)
COPY_MAX_FILES = 20000
OUTPUT_BYTES = 256 * 1024
# Read-only in every sandbox; PATH directories outside them are added. /etc is needed for
# passwd, hosts, resolv.conf and CA certificates; its credential directories are hidden.
SYSTEM_DIRS = ("/usr", "/etc")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ALWAYS_HIDDEN = ("/etc/rancher",)  # k3s: its admin kubeconfig and config.yaml (the join token)
DEVICES = ("null", "zero", "full", "random", "urandom")
PLAIN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TOOL_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"  # where util-linux is, whatever PATH the module got
# Runs as the namespaces' root before the learner's program: builds the root file system from
# its arguments, then drops every capability and runs the program under a plain sh (PID 1 of
# the namespace: signals from inside cannot stop it, and when it exits everything else dies).
# Arguments: stage layer root ready size cwd, then "bind DIR" | "hide DIR" | "blank FILE" | "link PATH TARGET"
# words up to "--", then the program's argv.
SETUP = r"""set -eu
stage=$1 layer=$2 root=$3 ready=$4 size=$5 cwd=$6
shift 6
program_path=$PATH
PATH=/usr/sbin:/usr/bin:/sbin:/bin
setpriv=$(command -v setpriv)
mount -t tmpfs -o "size=$size,mode=0755" tmpfs "$root"
cp -a "$stage/." "$root/"
if [ "$layer" != - ]; then cp -a "$layer/." "$root/"; fi
mkdir -p "$root/proc" "$root/dev" "$root/tmp"
chmod 1777 "$root/tmp"
while [ "$1" != -- ]; do
  case $1 in
    bind) mkdir -p "$root$2"; mount --bind "$2" "$root$2"; mount -o remount,bind,ro "$root$2"; shift 2 ;;
    hide) mkdir -p "$root$2"; mount -t tmpfs -o size=4k,mode=0755 tmpfs "$root$2"; shift 2 ;;
    blank) mount --bind /dev/null "$root$2"; shift 2 ;;
    link) ln -s "$3" "$root$2"; shift 3 ;;
    *) echo "sandbox: unknown word $1" >&2; exit 1 ;;
  esac
done
shift
for dev in null zero full random urandom; do
  : > "$root/dev/$dev"; mount --bind "/dev/$dev" "$root/dev/$dev"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mount -t proc proc "$root/proc"
mkdir "$root/.old"
cd "$root"
pivot_root . .old
: > "/.old$ready/started"
umount -l /.old
rmdir /.old
cd "$cwd"
unset OLDPWD
PATH=$program_path
exec "$setpriv" --bounding-set=-all --inh-caps=-all --no-new-privs -- /bin/sh -c '"$@"; exit $?' sh "$@"
"""
# Joins the run's cgroups (as the host's root, before any namespace), then becomes nsenter.
JOIN_CGROUPS = 'for procs in $CGROUP_PROCS; do echo $$ > "$procs"; done; unset CGROUP_PROCS; exec "$@"'


class SandboxUnavailable(Exception):
    """The grader cannot build a sandbox on this machine (not root, no namespaces or cgroups):
    the grader's environment is at fault, never the learner."""


class TreeRefused(Exception):
    """A learner's tree the sandbox will not copy (too large, too many files): the learner's."""


def login_env(home, path=None):
    """The environment of a root login: what a learner's program sees when they run it."""
    return {"PATH": path or PLAIN_PATH, "HOME": home, "LANG": "C.UTF-8", "USER": "root", "LOGNAME": "root",
            "SHELL": "/bin/sh"}


def mktemp_name(rng=None):
    """A name as `mktemp -d` makes it (tmp.XXXXXXXXXX), for inputs that must look like any other."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    pick = rng.choice if rng else secrets.choice
    return "tmp." + "".join(pick(alphabet) for _ in range(10))


class Cgroups:
    """One cgroup per run in every hierarchy that can bound it: cgroup v2 (one directory with
    memory.max and pids.max) or v1 (memory and pids hierarchies, plus the v2 one for
    cgroup.kill where it is mounted beside them). Created and removed by the grader (root)."""

    def __init__(self, memory_bytes=MEMORY_BYTES, pids_max=PIDS_MAX):
        self.dirs = []
        self.kill_file = None
        name = f"job-{secrets.token_hex(6)}"
        mounts = cgroup_mounts()
        try:
            unified = mounts.get("cgroup2")
            if unified and os.path.exists(os.path.join(unified, "cgroup.controllers")) and not mounts.get("memory"):
                path = self._make(unified, name)
                enable_controllers(unified, ("memory", "pids"))
                write(os.path.join(path, "memory.max"), memory_bytes)
                write(os.path.join(path, "memory.swap.max"), 0, optional=True)
                write(os.path.join(path, "pids.max"), pids_max)
                self.kill_file = os.path.join(path, "cgroup.kill")
            else:
                if not (mounts.get("memory") and mounts.get("pids")):
                    raise SandboxUnavailable("no memory and pids cgroup controllers are mounted")
                memory = self._make(mounts["memory"], name)
                write(os.path.join(memory, "memory.limit_in_bytes"), memory_bytes)
                write(os.path.join(memory, "memory.memsw.limit_in_bytes"), memory_bytes, optional=True)
                write(os.path.join(self._make(mounts["pids"], name), "pids.max"), pids_max)
                if unified:
                    self.kill_file = os.path.join(self._make(unified, name), "cgroup.kill")
        except OSError as exc:
            self.remove()
            raise SandboxUnavailable(f"cannot create a cgroup: {exc.strerror or exc}") from None

    def _make(self, hierarchy, name):
        path = os.path.join(hierarchy, name)
        os.mkdir(path)
        self.dirs.append(path)
        return path

    @property
    def procs_files(self):
        return [os.path.join(path, "cgroup.procs") for path in self.dirs]

    def pids(self):
        found = set()
        for procs in self.procs_files:
            with contextlib.suppress(OSError), open(procs, encoding="ascii") as handle:
                found.update(int(line) for line in handle if line.strip())
        return found

    def kill(self):
        """SIGKILL every process of the run: cgroup.kill where the kernel has it, else each pid
        until none is left (bounded: a process in D state is left to the kernel)."""
        if self.kill_file and os.path.exists(self.kill_file):
            with contextlib.suppress(OSError):
                write(self.kill_file, 1)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            left = self.pids()
            if not left:
                return
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)

    def remove(self):
        for path in reversed(self.dirs):
            with contextlib.suppress(OSError):
                os.rmdir(path)
        self.dirs = []


def cgroup_mounts():
    """{"cgroup2": mount point, "memory": v1 mount point, "pids": v1 mount point} as mounted."""
    found = {}
    with open("/proc/self/mounts", encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) < 4:
                continue
            where, kind, options = fields[1], fields[2], fields[3].split(",")
            if kind == "cgroup2":
                found.setdefault("cgroup2", where)
            elif kind == "cgroup":
                for controller in ("memory", "pids"):
                    if controller in options:
                        found.setdefault(controller, where)
    return found


def enable_controllers(hierarchy, controllers):
    """Let the cgroups directly under the v2 root bound memory and pids (systemd enables both;
    a root without them refuses, and the sandbox is unavailable)."""
    with open(os.path.join(hierarchy, "cgroup.subtree_control"), encoding="ascii") as handle:
        enabled = handle.read().split()
    for controller in controllers:
        if controller not in enabled:
            write(os.path.join(hierarchy, "cgroup.subtree_control"), f"+{controller}")


def write(path, value, optional=False):
    try:
        with open(path, "w", encoding="ascii") as handle:
            handle.write(f"{value}\n")
    except OSError:
        if not optional:
            raise


class Sandbox:
    """Throw-away copies of the learner's trees, staged once, and runs of programs over fresh
    copies of them: each run starts from the staged state (one run's writes never reach the
    next), plus the files of its own layer (`write_file(..., layer=name)`).

    `hidden`: host paths that must not be seen even where a system directory is bound (the
    grader's and the admin's kubeconfigs: their directories are hidden, or the file itself where
    its directory is a system directory); the grader's venv is always hidden. `network=False`
    gives each run an empty network namespace (a tool that needs no network: helm template).
    Use as a context manager: leaving it removes every copy.
    """

    def __init__(self, hidden=(), disk_bytes=DISK_BYTES, memory_bytes=MEMORY_BYTES, pids_max=PIDS_MAX, network=True):
        if os.geteuid() != 0:
            raise SandboxUnavailable("the grader does not run as root")
        for tool in ("unshare", "nsenter", "setpriv", "mount", "pivot_root"):
            if shutil.which(tool, path=TOOL_PATH) is None:
                raise SandboxUnavailable(f"{tool} (util-linux) is not installed")
        self.disk_bytes = disk_bytes
        self.memory_bytes = memory_bytes
        self.pids_max = pids_max
        self.network = network  # False: a network namespace of its own, with nothing in it
        venv = [sys.prefix] if sys.prefix not in ("/", "/usr", "/usr/local") else []
        self.hidden = tuple(os.path.abspath(p) for p in (*hidden, *venv) if p)
        self.workdir = tempfile.mkdtemp()
        os.chmod(self.workdir, 0o711)  # the namespaces' root (SANDBOX_UID) must reach what is below
        self.stage = os.path.join(self.workdir, "stage")
        self.layers = os.path.join(self.workdir, "layers")
        self.mountpoint = os.path.join(self.workdir, "root")
        self.ready = os.path.join(self.workdir, "ready")  # SETUP says here that the program started
        for path in (self.stage, self.layers, self.mountpoint, self.ready):
            os.mkdir(path)
        os.chown(self.ready, SANDBOX_UID, SANDBOX_UID)
        self.staged_bytes = self.staged_files = 0
        self.unsealed = {None}  # the stage (None) and the layers written since they were last sealed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.workdir, ignore_errors=True)

    # ------------------------------------------------------------ staging

    def staged(self, real_path, layer=None):
        """Where `real_path` (an absolute path as the program will see it) lives in the stage."""
        base = os.path.join(self.layers, layer) if layer else self.stage
        return os.path.join(base, os.path.abspath(real_path).lstrip("/"))

    def make_dirs(self, real_path, layer=None):
        path = self.staged(real_path, layer)
        if not os.path.isdir(path):
            os.makedirs(path)
            self.unsealed.add(layer)
        return path

    def write_file(self, real_path, data, mode=0o644, layer=None):
        """A file of the grader's own (a probe input) at `real_path`, in the stage or a layer."""
        self.make_dirs(os.path.dirname(real_path), layer)
        self.unsealed.add(layer)
        target = self.staged(real_path, layer)
        with open(target, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(target, mode)

    def stage_tree(self, source, real_path=None, skip=lambda relpath, data: False):
        """Copy the learner's tree (or file) `source` to `real_path` (default: its own path).

        Symlinks are resolved, wherever they point: a link to a file becomes a copy of that file,
        a link to a directory a copy of that directory (a directory reached twice, a loop, is
        refused), so nothing written in the sandbox goes through a link. FIFOs, sockets, devices
        and dangling links are left out. `skip(relpath, data)` leaves a file out (credentials the
        program must not get). Bounded: COPY_MAX_BYTES and COPY_MAX_FILES for everything staged.
        Raises TreeRefused with the reason."""
        seen = set()

        def copy(path, dest, rel):
            try:
                info = os.stat(path)  # follows links: the copy holds what the link names
            except OSError:
                return
            self.staged_files += 1
            if self.staged_files > COPY_MAX_FILES:
                raise TreeRefused(f"has more than {COPY_MAX_FILES} files")
            if stat.S_ISDIR(info.st_mode):
                if (info.st_dev, info.st_ino) in seen:
                    raise TreeRefused(f"{rel or '.'} is reached twice through symbolic links (a loop)")
                seen.add((info.st_dev, info.st_ino))
                os.makedirs(dest, exist_ok=True)
                os.chmod(dest, stat.S_IMODE(info.st_mode) | 0o700)
                for name in sorted(os.listdir(path)):
                    copy(os.path.join(path, name), os.path.join(dest, name), os.path.join(rel, name) if rel else name)
            elif stat.S_ISREG(info.st_mode):
                self.staged_bytes += info.st_size
                if self.staged_bytes > COPY_MAX_BYTES:
                    raise TreeRefused(f"is larger than {COPY_MAX_BYTES // (1024 * 1024)} MiB")
                with open(path, "rb") as handle:
                    data = handle.read(info.st_size + 1)
                if skip(rel, data):
                    return
                with open(dest, "wb") as handle:
                    handle.write(data)
                os.chmod(dest, stat.S_IMODE(info.st_mode) & 0o777)

        real_path = real_path or source
        self.make_dirs(os.path.dirname(real_path))
        self.unsealed.add(None)
        try:
            copy(source, self.staged(real_path), "")
        except RecursionError:
            raise TreeRefused("is nested too deep") from None
        except OSError as exc:
            raise TreeRefused(f"cannot be copied: {exc.strerror or exc}") from None

    def seal(self, layer=None):
        """Give the staged files, and those of `layer`, to the sandbox's root (SANDBOX_UID): it
        copies them into its own root file system and must read them all, 0600 files included.
        Only what was written since it was last sealed is walked again; files our own git
        commands write into the stage (checks/probes.py) belong to it and must be written before
        its first run."""
        for written in self.unsealed & {None, layer}:
            base = os.path.join(self.layers, written) if written else self.stage
            os.lchown(base, SANDBOX_UID, SANDBOX_UID)
            for directory, dirnames, filenames in os.walk(base):
                for name in dirnames + filenames:
                    os.lchown(os.path.join(directory, name), SANDBOX_UID, SANDBOX_UID)
            self.unsealed.discard(written)

    # ------------------------------------------------------------ running

    def mount_words(self, path_dirs):
        """The SETUP words that build the root: system dirs bound read-only, the hidden paths."""
        words = []
        bound = []
        for link in SYSTEM_LINKS:
            if os.path.islink(link):
                words += ["link", link, os.readlink(link)]
            elif os.path.isdir(link):
                bound.append(link)
        bound += [d for d in SYSTEM_DIRS if os.path.isdir(d)]
        for directory in path_dirs:
            if os.path.isabs(directory) and os.path.isdir(directory) and reachable(directory) \
                    and not within(directory, bound) and not within(directory, self.hidden):
                bound.append(os.path.abspath(directory))
        for directory in bound:
            words += ["bind", directory]
        for path in (*ALWAYS_HIDDEN, *self.hidden):
            if not within(path, bound) or not os.path.lexists(path):
                continue  # not bound, or not on this machine: not there at all
            if os.path.isdir(path):
                words += ["hide", path]
            elif os.path.dirname(path) in bound:
                words += ["blank", path]  # a file directly in /etc: only the file
            elif os.path.exists(os.path.dirname(path)):
                words += ["hide", os.path.dirname(path)]  # its directory, with the token beside it
        return words

    def run(self, argv, cwd, env, timeout, max_output=OUTPUT_BYTES, layer=None):
        """Run `argv` in a fresh sandbox over the staged trees (and `layer`), with `cwd` (created
        if missing) and `env` as the program sees them. Returns bounded_run.RunResult; never raises
        for what the program does; raises SandboxUnavailable when the sandbox cannot be built."""
        self.make_dirs(cwd)
        if layer:
            self.make_dirs("/", layer)
        self.seal(layer)
        started = os.path.join(self.ready, "started")
        with contextlib.suppress(FileNotFoundError):
            os.remove(started)
        cgroups = Cgroups(self.memory_bytes, self.pids_max)
        holder = None
        try:
            holder = user_namespace()
            layer_dir = os.path.join(self.layers, layer) if layer else "-"
            launcher = ["/bin/sh", "-c", JOIN_CGROUPS, "join",
                        shutil.which("nsenter", path=TOOL_PATH), f"--target={holder.pid}", "--user", "--",
                        shutil.which("unshare", path=TOOL_PATH), "--mount", "--pid", "--cgroup", "--fork",
                        *([] if self.network else ["--net"]), "--kill-child", "--propagation", "private",
                        "--", "/bin/sh", "-c", SETUP, "setup", self.stage, layer_dir, self.mountpoint, self.ready,
                        str(self.disk_bytes), cwd, *self.mount_words((env.get("PATH") or PLAIN_PATH).split(":")),
                        "--", *argv]
            result = run_bounded(launcher, cwd="/", env={**env, "CGROUP_PROCS": " ".join(cgroups.procs_files)},
                                 timeout=timeout, max_output=max_output, memory_bytes=4 * 1024 ** 3)
        finally:
            cgroups.kill()
            cgroups.remove()
            if holder is not None:
                holder.kill()
                holder.wait()
        if not os.path.exists(started) and not result.timed_out:
            detail = " ".join(result.stderr.decode("utf-8", "replace").split()[-40:]) or repr(result)
            raise SandboxUnavailable(f"the sandbox could not be built: {detail}")
        return result


def user_namespace():
    """A process holding a new user namespace whose root is SANDBOX_UID outside, mapped by the
    grader (root) itself: util-linux's --map-users needs newuidmap, which the VMs lack."""
    holder = subprocess.Popen([shutil.which("unshare", path=TOOL_PATH), "--user", "--", "sleep", "3600"],
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)
    own = os.readlink("/proc/self/ns/user")
    deadline = time.monotonic() + 5
    try:
        while True:
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{holder.pid}/ns/user") != own:
                    break
            if holder.poll() is not None or time.monotonic() > deadline:
                raise SandboxUnavailable("cannot create a user namespace")
            time.sleep(0.002)
        write(f"/proc/{holder.pid}/setgroups", "deny")
        write(f"/proc/{holder.pid}/uid_map", f"0 {SANDBOX_UID} 1")
        write(f"/proc/{holder.pid}/gid_map", f"0 {SANDBOX_UID} 1")
    except (OSError, SandboxUnavailable) as exc:
        holder.kill()
        holder.wait()
        if isinstance(exc, SandboxUnavailable):
            raise
        raise SandboxUnavailable(f"cannot map the sandbox's user: {exc.strerror or exc}") from None
    return holder


def reachable(directory):
    """Whether every directory on the way to `directory` lets others through: the namespaces'
    root (SANDBOX_UID) binds it, and cannot reach into a private home such as /root/.local/bin."""
    path = os.path.abspath(directory)
    while True:
        try:
            if not os.stat(path).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
        if path == "/":
            return True
        path = os.path.dirname(path)


def within(path, roots):
    """True when `path` is one of `roots` or inside one."""
    path = os.path.abspath(path)
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)
