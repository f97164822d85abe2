//! Helpers shared by the CLI integration tests: running the `hookbridge` binary with a watchdog,
//! requiring external programs, and inspecting processes.
//!
//! Every process a test starts is bounded by a deadline: a hookbridge that hangs makes the test fail
//! with a message instead of hanging the test run.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// A loopback URL (`http://127.0.0.1:<port><path>`) that refuses every connection, and what keeps
/// it so: its port is held by a socket that is bound and never listens, so no other socket can take
/// it while the guard lives. (A listener dropped to leave a "closed" port freed it for the next
/// bind: a test's own next server was given it once, and answered where nobody should have.)
pub fn refusing_url(path: &str) -> (String, std::os::fd::OwnedFd) {
    use nix::sys::socket::{bind, getsockname, socket, AddressFamily, SockFlag, SockType, SockaddrIn};
    use std::os::fd::AsRawFd;
    let held = socket(
        AddressFamily::Inet,
        SockType::Stream,
        SockFlag::SOCK_CLOEXEC,
        None,
    )
    .unwrap();
    bind(held.as_raw_fd(), &SockaddrIn::new(127, 0, 0, 1, 0)).unwrap();
    let port = getsockname::<SockaddrIn>(held.as_raw_fd()).unwrap().port();
    (format!("http://127.0.0.1:{port}{path}"), held)
}

/// The `hookbridge` binary cargo built for these tests.
pub fn hookbridge_bin() -> PathBuf {
    // `HOOKBRIDGE_TEST_BIN` runs the tests against another build (an older one, to see a new
    // test fail without its fix).
    std::env::var_os("HOOKBRIDGE_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_hookbridge")))
}

/// `program leading… <inner's program> <inner's args>` with `inner`'s environment changes and working
/// folder: `inner` (a hookbridge command) run under a wrapper (`/usr/bin/time -v`, `/bin/sh -c
/// '…; exec "$0" "$@"'`).
pub fn wrapped<S: AsRef<std::ffi::OsStr>>(
    program: impl AsRef<std::ffi::OsStr>,
    leading: &[S],
    inner: &Command,
) -> Command {
    let mut outer = Command::new(program);
    outer
        .args(leading)
        .arg(inner.get_program())
        .args(inner.get_args());
    for (name, value) in inner.get_envs() {
        match value {
            Some(value) => outer.env(name, value),
            None => outer.env_remove(name),
        };
    }
    if let Some(dir) = inner.get_current_dir() {
        outer.current_dir(dir);
    }
    outer
}

/// Environment variables that would change how `hookbridge run` finds hooks or times them out.
/// Tests remove them so the developer's shell cannot leak into a result.
pub const HOSTILE_ENV: &[&str] = &[
    "XDG_STATE_HOME",
    "CLAUDE_PROJECT_DIR",
    "AMPLIFIER_PROJECT_DIR",
    "CLAUDE_ENV_FILE",
    "AMPLIFIER_ENV_FILE",
    "HOOKBRIDGE_DEFAULT_TIMEOUT",
    "HOOKBRIDGE_MAX_TIMEOUT",
    "HOOKBRIDGE_LOG",
    // The audit log: in the test's HOME, at its default size.
    "HOOKBRIDGE_AUDIT_LOG",
    "HOOKBRIDGE_AUDIT_MAX_BYTES",
    "CLAUDE_CODE_SESSION_ID",
    // Makes a failure of the user's own hooks block.
    "CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG",
    // Where prompt hooks send their model calls.
    "HOOKBRIDGE_MODEL_PROVIDER",
    "HOOKBRIDGE_PROMPT_MODEL",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    // Where llm hooks keep their cache.
    "HOOKBRIDGE_CACHE_DIR",
    "XDG_CACHE_HOME",
    // Where spans are exported (OpenTelemetry).
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
    "OTEL_TRACES_EXPORTER",
    "OTEL_SDK_DISABLED",
    "OTEL_SERVICE_NAME",
    "OTEL_RESOURCE_ATTRIBUTES",
    "TRACEPARENT",
];

/// What a finished (or killed) process left behind.
#[derive(Debug)]
pub struct Finished {
    /// Exit code; `None` if killed by a signal (including our watchdog).
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
    /// The watchdog had to kill it.
    pub timed_out: bool,
}

