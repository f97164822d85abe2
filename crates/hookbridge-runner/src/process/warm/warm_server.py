# hookbridge's warm Python executor: one long-lived interpreter that forks a fresh child per hook
# run, so an unmodified Python hook skips the interpreter's start-up and the imports hooks commonly
# make. Started by hookbridge as `<interpreter> -c "import sys; exec(sys.stdin.read())" SOCKET
# IDLE_SECONDS` with this file on stdin; never run by hand.
#
# Protocol (one Unix stream connection per hook run, same user only):
#   client -> service one JSON line {"argv", "file" or "module", "path0", "env", "cwd", "umask",
#                     "rlimits", "orig_argv", "more"} ("more": other hooks start right after)
#                     with the hook's stdin, stdout and stderr attached (SCM_RIGHTS)
#   child  -> client  {"pid": N}            this process is the hook's and leads its own group
#                     or {"decline": why}   this run must spawn (a file beside the script would
#                                           shadow a preloaded module; a hard resource limit
#                                           above the service's; Python before 3.9; the Python
#                                           installation changed since the service started)
#   client -> child   b"g"                  go (anything else, or EOF: the child exits unrun);
#                                           the child then closes its end of the connection: a
#                                           hook holds no descriptor a spawned one would not have
#   server -> client  {"status": W}         the hook process's raw wait status, once the server
#                                           (its parent) has reaped it: only the hook's own
#                                           process can end the run, whatever it forks
# Other requests: {"op": "ping"} -> {"pid", "runs", "python", "version", "children"};
# {"op": "stop"} -> {"stopping": true, "children": N}: the service takes no more runs, and exits
# once the N hooks running have ended and their statuses are sent.
#
# The next hook's process is forked before its request comes (the *spare*): it accepts one
# connection itself and becomes that hook, so a run never waits for a fork; it hands the
# connection to the server (for the status) over a control socket, and the server forks the next
# spare. Everything the server does between runs is invisible to hooks: its own stdio is
# /dev/null, it runs one thread (fork is safe), and each child rebuilds what a fresh
# `python script.py` has.
import os
import sys

# What a fresh interpreter has imported before it reads a script; everything this server imports
# on top of it could shadow, or be shadowed by, a file beside a hook (see _shadowed).
_STARTUP_MODULES = frozenset(sys.modules)
_SOCKET_PATH = sys.argv[1]
_IDLE_SECONDS = float(sys.argv[2])
# The interpreter as hookbridge named it (the path whose file, if replaced, means an upgrade).
_INTERPRETER = sys.argv[3] if len(sys.argv) > 3 else sys.executable
# The interpreter's own search path, without the `-c` entry; each run puts its script's
# directory in front, as `python script.py` does (unless safe_path keeps it out).
_SAFE_PATH = bool(getattr(sys.flags, "safe_path", False))
_BASE_PATH = sys.path[:] if _SAFE_PATH else sys.path[1:]
# Whether a script's globals start with `__annotations__` on this version.
_MAIN_HAS_ANNOTATIONS = "__annotations__" in globals()
# What `__main__.__loader__` is before `-m` runs a module (the built-in importer).
_STARTUP_MAIN_LOADER = globals().get("__loader__")


def _daemonize():
    # Detach from the starter at once (it waits only for this first process), then lose the
    # controlling terminal and every directory the starter was in. Standard input, which brought
    # this source, becomes /dev/null like the other two.
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    if os.fork():
        os._exit(0)
    os.setsid()
    os.chdir("/")
    # Nothing the starter's parent left open (a pipe it waits on) may stay open here for hours.
    os.closerange(3, 1 << 20)


_daemonize()

import atexit  # noqa: E402
import builtins  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import runpy  # noqa: E402
import selectors  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import struct  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402
import weakref  # noqa: E402
from importlib.machinery import SourceFileLoader  # noqa: E402

# What hooks commonly import, imported once here so that children find them loaded. Import only:
# nothing here may cache a value read from the environment (children get the hook's environment).
_WARM_MODULES = (
    "argparse", "base64", "collections", "contextlib", "copy", "ctypes", "dataclasses", "datetime", "enum",
    "fnmatch", "functools", "glob", "hashlib", "itertools", "logging", "pathlib", "re", "shlex",
    "shutil", "string", "subprocess", "tempfile", "textwrap", "traceback", "typing", "urllib.parse",
    "uuid",
)
for _name in _WARM_MODULES:
    try:
        __import__(_name)
    except Exception:  # a module this interpreter lacks is simply not warm
        pass

