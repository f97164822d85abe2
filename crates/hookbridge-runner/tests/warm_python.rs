//! Warm Python hooks against spawned ones: the same real Python scripts, run once by a fresh
//! interpreter (`"warm": false`) and once by a warm service (`HOOKBRIDGE_WARM=always`), must end
//! the same way and print the same bytes — for what a script can see of how it was started
//! (`sys.argv`, `__file__`, `sys.path[0]`, its globals, stdio, environment, working directory), for
//! every way it can end (exit codes, `sys.exit` with a message, a traceback, a syntax error,
//! `os._exit`, a signal, threads, atexit), and for the supervisor's own rules (timeout and tree
//! kill, a daemon left holding stdout, output caps). Then what only a service can get wrong: an
//! edited script, two interpreters, a service killed mid-run, a stale socket.
//!
//! Python is required: the interpreter is the one `python3` on PATH really runs
//! (`sys.executable`, so a pyenv shim is seen through); a missing python3 fails these tests.

#![cfg(target_os = "linux")]

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hookbridge_runner::process::warm::{self, NotWarm, WarmMode, WarmUse};
use hookbridge_runner::process::{run_process, ProcessOutcome, ProcessSpec, ProcessStatus, Program};

/// Every test in this binary shares one service directory and forces warm runs.
static SETUP: OnceLock<Setup> = OnceLock::new();

fn setup() -> &'static Setup {
    SETUP.get_or_init(|| {
        let runtime = tempfile::Builder::new()
            .prefix("hb-warm-")
            .tempdir()
            .unwrap()
            .keep();
        // A runtime directory is used only when it is closed to others.
        fs::set_permissions(&runtime, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
        // Removed when this test process exits (each test is a process of its own under
        // nextest): a run of the suite leaves no folder behind in the temporary folder.
        extern "C" fn remove_runtime() {
            if let Some(setup) = SETUP.get() {
                let _ = fs::remove_dir_all(&setup.runtime);
            }
        }
        // SAFETY: registers a plain function with no preconditions, run at the process's exit.
        unsafe { libc::atexit(remove_runtime) };
        // SAFETY (edition 2021, no unsafe needed): set once, before any thread of ours reads them.
        std::env::set_var("XDG_RUNTIME_DIR", &runtime);
        std::env::set_var(WarmMode::VARIABLE, "always");
        // Services of this test binary exit soon after it.
        std::env::set_var("HOOKBRIDGE_WARM_IDLE", "30");
        let out = Command::new("python3")
            .args([
                "-c",
                "import sys; print(sys.executable); print(sys.version_info >= (3, 9))",
            ])
            .output()
            .expect("python3 is required for the warm Python tests");
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines = text.lines();
        let python = PathBuf::from(lines.next().expect("python3 printed its executable"));
        assert_eq!(
            lines.next(),
            Some("True"),
            "warm Python hooks need Python 3.9 or later"
        );
        Setup { python, runtime }
    })
}

struct Setup {
    python: PathBuf,
    /// The services' `XDG_RUNTIME_DIR`.
    runtime: PathBuf,
}

fn python() -> String {
    setup().python.display().to_string()
}

fn project() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("hb-warm-project-")
        .tempdir()
        .unwrap()
}

fn write_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&path, body).unwrap();
    path
}