impl Finished {
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Run `cmd` with `stdin` as its input, killing it after `deadline`.
///
/// stdin is written from its own thread (a child that never reads it must not block us), stdout and
/// stderr are drained from their own threads (a chatty child must not block on a full pipe).
pub fn run_with_deadline(mut cmd: Command, stdin: &[u8], deadline: Duration) -> Finished {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let mut child_stdin = child.stdin.take().expect("piped stdin");
    let input = stdin.to_vec();
    let writer = thread::spawn(move || {
        // A child that exits without reading its input gives EPIPE here: not an error for us.
        let _ = child_stdin.write_all(&input);
    });
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let out_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        buf
    });
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        buf
    });
    let mut timed_out = false;
    let status = loop {
        match child.try_wait().expect("waiting for a child") {
            Some(status) => break status,
            None if started.elapsed() > deadline => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().expect("reaping a killed child");
            }
            None => thread::sleep(Duration::from_millis(5)),
        }
    };
    let elapsed = started.elapsed();
    let _ = writer.join();
    // If the child left a descendant holding its pipes, the readers would wait for it; bound that.
    let stdout = join_bounded(out_reader, Duration::from_secs(30));
    let stderr = join_bounded(err_reader, Duration::from_secs(30));
    Finished {
        code: status.code(),
        stdout,
        stderr,
        elapsed,
        timed_out,
    }
}

fn join_bounded(handle: thread::JoinHandle<Vec<u8>>, limit: Duration) -> Vec<u8> {
    let start = Instant::now();
    while !handle.is_finished() {
        if start.elapsed() > limit {
            panic!("a descendant of the child kept its output pipe open for more than {limit:?}");
        }
        thread::sleep(Duration::from_millis(5));
    }
    handle.join().expect("reader thread")
}

/// The path of `program` on PATH; the test fails with a clear message if it is missing.
pub fn require_program(program: &str) -> PathBuf {
    find_program(program).unwrap_or_else(|| {
        panic!("this test needs `{program}` on PATH, and it is missing: install it (the test does not skip)")
    })
}

pub fn find_program(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// True if a process with this pid exists and is not a zombie.
pub fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state is the first field after the parenthesised command name.
        Ok(stat) => match stat.rfind(')') {
            Some(i) => !matches!(stat[i + 1..].trim_start().chars().next(), Some('Z') | Some('X')),
            None => true,
        },
        Err(_) => false,
    }
}

/// Wait until `cond` holds or `limit` passes; returns whether it held.
pub fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if cond() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// A `hookbridge run` command for `event` in `project`, with HOME and the diagnostics log pointed at
/// test-owned paths, every variable of [`HOSTILE_ENV`] removed, and Python hooks spawned
/// (`HOOKBRIDGE_WARM=0`): with warm runs on by default, a hook would otherwise run warm or spawned
/// depending on whether some earlier test left a service up. A test of warm runs sets the variable
/// itself; `scripts/test.sh`'s warm stage is the pass with every eligible hook warm.
pub fn hookbridge_run(event: &str, project: &Path, home: &Path, log: &Path, format: &str) -> Command {
    // The project's hooks run only once trusted: trusted here as a user would trust them, as
    // they are now (tests of trust itself start `run` without this helper).
    trust_project(project, home);
    untrusted_run(event, project, home, log, format)
}

/// `hookbridge trust --yes PROJECT` with `home` as HOME: the project's hooks as they are now may
/// run. Fails the test if trusting fails.
pub fn trust_project(project: &Path, home: &Path) {
    let mut cmd = Command::new(hookbridge_bin());
    cmd.args(["trust", "--yes"]).arg(project);
    for var in HOSTILE_ENV {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home).env_remove("XDG_STATE_HOME");
    let out = cmd.output().expect("hookbridge trust runs");
    assert!(
        out.status.success(),
        "hookbridge trust --yes {} failed: {}{}",
        project.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// [`hookbridge_run`] without trusting the project first: its hooks are held unless trusted.
pub fn untrusted_run(event: &str, project: &Path, home: &Path, log: &Path, format: &str) -> Command {
    let mut cmd = hookbridge_in(project, home, log);
    cmd.args(["run", "--event", event, "--project-dir"])
        .arg(project)
        .args(["--format", format])
        .env("HOOKBRIDGE_WARM", "0");
    cmd
}

/// `hookbridge` (no arguments yet) in `dir`, with `home` as HOME, its diagnostics log at `log`,
/// and every variable of [`HOSTILE_ENV`] removed; trusts nothing.
pub fn hookbridge_in(dir: &Path, home: &Path, log: &Path) -> Command {
    let mut cmd = Command::new(hookbridge_bin());
    for var in HOSTILE_ENV {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home).env("HOOKBRIDGE_LOG", log).current_dir(dir);
    cmd
}

pub mod claude_view;
pub mod fake_model;
pub mod golden;
pub mod normalize;
pub mod project;