# Everything loaded so far is kept out of the collector's sight: a child's collections then do not
# write to (and so copy) the pages it shares with this server. Children start with this state.
import gc  # noqa: E402

gc.freeze()

def _installation_paths():
    """What a fresh interpreter's answers depend on, besides the environment variables that are
    part of the service's identity: the interpreter's file (an upgrade replaces it), the venv's
    pyvenv.cfg, every directory of the search path and every site directory (a package installed,
    a `.pth` file added, a user site created after the service started: all change a directory),
    and each `.pth` file (rewritten in place by an editable install)."""
    paths = [_INTERPRETER, sys.executable, os.path.join(sys.prefix, "pyvenv.cfg"),
             os.path.join(os.path.dirname(os.path.dirname(sys.executable)), "pyvenv.cfg")]
    paths += _BASE_PATH
    try:
        import site
        sites = list(site.getsitepackages()) + [site.getusersitepackages()]
    except Exception:  # no `site` (python -S), or a platform without these
        sites = []
    paths += sites
    for directory in sites:
        try:
            paths += [os.path.join(directory, name) for name in os.listdir(directory) if name.endswith(".pth")]
        except OSError:
            pass
    seen = set()
    return [p for p in paths if p and not (p in seen or seen.add(p))]


def _stat_key(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


_INSTALLATION = [(path, _stat_key(path)) for path in _installation_paths()]


def _installation_changed():
    """What changed in the installation since the service started, or None: one stat(2) per
    path, checked when a run is taken."""
    for path, key in _INSTALLATION:
        if _stat_key(path) != key:
            return "%s %s" % (path, "appeared" if key is None else "changed")
    return None


_STDIO = (sys.stdin, sys.stdout, sys.stderr)
# LC_CTYPE as start-up left it: CPython sets it when it coerces a C locale (PEP 538). The inputs
# of that decision are part of this service's identity, so every run gets the same outcome.
_STARTUP_LC_CTYPE = os.environ.get("LC_CTYPE")
_PRELOADED = frozenset(name.split(".")[0] for name in sys.modules if name not in _STARTUP_MODULES)
_MODULE_SUFFIXES = (".py", ".pyc", ".pyw", ".so")


def _shadowed(directory):
    """A file in the script's directory that a fresh interpreter would import in place of a module
    this server has preloaded (a hook's own `signal.py`, `json/`): such a hook must spawn."""
    try:
        entries = os.listdir(directory)
    except OSError:
        return None
    for entry in entries:
        if entry.split(".", 1)[0] not in _PRELOADED:
            continue
        if entry.endswith(_MODULE_SUFFIXES) or os.path.isfile(os.path.join(directory, entry, "__init__.py")):
            return entry
    return None
_runs = 0
# Python 3.9+ on Linux: descriptors received with the request, and the child's exit by pidfd.
_CAPABLE = hasattr(socket, "recv_fds") and hasattr(os, "pidfd_open")


def _send(conn, message):
    try:
        conn.sendall((json.dumps(message) + "\n").encode())
    except OSError:
        pass


def _read_line(conn, limit=16 * 1024 * 1024):
    """One request line and the descriptors sent with it."""
    data = b""
    fds = []
    while b"\n" not in data:
        chunk, more_fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
        fds.extend(more_fds)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            break
    line = data.split(b"\n", 1)[0]
    return line, fds


def _trusted_peer(conn):
    """Whether the peer is this user's and not confined. A sandboxed hook (Landlock needs
    no_new_privs, which its every descendant keeps) that may open any socket can connect here as
    this user: the run it asked for would be forked by this server, outside its sandbox. hookbridge
    itself never sets no_new_privs; a peer that has it, or whose status cannot be read, is
    refused (a hookbridge that was refused spawns its hooks instead)."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", creds)
    if uid != os.getuid() or pid <= 0:
        return False
    try:
        with open("/proc/%d/status" % pid, "rb") as status:
            for line in status:
                if line.startswith(b"NoNewPrivs:"):
                    return line.split()[1:2] == [b"0"]
    except OSError:
        pass
    return False


def _fresh_stdio(fd, name, old, mode):
    """A standard stream built as CPython builds it at start-up, with the same encoding, errors
    and buffering decisions (they depend only on what this server's identity fixes). As in
    CPython, stdin is buffered even when PYTHONUNBUFFERED makes the other two raw."""
    buffered = mode == "r" or not old.write_through
    raw_mode = "rb" if mode == "r" else "wb"
    buf = io.open(fd, raw_mode, buffering=-1 if buffered else 0, closefd=False)
    raw = getattr(buf, "raw", buf)
    raw.name = name
    stream = io.TextIOWrapper(buf, old.encoding, old.errors, "\n", old.line_buffering, old.write_through)
    stream.mode = mode
    return stream


def _exit_code_of(exc):
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        # CPython reads it as a C long: one that does not fit is -1, so 255.
        return code & 0xFF if -(1 << 63) <= code < (1 << 63) else 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:
        pass
    return 1


def _is_closed(stream):
    """As CPython's `file_is_closed`: a stream whose `closed` cannot be read counts as open."""
    try:
        return bool(stream.closed)
    except Exception:
        return False


def _flush_stdio():
    """Flushes stdout and stderr as interpreter shutdown does (a stream the hook closed is left
    alone); a failure is reported the same way and makes the exit code 120."""
    status = 0
    for stream in (sys.stdout, sys.stderr):
        if stream is None or _is_closed(stream):
            continue
        try:
            stream.flush()
        except Exception as exc:  # as CPython's flush_std_files: report, exit 120
            status = 120
            try:
                sys.unraisablehook(types.SimpleNamespace(
                    exc_type=type(exc), exc_value=exc, exc_traceback=exc.__traceback__,
                    err_msg="Exception ignored in", object=stream))
            except Exception:
                pass
    return status


def _run_child(conn, request, fds):
    """In the spare that took the run: become the hook's own fresh interpreter and run its script."""
    # Wait for the client's go: it has the pid and can stop this process group from here on.
    try:
        go = conn.recv(1)
    except OSError:
        go = b""
    if go != b"g":
        os._exit(0)
    # From here the run is the server's to report (it reaps this process): the hook holds no
    # connection, so nothing it forks can speak for it, and it has the descriptors a spawned
    # hook has.
    conn.close()

    for target, fd in enumerate(fds):
        os.dup2(fd, target, inheritable=True)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.umask(request["umask"])
    _take_limits(request.get("rlimits", ()))
    os.chdir(request["cwd"])
    # The hook's environment, by difference: most of it is the service's own (each change is a
    # putenv or unsetenv).
    env = request["env"]
    if _STARTUP_LC_CTYPE is None:
        env.pop("LC_CTYPE", None)
    else:
        env["LC_CTYPE"] = _STARTUP_LC_CTYPE
    for name in [name for name in os.environ if name not in env]:
        del os.environ[name]
    for name, value in env.items():
        if os.environ.get(name) != value:
            os.environ[name] = value
    if hasattr(time, "tzset"):
        time.tzset()

    sys.stdin = sys.__stdin__ = _fresh_stdio(0, "<stdin>", _STDIO[0], "r")
    sys.stdout = sys.__stdout__ = _fresh_stdio(1, "<stdout>", _STDIO[1], "w")
    sys.stderr = sys.__stderr__ = _fresh_stdio(2, "<stderr>", _STDIO[2], "w")
    sys.argv = list(request["argv"])
    if hasattr(sys, "orig_argv"):
        sys.orig_argv = list(request["orig_argv"])
    sys.path[:] = ([] if _SAFE_PATH else [request["path0"]]) + _BASE_PATH

    path = request["file"]
    module = request.get("module")
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    if module is None:
        main.__dict__.update({
            "__file__": path,
            "__cached__": None,
            "__loader__": SourceFileLoader("__main__", path),
            "__package__": None,
            "__spec__": None,
        })
    else:
        # As at start-up, before `-m` hands the module to runpy (which sets the rest).
        main.__dict__.update({"__loader__": _STARTUP_MAIN_LOADER, "__package__": None, "__spec__": None})
    if _MAIN_HAS_ANNOTATIONS:
        main.__annotations__ = {}
    sys.modules["__main__"] = main
    # Only sys.modules holds the script's module from here, as in a fresh interpreter: at shutdown
    # (_finalize_modules) letting it go is what releases the script's globals.
    del main

    code = 0
    before = set(sys.modules)
    try:
        if module is not None:
            runpy._run_module_as_main(module)
        else:
            with open(path, "rb") as source:
                compiled = compile(source.read(), path, "exec", dont_inherit=True)
            exec(compiled, sys.modules["__main__"].__dict__)
    except SystemExit as exc:
        code = _exit_code_of(exc)
    except KeyboardInterrupt as exc:
        hook_exit = _report_uncaught(exc)
        if hook_exit is not None:
            os._exit(_finish(before, hook_exit))
        _finish(before)
        # As CPython: an uncaught KeyboardInterrupt ends the process by SIGINT.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException as exc:
        hook_exit = _report_uncaught(exc)
        code = 1 if hook_exit is None else hook_exit
    # A process the hook forked that falls off the end of the script ends here too, as it would
    # in a fresh interpreter: its own shutdown, its own exit code, reported to nobody.
    os._exit(_finish(before, code))


def _report_uncaught(exc):
    """Prints an exception the script did not catch as the interpreter would: through
    sys.excepthook, without this file's frame, so the traceback reads as the script's own. The
    exit code a `SystemExit` raised by the hook asks for (CPython exits with it: a guard's
    fail-closed `sys.excepthook` that calls `sys.exit(2)`), else None; another exception of the
    hook is printed before the original one, as CPython prints them."""
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    exc = exc.with_traceback(tb)
    try:
        sys.excepthook(type(exc), exc, tb)
    except SystemExit as hook_exit:
        return _exit_code_of(hook_exit)
    except BaseException as hook_error:
        try:
            sys.stderr.write("Error in sys.excepthook:\n")
            # The three-argument form (the one-argument one is Python 3.10's, and a service may
            # run 3.9); the hook's error without its context (the exception it was handling),
            # as CPython prints it.
            hook_tb = hook_error.__traceback__.tb_next
            traceback.print_exception(type(hook_error), hook_error, hook_tb, chain=False)
            sys.stderr.write("\nOriginal exception was:\n")
            traceback.print_exception(type(exc), exc, tb)
        except BaseException:
            pass
    return None


def _finalize_modules(before):
    """What interpreter shutdown does to modules, where a hook can see it (CPython's
    `finalize_modules`): a collection; the script's module and those it imported let go of
    (`sys.modules` entries set to None) and a collection, which runs the finalizers of the
    script's objects with its globals still there; then each such module still alive has its
    globals released (the latest import first, its `_names` before the others) and a last
    collection. So a buffered writer the script opened on fd 1 is flushed by its finalizer and a
    `__del__` runs, as in a fresh interpreter. Everything the server loaded is frozen out of the
    collector's sight, so this costs the hook's own objects only. Not while a daemon thread of the
    hook still runs: CPython stops those first, which a forked child cannot, and one reading
    released globals would print what a fresh interpreter never does."""
    if threading.active_count() > 1:
        return
    gc.collect()
    alive = []
    for name in [n for n in sys.modules if n == "__main__" or n not in before]:
        try:
            alive.append(weakref.ref(sys.modules[name]))
        except TypeError:
            pass
        sys.modules[name] = None
    gc.collect()
    for ref in reversed(alive):
        space = getattr(ref(), "__dict__", None)
        if space is None:
            continue
        for names in ([n for n in space if n.startswith("_") and not n.startswith("__")],
                      [n for n in space if n != "__builtins__"]):
            for name in names:
                try:
                    space[name] = None
                except BaseException:
                    pass
        del space
    gc.collect()


def _finish(before, code=0):
    """Interpreter shutdown, in CPython's order: wait for non-daemon threads, run atexit
    handlers, flush the standard streams, release the modules, flush them again."""
    try:
        threading._shutdown()
    except BaseException:
        pass
    try:
        atexit._run_exitfuncs()
    except SystemExit as exc:
        code = _exit_code_of(exc)
    except BaseException:
        pass
    flushed = _flush_stdio()
    try:
        _finalize_modules(before)
    except BaseException:
        pass
    flushed = _flush_stdio() or flushed
    return flushed or code


def main():
    global _runs
    if not _CAPABLE:
        _serve_declining()
        return
    listener, identity = _listen()
    selector = selectors.DefaultSelector()
    # pidfd -> [pid, conn, release]: the spare (conn None until it takes a run) and the children
    # running hooks (conn: the client's connection, for their status); release: the pipe whose
    # closing lets the leader of its process group exit.
    processes = {}
    spare = None  # (pidfd, the server's end of the spare's control socket)
    idle_since = time.monotonic()
    stopping = False
    # The next spare is forked once no hook is running (a fork beside a running hook competes with
    # it for the CPU), or at once when a connection is waiting or the run said more will follow
    # (several hooks on one event): the listener is watched only while there is no spare.
    waiting = False
    watching = False
    # A run whose client is gone (`hookbridge run` killed outright, which no handler of its own
    # sees) takes its hook with it: its connection is watched while the hook runs, and at its EOF
    # the hook's group is sent SIGTERM, then SIGKILL once `_ORPHAN_GRACE` has passed (`doomed`:
    # [(when, group)]). A byte still unread on it is the client's go for the child, not the
    # server's to take: the connection is looked at again shortly (`recheck`: [(when, pidfd, conn)]).
    doomed = []
    recheck = []
    while True:
        now = time.monotonic()
        for when, group in [d for d in doomed if d[0] <= now]:
            doomed.remove((when, group))
            _kill_group(group, signal.SIGKILL)
        for entry in [r for r in recheck if r[0] <= now]:
            recheck.remove(entry)
            _when, pidfd, conn = entry
            # The same run still (a pidfd's number is reused once its process is reaped).
            if pidfd in processes and processes[pidfd][1] is conn:
                selector.register(conn, selectors.EVENT_READ, ("client", pidfd))
        busy = any(conn is not None for _pid, conn, _release in processes.values())
        if stopping and not busy:
            break
        if spare is None and not stopping and (waiting or not busy):
            spare = _fork_spare(listener, selector, processes)
            waiting = False
        if not stopping and (spare is None) != watching:
            if watching:
                selector.unregister(listener)
            else:
                selector.register(listener, selectors.EVENT_READ, "listener")
            watching = not watching
        timeout = None if busy else max(0.0, idle_since + _IDLE_SECONDS - time.monotonic())
        deadlines = [entry[0] for entry in doomed + recheck]
        if deadlines:
            soonest = max(0.0, min(deadlines) - time.monotonic())
            timeout = soonest if timeout is None else min(timeout, soonest)
        events = selector.select(timeout)
        if not events and not busy and time.monotonic() >= idle_since + _IDLE_SECONDS:
            break
        # A spare's "took" is read before its exit: a hook that ends at once must still be
        # known as a run, whose status its client waits for.
        events.sort(key=lambda event: event[0].data != "control")
        for key, _mask in events:
            if key.data == "listener":
                waiting = True
            elif key.data == "leader":
                _reap_leader(selector, key.fd)
            elif isinstance(key.data, tuple):
                _, pidfd = key.data
                conn = key.fileobj
                if pidfd not in processes or processes[pidfd][1] is not conn:
                    continue  # the hook ended on this wake-up: its connection is closed
                try:
                    pending = conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
                except BlockingIOError:
                    continue
                except OSError:
                    pending = b""
                selector.unregister(conn)
                if pending:
                    recheck.append((time.monotonic() + 0.005, pidfd, conn))
                    continue
                group = _GROUP_OF.get(pidfd)
                if group is not None:
                    _kill_group(group, signal.SIGTERM)
                    doomed.append((time.monotonic() + _ORPHAN_GRACE, group))
            elif key.data == "control":
                took = _from_spare(key.fileobj, processes, spare)
                if took is None:
                    continue
                if took == "stop":
                    # No more runs: the socket goes (the next run starts a new service), the
                    # spare is killed unused, and the hooks running end as they would have,
                    # their statuses sent, before this service exits.
                    stopping = True
                    if watching:
                        selector.unregister(listener)
                        watching = False
                    listener.close()
                    _unlink_socket(identity)
                    if spare is not None:
                        selector.unregister(spare[1])
                        spare[1].close()
                        try:
                            os.kill(processes[spare[0]][0], signal.SIGKILL)
                        except OSError:
                            pass
                        spare = None
                    continue
                waiting = waiting or took == "took, more follow"
                selector.register(processes[spare[0]][1], selectors.EVENT_READ, ("client", spare[0]))
                # The spare became a hook's child: its control socket is done, a new spare comes.
                selector.unregister(key.fileobj)
                key.fileobj.close()
                spare = None
                _runs += 1
                idle_since = time.monotonic()
            else:
                pidfd = key.fd
                pid, conn, release = processes.pop(pidfd)
                _GROUP_OF.pop(pidfd, None)
                selector.unregister(pidfd)
                os.close(pidfd)
                if conn is not None:
                    try:
                        selector.unregister(conn)
                    except KeyError:
                        pass  # its client is gone, or it is due to be looked at again
                try:
                    _, status = os.waitpid(pid, 0)
                except ChildProcessError:
                    status = None
                os.close(release)  # its group's leader may go
                if conn is not None:
                    if status is not None:
                        _send(conn, {"status": status})
                    conn.close()
                    idle_since = time.monotonic()
                elif spare is not None and spare[0] == pidfd:
                    # The spare died before taking a run: make another.
                    selector.unregister(spare[1])
                    spare[1].close()
                    spare = None
    for pidfd, (pid, conn, release) in processes.items():
        if conn is None:  # the spare, or one killed at a stop and not yet reaped
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        os.close(release)
    for _when, group in doomed:
        _kill_group(group, signal.SIGKILL)
    for leader_fd in list(_LEADERS):
        _reap_leader(selector, leader_fd)
    _unlink_socket(identity)


def _unlink_socket(identity):
    """Removes the socket, if it is still this service's (a new service may have bound the name)."""
    try:
        if os.stat(_SOCKET_PATH).st_ino == identity:
            os.unlink(_SOCKET_PATH)
    except OSError:
        pass


def _listen():
    """Binds the socket (or finds another service already on it: then this one exits)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(_SOCKET_PATH)
    except OSError:
        # Another server got there first (or a stale socket is in the way and a live server is
        # not): the starter will find whichever answers.
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(_SOCKET_PATH)
            sys.exit(0)
        except OSError:
            os.unlink(_SOCKET_PATH)
            listener.bind(_SOCKET_PATH)
        finally:
            probe.close()
    os.chmod(_SOCKET_PATH, 0o600)
    identity = os.stat(_SOCKET_PATH).st_ino
    listener.listen(64)
    # Up: the starter's marker goes, so that if this service dies the next run starts another
    # at once (a marker that stays means a start that failed, not retried for a while).
    try:
        os.unlink(_SOCKET_PATH + ".started")
    except OSError:
        pass
    return listener, identity


# pidfd -> pid of each process-group leader (see _fork_spare) not yet reaped.
_LEADERS = {}


# How long a hook whose client is gone has between SIGTERM and SIGKILL (as hookbridge's guardian
# gives a spawned hook).
_ORPHAN_GRACE = 0.5
# pidfd -> the process group of the hook that process runs (its leader's pid).
_GROUP_OF = {}


def _kill_group(group, signum):
    try:
        os.killpg(group, signum)
    except OSError:
        pass  # already empty


def _fork_spare(listener, selector, processes):
    """Forks the next hook's process ahead of its request, so that a run does not wait for a fork:
    the spare accepts one connection itself and becomes that hook; the server hears of it (and gets
    the connection, to report the status) over a control socket.

    Forked first, a *leader* stands where `/bin/sh -c` stands for a spawned hook: it leads the
    hook's process group (which the client kills at a timeout) and does nothing else, so the hook
    is, as spawned, a member of its group and not its leader (its `os.setsid()` works). The leader
    exits when the server closes the pipe it waits on, once the hook has ended."""
    for stream in _STDIO:
        if stream is not None:
            stream.flush()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    keep_closed = [selector.fileno(), ours.fileno()] + list(processes) + list(_LEADERS)
    keep_closed += [conn.fileno() for _pid, conn, _release in processes.values() if conn is not None]
    keep_closed += [release for _pid, _conn, release in processes.values()]
    held, release = os.pipe()
    leader = os.fork()
    if leader == 0:
        try:
            _lead(held, keep_closed + [theirs.fileno(), release, listener.fileno()])
        finally:
            os._exit(0)
    os.close(held)
    try:
        os.setpgid(leader, leader)
    except OSError:
        pass  # the leader did it first
    leader_fd = os.pidfd_open(leader)
    _LEADERS[leader_fd] = leader
    selector.register(leader_fd, selectors.EVENT_READ, "leader")
    pid = os.fork()
    if pid == 0:
        try:
            _spare(listener, theirs, keep_closed + [release, leader_fd], leader)
        finally:
            os._exit(70)
    theirs.close()
    try:
        os.setpgid(pid, leader)
    except OSError:
        pass  # the spare did it first
    pidfd = os.pidfd_open(pid)
    processes[pidfd] = [pid, None, release]
    _GROUP_OF[pidfd] = leader
    selector.register(pidfd, selectors.EVENT_READ, "process")
    selector.register(ours, selectors.EVENT_READ, "control")
    return (pidfd, ours)


def _lead(held, keep_closed):
    """The leader of one hook's process group: waits, holding nothing of the server's, until the
    server closes the other end of `held` (or the group is killed)."""
    os.setpgid(0, 0)
    for fd in keep_closed:
        try:
            os.close(fd)
        except OSError:
            pass
    try:
        os.read(held, 1)
    except OSError:
        pass


def _reap_leader(selector, leader_fd):
    pid = _LEADERS.pop(leader_fd)
    selector.unregister(leader_fd)
    os.close(leader_fd)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _from_spare(control, processes, spare):
    """A message from the spare: it took a run ("took", its connection attached), or passed on an
    operation for the server. Returns "took", "stop" or None."""
    try:
        data, fds, _flags, _addr = socket.recv_fds(control, 1 << 16, 1)
    except OSError:
        return None
    if not data:
        return None
    message = json.loads(data)
    conn = socket.socket(fileno=fds[0]) if fds else None
    if "took" in message:
        processes[spare[0]][1] = conn
        return "took, more follow" if message.get("more") else "took"
    if "stale" in message:
        return "stop"  # the installation changed: a new service must answer the next runs
    if conn is None:
        return None
    op = message.get("op")
    running = sum(1 for _pid, c, _release in processes.values() if c is not None)
    if op == "ping":
        _send(conn, {"pid": os.getpid(), "runs": _runs, "python": sys.executable,
                     "version": sys.version.split()[0], "children": running})
    elif op == "stop":
        _send(conn, {"stopping": True, "pid": os.getpid(), "children": running})
    conn.close()
    return "stop" if op == "stop" else None


def _spare(listener, control, keep_closed, leader):
    """The spare: waits for a connection, and becomes the hook of the first run request (its
    process group, its pid and everything else are already its own)."""
    os.setpgid(0, leader)
    for fd in keep_closed:
        try:
            os.close(fd)
        except OSError:
            pass
    waiting = selectors.DefaultSelector()
    waiting.register(listener, selectors.EVENT_READ)
    waiting.register(control, selectors.EVENT_READ)
    listener.setblocking(False)
    _prefault(lambda: waiting.select(0))
    while True:
        for key, _mask in waiting.select():
            if key.fileobj is control:
                os._exit(0)  # the server is gone (EOF) or stops
        try:
            conn, _ = listener.accept()
        except OSError:
            continue
        try:
            request, fds = _read_run(conn, control)
        except Exception:
            conn.close()
            continue
        if request is None:
            continue
        # Taken: from here this process is the hook's.
        took = b'{"took": true, "more": true}' if request.get("more") else b'{"took": true}'
        socket.send_fds(control, [took], [conn.fileno()])
        waiting.close()
        listener.close()
        control.close()
        _send(conn, {"pid": os.getpid(), "pgid": leader})
        _run_child(conn, request, fds)


def _madvise():
    """madvise(2), through ctypes; None where it cannot be had."""
    try:
        import ctypes
        function = ctypes.CDLL(None, use_errno=True).madvise
        function.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        function.restype = ctypes.c_int
        return function
    except Exception:
        return None


_MADVISE = _madvise()
_MADV_POPULATE_WRITE = 23  # Linux 5.14
_PREFAULT_CHUNK = 256 * 1024


def _prefault(interrupted):
    """Copies the spare's writable private pages (shared copy-on-write with the server) ahead of
    its run, which would otherwise take a page fault and a copy for each page it first writes
    (every object whose reference count it touches): ~1 ms of a run. Done while nobody waits, a
    chunk at a time; a connection or a word from the server (`interrupted`) stops it."""
    if _MADVISE is None:
        return
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return
    for line in lines:
        fields = line.split()
        if len(fields) < 2 or "w" not in fields[1] or "p" not in fields[1]:
            continue
        if len(fields) >= 6 and fields[5].startswith("[") and fields[5] not in ("[heap]", "[stack]"):
            continue
        start, end = (int(bound, 16) for bound in fields[0].split("-"))
        for address in range(start, end, _PREFAULT_CHUNK):
            if interrupted():
                return
            if _MADVISE(address, min(_PREFAULT_CHUNK, end - address), _MADV_POPULATE_WRITE) != 0:
                return  # an older kernel: nothing more to gain


def _read_run(conn, control):
    """Reads one request. A run this spare should take comes back with its descriptors; anything
    else is answered (declined, or passed to the server) and gives (None, None)."""
    conn.setblocking(True)
    if not _trusted_peer(conn):
        conn.close()
        return None, None
    conn.settimeout(5)
    line, fds = _read_line(conn)
    request = json.loads(line)
    if request.get("op") is not None:
        for fd in fds:
            os.close(fd)
        socket.send_fds(control, [line], [conn.fileno()])
        conn.close()
        return None, None
    changed = None
    if len(fds) != 3:
        why = None  # not a run: dropped
    else:
        changed = _installation_changed()
        why = _declined(request, changed)
        if why is None:
            conn.settimeout(None)
            return request, fds
    for fd in fds:
        os.close(fd)
    if why is not None:
        _send(conn, {"decline": why})
    conn.close()
    if changed is not None:
        # Once the run was told: the server stops (killing this spare) so that the next run
        # starts a new service.
        try:
            control.send(json.dumps({"stale": changed}).encode())
        except OSError:
            pass
    return None, None


def _declined(request, changed):
    """Why this service must not run `request` (it must spawn), or None. `changed`: what changed
    in the Python installation since the service started, if anything."""
    if changed is not None:
        return "the Python installation changed since the warm service started (%s); a new service starts" % changed
    shadow = _shadowed(request["path0"])
    if shadow is not None:
        return "%s beside the script shadows a module the warm service has loaded" % shadow
    unreachable = _unreachable_limit(request.get("rlimits", ()))
    if unreachable is not None:
        return "the hook's limit on resource %d is above what the warm service may set" % unreachable
    return None


def _unreachable_limit(limits):
    """A resource whose hard limit the hook has above this process's (only root may raise one):
    such a hook must spawn to get it."""
    for number, _soft, hard in limits:
        try:
            _current_soft, current_hard = resource.getrlimit(number)
        except (ValueError, OSError):
            continue
        if current_hard != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or hard > current_hard):
            return number
    return None


def _take_limits(limits):
    """The hook's resource limits, which a spawned hook would have inherited from hookbridge."""
    for number, soft, hard in limits:
        try:
            if resource.getrlimit(number) != (soft, hard):
                resource.setrlimit(number, (soft, hard))
        except (ValueError, OSError):
            pass


def _serve_declining():
    """Python before 3.9: every run is declined (the hook spawns) at the cost of one connection;
    a ping is answered, so `hookbridge serve --status` shows why."""
    listener, identity = _listen()
    listener.settimeout(_IDLE_SECONDS)
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            break
        try:
            conn.settimeout(5)
            # Read (descriptors sent with it are dropped by the kernel), then answer.
            request = json.loads(conn.recv(1 << 20).split(b"\n", 1)[0])
            op = request.get("op")
            if op == "ping":
                _send(conn, {"pid": os.getpid(), "runs": 0, "python": sys.executable,
                             "version": sys.version.split()[0], "children": 0})
            elif op != "stop":
                _send(conn, {"decline": "Python %d.%d cannot run warm hooks (3.9 or later is needed)"
                             % sys.version_info[:2]})
            conn.close()
            if op == "stop":
                break
        except Exception:
            conn.close()
    try:
        if os.stat(_SOCKET_PATH).st_ino == identity:
            os.unlink(_SOCKET_PATH)
    except OSError:
        pass


if __name__ == "__main__":
    main()