fn spec(command: &str, cwd: &Path) -> ProcessSpec {
    setup();
    let mut spec = ProcessSpec::new(Program::shell(command));
    spec.cwd = Some(cwd.to_path_buf());
    spec.timeout = Duration::from_secs(30);
    spec.env = vec![
        (OsString::from("CLAUDE_PROJECT_DIR"), cwd.as_os_str().to_owned()),
        (OsString::from("HOOK_EVENT"), OsString::from("PreToolUse")),
    ];
    spec.stdin = Arc::from(&br#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#[..]);
    spec
}

fn spawned(mut spec: ProcessSpec) -> ProcessOutcome {
    spec.warm = false;
    let outcome = run_process(spec);
    assert_eq!(outcome.warm, WarmUse::NotTried(NotWarm::OptedOut));
    outcome
}

fn warm(spec: ProcessSpec) -> ProcessOutcome {
    let outcome = run_process(spec);
    assert_eq!(outcome.warm, WarmUse::Ran, "expected a warm run: {outcome:#?}");
    outcome
}

/// What must be identical between the two runs (not the duration, not how it was run).
fn observed(outcome: &ProcessOutcome) -> (ProcessStatus, String, String, bool, bool) {
    (
        outcome.status.clone(),
        outcome.stdout.to_string_lossy().into_owned(),
        outcome.stderr.to_string_lossy().into_owned(),
        outcome.leaked,
        outcome.stdin_unread,
    )
}

/// Runs `command` spawned and warm and asserts both were observed the same; returns the warm one.
fn same_both_ways(command: &str, cwd: &Path) -> ProcessOutcome {
    let cold = spawned(spec(command, cwd));
    let hot = warm(spec(command, cwd));
    assert_eq!(
        observed(&hot),
        observed(&cold),
        "warm and spawned runs of `{command}` differ"
    );
    hot
}

const WHAT_A_SCRIPT_SEES: &str = r#"
import json, os, sys
payload = json.load(sys.stdin)
g = sorted(k for k in globals() if k.startswith("__"))
print(json.dumps({
    "payload": payload,
    "argv": sys.argv, "orig_argv": getattr(sys, "orig_argv", None), "file": __file__,
    "name": __name__, "path0": sys.path[0], "path": sys.path[1:], "globals": g,
    "spec": __spec__, "package": __package__, "cached": __cached__,
    "loader": type(__loader__).__name__, "executable": sys.executable,
    "cwd": os.getcwd(), "project": os.environ.get("CLAUDE_PROJECT_DIR"),
    "event": os.environ.get("HOOK_EVENT"), "umask": os.umask(0o22),
    "stdio": [(s.encoding, s.errors, s.line_buffering, s.write_through, s.isatty(), s.mode,
               s.buffer.raw.name if hasattr(s.buffer, "raw") else None, type(s.buffer).__name__)
              for s in (sys.stdin, sys.stdout, sys.stderr)],
    "flags": list(sys.flags),
    "main_module": sys.modules["__main__"].__dict__ is globals(),
    "stdin_kind": os.fstat(0).st_mode >> 12, "environ": dict(os.environ),
}, sort_keys=True))
print("to stderr", file=sys.stderr)
"#;

#[test]
fn a_script_sees_what_a_fresh_interpreter_would_show_it() {
    let dir = project();
    write_script(dir.path(), "hooks/see.py", WHAT_A_SCRIPT_SEES);
    let py = python();
    for command in [
        format!("{py} hooks/see.py one 'two words'"),
        format!("{py} \"$CLAUDE_PROJECT_DIR/hooks/see.py\" --flag"),
        format!("'{py}' ./hooks/../hooks/see.py"),
    ] {
        let hot = same_both_ways(&command, dir.path());
        assert!(
            hot.stdout.to_string_lossy().contains("\"tool_name\": \"Bash\""),
            "{hot:#?}"
        );
    }
}

#[test]
fn a_hook_has_the_resource_limits_a_spawned_one_would_inherit() {
    // The service is started with this process's limits; then they are lowered, and the warm
    // child must take the lowered ones, as a spawned hook inherits them.
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let dir = project();
    write_script(
        dir.path(),
        "limits.py",
        "import resource\nprint([resource.getrlimit(r) for r in range(resource.RLIMIT_RTTIME + 1)])\n",
    );
    let command = format!("{} limits.py", python());
    warm(spec(&command, dir.path()));
    let (_, nofile_hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    setrlimit(Resource::RLIMIT_NOFILE, 321.min(nofile_hard), nofile_hard).unwrap();
    setrlimit(Resource::RLIMIT_FSIZE, 1 << 30, 1 << 30).unwrap();
    let hot = same_both_ways(&command, dir.path());
    let printed = hot.stdout.to_string_lossy();
    assert!(
        printed.contains(&format!("({}, ", 321.min(nofile_hard))),
        "{printed}"
    );
    assert!(printed.contains("(1073741824, 1073741824)"), "{printed}");
}

#[test]
fn python3_from_path_runs_warm_with_what_it_would_see_spawned() {
    // `python3` as PATH finds it: the interpreter itself, or a pyenv shim, which is run once to
    // learn its choice (and what it changes in the environment) and then seen through.
    let dir = project();
    write_script(dir.path(), "see.py", WHAT_A_SCRIPT_SEES);
    for _ in 0..2 {
        let hot = same_both_ways("python3 see.py", dir.path());
        assert!(hot
            .stdout
            .to_string_lossy()
            .contains(&format!("\"executable\": \"{}\"", python())));
    }
}

#[test]
fn a_python_shebang_script_run_directly_goes_warm() {
    let dir = project();
    let script = write_script(
        dir.path(),
        "hook.py",
        &format!("#!{}\n{WHAT_A_SCRIPT_SEES}", python()),
    );
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    same_both_ways("./hook.py arg", dir.path());
}

#[test]
fn a_console_script_found_on_path_goes_warm() {
    // A package's console script (`pip install some-guard` puts `some-guard` in a `bin/` on PATH,
    // with the venv's interpreter on its `#!` line), run by its bare name: the shell finds it in
    // PATH and the kernel gives the interpreter the path it built.
    let dir = project();
    let bin = dir.path().join("venv/bin");
    let script = write_script(
        &bin,
        "some-guard",
        &format!("#!{}\n{WHAT_A_SCRIPT_SEES}", python()),
    );
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "/nonexistent:{}/:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let command = "some-guard check --strict";
    let with_path = |mut spec: ProcessSpec| {
        spec.env.push((OsString::from("PATH"), OsString::from(&path)));
        spec
    };
    let cold = spawned(with_path(spec(command, dir.path())));
    let hot = warm(with_path(spec(command, dir.path())));
    assert_eq!(observed(&hot), observed(&cold));
    let printed = hot.stdout.to_string_lossy();
    assert!(printed.contains("venv/bin//some-guard"), "{printed}");
}

#[test]
fn a_module_run_with_dash_m_goes_warm() {
    // `python3 -m pkg.guard`: found from the working directory, run by runpy as `-m` runs it,
    // with argv[0] the module's file, sys.path[0] the working directory, and runpy's own frames in
    // a traceback.
    let dir = project();
    write_script(dir.path(), "pkg/__init__.py", "");
    write_script(
        dir.path(),
        "pkg/guard.py",
        r#"
import json, os, sys
payload = json.load(sys.stdin)
print(json.dumps({
    "payload": payload, "argv": sys.argv, "orig_argv": getattr(sys, "orig_argv", None),
    "file": __file__, "name": __name__, "spec": __spec__.name, "package": __package__,
    "loader": type(__loader__).__name__, "path0": sys.path[0], "cwd": os.getcwd(),
    "globals": sorted(k for k in globals() if k.startswith("__")),
    "main_is_this": sys.modules["__main__"].__dict__ is globals(),
}))
if "--fail" in sys.argv:
    raise ValueError("guard failed")
"#,
    );
    let py = python();
    for command in [
        format!("{py} -m pkg.guard --strict"),
        format!("{py} -m pkg.guard --fail"),
        format!("{py} -m pkg.nosuch"),
    ] {
        same_both_ways(&command, dir.path());
    }
    let hot = warm(spec(&format!("{py} -m pkg.guard"), dir.path()));
    let printed = hot.stdout.to_string_lossy();
    assert!(printed.contains("\"spec\": \"pkg.guard\""), "{printed}");
}

#[test]
fn every_way_a_script_ends_is_reported_the_same() {
    let dir = project();
    let cases = [
        ("exit2.py", "import sys\nprint('blocked: rm -rf', file=sys.stderr)\nsys.exit(2)\n"),
        ("message.py", "import sys\nsys.exit('a message goes to stderr, exit 1')\n"),
        ("none.py", "raise SystemExit(None)\n"),
        ("big.py", "import sys\nsys.exit(258)\n"),
        ("raises.py", "def f():\n    raise ValueError('broken hook')\nf()\n"),
        ("syntax.py", "def broken(:\n    pass\n"),
        ("os_exit.py", "import os, sys\nsys.stdout.write('unflushed')\nos._exit(3)\n"),
        ("killed.py", "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n"),
        ("interrupt.py", "raise KeyboardInterrupt\n"),
        (
            "thread_exit.py",
            "import sys, threading\nt = threading.Thread(target=lambda: sys.exit(5))\nt.start(); t.join()\nprint('main goes on')\n",
        ),
        (
            "late_thread.py",
            "import threading, time\ndef late():\n    time.sleep(0.2); print('after main', flush=True)\nthreading.Thread(target=late).start()\n",
        ),
        (
            "at_exit.py",
            "import atexit, sys\natexit.register(lambda: print('at exit'))\nsys.exit(4)\n",
        ),
        (
            "unread.py",
            "import sys\nsys.stdin.close()\nprint('ignored its input')\n",
        ),
    ];
    let py = python();
    for (name, body) in cases {
        write_script(dir.path(), name, body);
        same_both_ways(&format!("{py} {name}"), dir.path());
    }
}

/// Hooks that do what a guard should never have to worry about: each must end the same warm and
/// spawned (status, stdout, stderr, leak, stdin), so that no way of running can turn a block into
/// an allow. Above all: only the hook's own process decides the run, whatever it forks.
/// Guards that block in the last steps of an interpreter's life (found by a red-team pass: each
/// blocked spawned and was let through warm, the run ending as if it never happened): each must
/// block warm as it does spawned.
#[test]
fn a_block_decided_as_the_interpreter_ends_is_a_block_warm_too() {
    let dir = project();
    let cases = [
        // A guard that fails closed when it crashes: its `sys.excepthook` exits 2 (CPython exits
        // with the code a SystemExit raised there asks for).
        (
            "excepthook_exits_2.py",
            "import sys\ndef fail_closed(*exc):\n    sys.stderr.write('guard crashed, failing closed\\n')\n    sys.exit(2)\nsys.excepthook = fail_closed\n{}['missing']\n",
        ),
        // Closed its own stdout or stderr, then blocked: shutdown does not flush a closed stream.
        (
            "closed_stdout_then_block.py",
            "import sys\nprint('checked')\nsys.stdout.close()\nsys.stderr.write('blocked: rm -rf\\n')\nsys.exit(2)\n",
        ),
        (
            "closed_stderr_then_block.py",
            "import sys\nsys.stderr.write('blocked: rm -rf\\n')\nsys.stderr.close()\nsys.exit(2)\n",
        ),
        // A deny written through a writer of its own on fd 1 and never flushed: the writer's
        // finalizer flushes it when the interpreter releases the script's globals.
        (
            "own_writer_unflushed.py",
            "import os\nout = os.fdopen(os.dup(1), 'w')\nout.write('{\"decision\": \"block\", \"reason\": \"no\"}')\n",
        ),
        // A block decided in a finalizer at shutdown: of a global, and of a reference cycle.
        (
            "finalizer_blocks.py",
            "import os, sys\nclass Verdict:\n    def __del__(self):\n        sys.stderr.write('blocked\\n')\n        sys.stderr.flush()\n        os._exit(2)\nv = Verdict()\n",
        ),
        (
            "finalizer_of_a_cycle_blocks.py",
            "import os, sys\nclass Verdict:\n    def __del__(self):\n        sys.stderr.write('blocked\\n')\n        sys.stderr.flush()\n        os._exit(2)\nv = Verdict()\nv.me = v\ndel v\n",
        ),
    ];
    let py = python();
    for (name, body) in cases {
        write_script(dir.path(), name, body);
        let hot = same_both_ways(&format!("{py} {name}"), dir.path());
        let stdout = hot.stdout.to_string_lossy();
        assert!(
            hot.status == ProcessStatus::Exited(2) || stdout.contains("\"block\""),
            "{name} blocks: {hot:#?}"
        );
    }
}

#[test]
fn awkward_hooks_end_the_same_warm_and_spawned() {
    let dir = project();
    let cases = [
        (
            "fork_child_exits_0.py",
            "import os, sys\npid = os.fork()\nif pid == 0:\n    sys.exit(0)\nos.waitpid(pid, 0)\nprint('blocked: rm -rf', file=sys.stderr)\nsys.exit(2)\n",
        ),
        (
            "fork_child_os_exit.py",
            "import os, sys\nif os.fork() == 0:\n    os._exit(0)\nos.wait()\nprint('blocked', file=sys.stderr)\nsys.exit(2)\n",
        ),
        (
            "fork_child_outlives.py",
            "import os, sys, time\nif os.fork() == 0:\n    time.sleep(0.3)\n    sys.exit(0)\nprint('blocked', file=sys.stderr, flush=True)\nos._exit(2)\n",
        ),
        (
            "fork_child_raises.py",
            "import os, sys\nif os.fork() == 0:\n    raise SystemExit('child says 1')\nos.wait()\nsys.exit(2)\n",
        ),
        ("os_exit_2.py", "import os, sys\nprint('deny', file=sys.stderr, flush=True)\nos._exit(2)\n"),
        (
            "daemon_thread.py",
            "import sys, threading, time\nthreading.Thread(target=lambda: time.sleep(30), daemon=True).start()\nsys.exit(2)\n",
        ),
        (
            "atexit_after_block.py",
            "import atexit, sys\natexit.register(sys.stderr.write, 'cleanup ran\\n')\nprint('main done')\nsys.exit(2)\n",
        ),
        (
            "atexit_os_exit.py",
            "import atexit, os\natexit.register(lambda: os._exit(2))\n",
        ),
        ("sigkill_self.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"),
        (
            "handled_signal.py",
            "import os, signal, sys\nsignal.signal(signal.SIGUSR1, lambda *a: sys.exit(2))\nos.kill(os.getpid(), signal.SIGUSR1)\nimport time; time.sleep(5)\n",
        ),
        (
            "setsid.py",
            "import os, sys\ntry:\n    os.setsid()\n    print('own session')\nexcept OSError as e:\n    print('setsid failed:', e)\nsys.exit(2)\n",
        ),
        (
            "daemonize.py",
            "import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        null = os.open(os.devnull, os.O_RDWR)\n        for fd in (0, 1, 2):\n            os.dup2(null, fd)\n        time.sleep(0.5)\n        os._exit(0)\n    os._exit(0)\nos.wait()\nprint('daemon started')\nsys.exit(2)\n",
        ),
        (
            "chdir_umask_rlimit.py",
            "import os, resource, sys\nos.chdir('/')\nos.umask(0o077)\nresource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))\nprint(os.getcwd(), oct(os.umask(0)))\nsys.exit(2)\n",
        ),
        (
            "descriptors.py",
            "import os\nprint(sorted(int(fd) for fd in os.listdir('/proc/self/fd')))\n",
        ),
        (
            "excepthook_raises.py",
            "import sys\ndef broken(*exc):\n    raise ValueError('the hook broke')\nsys.excepthook = broken\n{}['missing']\n",
        ),
        ("exit_code_past_a_c_long.py", "import sys\nsys.exit(2 ** 64 + 2)\n"),
        ("exit_code_at_the_end_of_a_c_long.py", "import sys\nsys.exit(-(2 ** 63))\n"),
        (
            "flood_then_block.py",
            "import sys\nsys.stdout.write('o' * 3000000)\nsys.stderr.write('blocked ' + 'e' * 2000000)\nsys.exit(2)\n",
        ),
    ];
    let py = python();
    for (name, body) in cases {
        write_script(dir.path(), name, body);
        same_both_ways(&format!("{py} {name}"), dir.path());
    }
}

#[test]
fn a_hook_whose_own_file_shadows_a_preloaded_module_spawns() {
    // `signal.py` beside a script is what `import signal` finds in a fresh interpreter; the warm
    // service has loaded the real one, so this hook must spawn to behave the same.
    let dir = project();
    let py = python();
    write_script(
        dir.path(),
        "signal.py",
        "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n",
    );
    let cold = spawned(spec(&format!("{py} signal.py"), dir.path()));
    let fallback = run_process(spec(&format!("{py} signal.py"), dir.path()));
    assert!(
        matches!(&fallback.warm, WarmUse::Declined(why) if why.contains("signal.py beside the script shadows")),
        "{:?}",
        fallback.warm
    );
    assert_eq!(observed(&fallback), observed(&cold));
}

#[test]
fn an_edited_script_takes_effect_on_the_next_run() {
    let dir = project();
    let py = python();
    write_script(dir.path(), "h.py", "print('first version')\n");
    let first = warm(spec(&format!("{py} h.py"), dir.path()));
    assert_eq!(first.stdout.to_string_lossy(), "first version\n");
    write_script(
        dir.path(),
        "h.py",
        "import sys\nprint('second version')\nsys.exit(2)\n",
    );
    let second = warm(spec(&format!("{py} h.py"), dir.path()));
    assert_eq!(second.stdout.to_string_lossy(), "second version\n");
    assert_eq!(second.status, ProcessStatus::Exited(2));
}

#[test]
fn nothing_leaks_from_one_run_to_the_next() {
    let dir = project();
    let py = python();
    write_script(
        dir.path(),
        "h.py",
        "import os, sys, json\nprint(json.dumps([os.environ.get('LEFT'), 'marker' in sys.modules, hasattr(json, 'left')]))\nos.environ['LEFT'] = 'x'\nimport types\nsys.modules['marker'] = types.ModuleType('marker')\njson.left = 1\n",
    );
    for _ in 0..2 {
        let hot = warm(spec(&format!("{py} h.py"), dir.path()));
        assert_eq!(hot.stdout.to_string_lossy(), "[null, false, false]\n");
    }
}

#[test]
fn a_timed_out_warm_hook_is_killed_with_its_whole_tree() {
    let dir = project();
    let py = python();
    write_script(
        dir.path(),
        "slow.py",
        "import subprocess, time, sys\np = subprocess.Popen(['sleep', '300'])\nprint(p.pid, flush=True)\ntime.sleep(300)\n",
    );
    let mut slow = spec(&format!("{py} slow.py"), dir.path());
    slow.timeout = Duration::from_millis(1500);
    slow.kill_grace = Duration::from_millis(200);
    let cold = spawned(slow.clone());
    let hot = warm(slow);
    assert_eq!(hot.status, ProcessStatus::TimedOut);
    // The same end and the same stderr (no shell's "Terminated" line: the shell was killed too).
    assert_eq!((&hot.status, &hot.stderr), (&cold.status, &cold.stderr));
    let grandchild: i32 = hot
        .stdout
        .to_string_lossy()
        .trim()
        .parse()
        .expect("the hook printed its child's pid");
    // The grandchild was in the hook's group: it is gone (or a zombie of the service's child,
    // which was killed too, so it is reaped by init).
    let alive = fs::read_to_string(format!("/proc/{grandchild}/stat"))
        .map(|stat| !stat.contains(") Z "))
        .unwrap_or(false);
    assert!(!alive, "the timed-out hook's child {grandchild} is still running");
}

#[test]
fn a_daemon_left_holding_stdout_is_reported_as_leaked_either_way() {
    let dir = project();
    let py = python();
    write_script(
        dir.path(),
        "daemon.py",
        "import os, sys, time\nif os.fork() == 0:\n    time.sleep(2)\n    os._exit(0)\nprint('parent done', flush=True)\nsys.exit(0)\n",
    );
    let hot = same_both_ways(&format!("{py} daemon.py"), dir.path());
    assert!(hot.leaked, "{hot:#?}");
}

#[test]
fn output_past_the_cap_is_counted_and_cut_the_same_way() {
    let dir = project();
    let py = python();
    write_script(
        dir.path(),
        "flood.py",
        "import sys\nsys.stderr.write('e' * 300000)\nprint('x' * 300000)\n",
    );
    let mut capped = spec(&format!("{py} flood.py"), dir.path());
    capped.output_cap = 1000;
    let cold = spawned(capped.clone());
    let hot = warm(capped);
    assert_eq!(observed(&hot), observed(&cold));
    assert!(hot.stdout.truncated && hot.stdout.total_len == 300_001);
}

#[test]
fn a_service_killed_mid_run_runs_the_hook_again_spawned_and_gives_its_answer() {
    let dir = project();
    let py = python();
    write_script(
        dir.path(),
        "blocker.py",
        "import sys, time\ntime.sleep(1.0)\nprint('blocked by policy', file=sys.stderr)\nsys.exit(2)\n",
    );
    // Warm the service up, then find its pid.
    write_script(dir.path(), "noop.py", "pass\n");
    warm(spec(&format!("{py} noop.py"), dir.path()));
    let service_pid = warm::services()
        .unwrap()
        .into_iter()
        .filter_map(|s| s.answer.ok())
        .find(|a| a["python"] == python().as_str())
        .and_then(|a| a["pid"].as_i64())
        .expect("the service answers a ping") as i32;
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(service_pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    });
    let hot = run_process(spec(&format!("{py} blocker.py"), dir.path()));
    killer.join().unwrap();
    // How the warm run ended cannot be known once its service is gone: the hook is run again,
    // spawned, and its answer is the one a spawned run gives (never a guessed "continue").
    assert!(
        matches!(&hot.warm, WarmUse::Spawned(why) if why.contains("ended while the hook ran") && why.contains("run again, spawned")),
        "{:?}",
        hot.warm
    );
    assert_eq!(hot.status, ProcessStatus::Exited(2), "{hot:#?}");
    assert_eq!(hot.stderr.to_string_lossy(), "blocked by policy\n");
    // The next run finds the stale socket, starts a new service and still runs warm.
    let next = warm(spec(&format!("{py} noop.py"), dir.path()));
    assert_eq!(next.status, ProcessStatus::Exited(0));
}

#[test]
fn a_service_asked_to_stop_mid_run_lets_the_hook_end_and_report_it() {
    let dir = project();
    let py = python();
    write_script(
        dir.path(),
        "blocker.py",
        "import os, sys, time\ntime.sleep(1.0)\nprint('blocked by policy', file=sys.stderr, flush=True)\nos._exit(2)\n",
    );
    write_script(dir.path(), "noop.py", "pass\n");
    warm(spec(&format!("{py} noop.py"), dir.path()));
    let stopper = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(300));
        warm::stop_services().unwrap()
    });
    let hot = warm(spec(&format!("{py} blocker.py"), dir.path()));
    let stopped = stopper.join().unwrap();
    assert_eq!(hot.status, ProcessStatus::Exited(2), "{hot:#?}");
    assert_eq!(hot.stderr.to_string_lossy(), "blocked by policy\n");
    let [(_, Ok(service))] = stopped.as_slice() else {
        panic!("one service, stopped: {stopped:?}");
    };
    assert_eq!(service.running, 1, "it was running the hook when asked");
    assert!(
        service.wait(Duration::from_secs(10)),
        "the service exits once its hook has ended"
    );
    // The next run starts a new service.
    assert_eq!(
        warm(spec(&format!("{py} noop.py"), dir.path())).status,
        ProcessStatus::Exited(0)
    );
}

/// Where a fresh interpreter run with `home` as HOME looks for user site-packages.
fn user_site(home: &Path) -> PathBuf {
    let out = Command::new(python())
        .args(["-c", "import site; print(site.getusersitepackages())"])
        .env("HOME", home)
        .output()
        .unwrap();
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

#[test]
fn what_is_installed_after_the_service_started_is_seen_by_the_next_run() {
    let dir = project();
    let py = python();
    let home = tempfile::tempdir().unwrap();
    let with_home = |command: &str| {
        let mut spec = spec(command, dir.path());
        spec.env
            .push((OsString::from("HOME"), home.path().as_os_str().to_owned()));
        spec
    };
    write_script(
        dir.path(),
        "guard.py",
        "import sys\ntry:\n    import hb_guard_rules\nexcept ImportError:\n    print('no rules', file=sys.stderr)\n    sys.exit(1)\nsys.exit(hb_guard_rules.verdict())\n",
    );
    let command = format!("{py} guard.py");
    let before = warm(with_home(&command));
    assert_eq!(before.status, ProcessStatus::Exited(1));
    // `pip install --user`: the user site directory appears, with the module in it.
    let site = user_site(home.path());
    write_script(&site, "hb_guard_rules.py", "def verdict():\n    return 2\n");
    let after = run_process(with_home(&command));
    assert!(
        matches!(&after.warm, WarmUse::Declined(why) if why.contains("installation changed") && why.contains("appeared")),
        "{:?}",
        after.warm
    );
    assert_eq!(
        after.status,
        ProcessStatus::Exited(2),
        "the guard's import now works: {after:#?}"
    );
    assert_eq!(
        warm(with_home(&command)).status,
        ProcessStatus::Exited(2),
        "a new service sees it"
    );
    // `pip install -e`: a .pth file naming a folder outside every site directory.
    let editable = dir.path().join("src");
    write_script(
        &editable,
        "hb_editable_rules.py",
        "def verdict():\n    return 2\n",
    );
    write_script(
        dir.path(),
        "editable.py",
        "import sys\ntry:\n    import hb_editable_rules\nexcept ImportError:\n    sys.exit(1)\nsys.exit(hb_editable_rules.verdict())\n",
    );
    let command = format!("{py} editable.py");
    assert_eq!(warm(with_home(&command)).status, ProcessStatus::Exited(1));
    fs::write(
        site.join("__editable__.hb.pth"),
        format!("{}\n", editable.display()),
    )
    .unwrap();
    let after = run_process(with_home(&command));
    assert!(matches!(&after.warm, WarmUse::Declined(_)), "{:?}", after.warm);
    assert_eq!(after.status, ProcessStatus::Exited(2));
    assert_eq!(warm(with_home(&command)).status, ProcessStatus::Exited(2));
}

#[test]
fn an_interpreter_replaced_on_disk_is_not_run_from_the_old_file() {
    let dir = project();
    let bin = dir.path().join("bin");
    fs::create_dir_all(&bin).unwrap();
    let copy = bin.join("python3");
    fs::copy(python(), &copy).unwrap();
    write_script(dir.path(), "v.py", "import sys\nprint('hook ran')\n");
    let command = format!("{} v.py", copy.display());
    warm(spec(&command, dir.path()));
    // An upgrade: a new file renamed over the old one.
    let new = bin.join("python3.new");
    fs::copy(python(), &new).unwrap();
    fs::rename(&new, &copy).unwrap();
    let after = run_process(spec(&command, dir.path()));
    assert!(
        matches!(&after.warm, WarmUse::Declined(why) if why.contains(&format!("{} changed", copy.display()))),
        "{:?}",
        after.warm
    );
    assert_eq!(after.stdout.to_string_lossy(), "hook ran\n");
    assert_eq!(
        warm(spec(&command, dir.path())).stdout.to_string_lossy(),
        "hook ran\n"
    );
}

#[test]
fn a_later_hook_cannot_read_an_earlier_runs_environment() {
    let dir = project();
    let py = python();
    write_script(
        dir.path(),
        "environ.py",
        "print(open('/proc/self/environ', 'rb').read().decode(errors='replace').replace('\\0', '\\n'))\n",
    );
    // The first run starts the service: its environment holds a secret of that run only.
    let mut first = spec(&format!("{py} environ.py"), dir.path());
    first
        .env
        .push((OsString::from("HB_FIRST_RUN_SECRET"), OsString::from("hunter2")));
    let first = warm(first);
    let second = warm(spec(&format!("{py} environ.py"), dir.path()));
    for run in [&first, &second] {
        let seen = run.stdout.to_string_lossy();
        assert!(!seen.contains("hunter2"), "{seen}");
    }
}

#[test]
fn a_hook_that_leaves_its_group_is_still_killed_at_its_timeout() {
    let dir = project();
    let py = python();
    write_script(
        dir.path(),
        "escape.py",
        "import os, sys, time\nos.setsid()\nprint(os.getpid(), flush=True)\ntime.sleep(300)\n",
    );
    let mut slow = spec(&format!("{py} escape.py"), dir.path());
    slow.timeout = Duration::from_millis(1500);
    slow.kill_grace = Duration::from_millis(200);
    for outcome in [spawned(slow.clone()), warm(slow)] {
        assert_eq!(outcome.status, ProcessStatus::TimedOut);
        let pid: i32 = outcome
            .stdout
            .to_string_lossy()
            .trim()
            .parse()
            .expect("the hook printed its pid");
        let gone = common_wait(|| {
            fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| stat.contains(") Z "))
        });
        assert!(gone, "the hook {pid} outlived its timeout after setsid");
    }
}

fn common_wait(done: impl Fn() -> bool) -> bool {
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while std::time::Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

#[test]
fn two_interpreters_get_two_services() {
    let dir = project();
    let venv = dir.path().join("venv");
    let made = Command::new(python())
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .expect("python3 -m venv runs");
    assert!(made.success(), "python3 -m venv --without-pip failed");
    write_script(
        dir.path(),
        "which.py",
        "import sys\nprint(sys.prefix != sys.base_prefix, sys.executable)\n",
    );
    let venv_python = venv.join("bin/python");
    let in_venv = same_both_ways(&format!("{} which.py", venv_python.display()), dir.path());
    assert!(
        in_venv.stdout.to_string_lossy().starts_with("True "),
        "{in_venv:#?}"
    );
    let plain = same_both_ways(&format!("{} which.py", python()), dir.path());
    assert!(plain.stdout.to_string_lossy().starts_with("False "), "{plain:#?}");
    let pythons: Vec<String> = warm::services()
        .unwrap()
        .into_iter()
        .filter_map(|s| s.answer.ok())
        .filter_map(|a| a["python"].as_str().map(str::to_string))
        .collect();
    assert!(
        pythons.contains(&venv_python.display().to_string()),
        "{pythons:?}"
    );
    assert!(pythons.contains(&python()), "{pythons:?}");
}

#[test]
fn commands_that_are_not_plain_python_runs_spawn_and_say_why() {
    let dir = project();
    let py = python();
    write_script(dir.path(), "h.py", "print('hi')\n");
    type Expected = fn(&NotWarm) -> bool;
    let cases: Vec<(String, Expected)> = vec![
        (format!("{py} h.py | cat"), |w| {
            matches!(w, NotWarm::ShellSyntax('|'))
        }),
        (format!("{py} -u h.py"), |w| {
            matches!(w, NotWarm::InterpreterOption(_))
        }),
        (format!("{py} missing.py"), |w| matches!(w, NotWarm::Script(_))),
        ("echo hi".to_string(), |w| matches!(w, NotWarm::NotPython)),
        ("cat h.py".to_string(), |w| matches!(w, NotWarm::NotPython)),
        (format!("{py} -m 'not a module'"), |w| {
            matches!(w, NotWarm::InterpreterOption(_))
        }),
        (format!("{py} -c 'print(1)'"), |w| {
            matches!(w, NotWarm::InterpreterOption(_))
        }),
    ];
    for (command, why) in cases {
        let outcome = run_process(spec(&command, dir.path()));
        match &outcome.warm {
            WarmUse::NotTried(reason) if why(reason) => {}
            other => panic!("`{command}`: unexpected {other:?}"),
        }
    }
}

#[test]
fn an_interpreter_whose_service_cannot_start_spawns_and_says_why() {
    // PYTHONHOME pointing nowhere: the interpreter cannot start at all, warm or not. The service
    // never comes up, the hook spawns (and fails as it would have), and the reason is kept.
    let dir = project();
    let py = python();
    write_script(dir.path(), "h.py", "print('never')\n");
    let mut broken = spec(&format!("{py} h.py"), dir.path());
    broken
        .env
        .push(("PYTHONHOME".into(), dir.path().join("nowhere").into_os_string()));
    let cold = spawned(broken.clone());
    let fallback = run_process(broken);
    assert!(
        matches!(&fallback.warm, WarmUse::Spawned(why) if why.contains("did not start")),
        "{:?}",
        fallback.warm
    );
    // Python's fatal error names a thread by its address, which differs between any two runs.
    assert_eq!(fallback.status, cold.status);
    assert_ne!(fallback.status, ProcessStatus::Exited(0));
    let first_line = |o: &ProcessOutcome| o.stderr.to_string_lossy().lines().next().map(str::to_string);
    assert_eq!(first_line(&fallback), first_line(&cold));
}
