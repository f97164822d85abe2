//! Warm Python hooks: an unmodified Python hook run by a long-lived interpreter of the same
//! identity, which forks a fresh child per run, instead of by a new interpreter that must start up
//! and import its modules again (35 ms for `/usr/bin/python3` to 190 ms through a pyenv shim on
//! the test machine, on every tool call; a warm run costs 4.5–6 ms there, `scripts/bench-warm.py`).
//! The service forks each child before its request comes and has it copy its shared pages while
//! it waits (`warm_server.py` says how), so no run waits for a fork or takes copy-on-write faults.
//!
//! The shaping decision: **a warm run is supervised exactly as a spawned one, and decides exactly
//! what a spawned one would.** The child gets socketpair ends made here for its stdin, stdout and
//! stderr (passed over the service's socket), runs in a process group of its own — led, as
//! `/bin/sh -c` leads a spawned hook's, by a process of the service's that does nothing else, so
//! that the hook is a member of its group and not its leader (its `os.setsid()` works) — and its
//! end comes back as the raw wait status the service, its parent, reaps: only the hook's own
//! process can end the run, whatever it forks, and `os._exit(n)` is `n`. The supervisor's loop,
//! deadlines, output caps, tree kill and leak detection treat it like any other child. Only the
//! exit notification differs: a spawned child's is its pidfd, a warm child's is the connection to
//! the service. What `/bin/sh -c` would have added between the hook and us is reproduced for dash
//! (`PWD`, a signal death as exit 128 + n with the signal's name); under another `/bin/sh`, hooks
//! spawn.
//!
//! A `hookbridge run` killed outright (SIGKILL: nothing of it runs any more) takes its warm hooks
//! with it: the service watches each run's connection while the hook runs, and at its EOF sends
//! the hook's group SIGTERM, then SIGKILL half a second later — from the hook's first moment,
//! where a spawned hook has a guardian only once its run has lasted 100 ms.
//!
//! Where a warm run's answer cannot be known, the hook is spawned, never guessed: a service that
//! declines or cannot be reached, a child that cannot be told to run, and a service lost while the
//! hook runs (killed, crashed: the hook's group is killed and the hook is run again, spawned, with
//! the time it has left — a hook with side effects may then have made some twice). A service
//! asked to stop (`hookbridge serve --stop`, an upgrade) takes no more runs and exits only once
//! the hooks it runs have ended and their ends are reported.
//!
//! A service answers for one installation, and checks it is still that one each time it takes a
//! run (one `stat(2)` per path, 10 to 20 paths: about 50 µs on the test machine, 1 % of a warm
//! run): the interpreter's file (an upgrade replaces it), `pyvenv.cfg`, every directory of its
//! search path and every site directory (a package installed, a `.pth` file added, a user site
//! created after it started), and each `.pth` file.
//! When any changed, it declines the run (which spawns) and stops, and the next run starts a new
//! service. The environment variables that change how an interpreter starts (`PYTHON*`, the
//! locale, `HOME`, the dynamic loader's) are the service's identity: a run with other values goes
//! to another service. A service is started with those variables only, so the environment a warm
//! child can read of its process (`/proc/self/environ`) is one every run of that service shares,
//! never an earlier run's; each run's own environment is set in its child. A child holds no
//! descriptor a spawned hook would not (the connection is closed before the script runs).
//!
//! A service is reached only in a directory of this user's closed to others (`XDG_RUNTIME_DIR`
//! only when it is), through the directory held open and checked, and only when the process that
//! answers is this user's (`SO_PEERCRED`): another user who can write to the runtime directory
//! named in the environment (after `su` without `-`) cannot answer a run. The service, in turn,
//! serves only a peer of this user's without `no_new_privs` (`warm_server.py`): a sandboxed hook
//! allowed every socket cannot have a run forked outside its sandbox.
//!
//! What is warm is decided by proof (see `eligibility`), and when anything is in doubt — the
//! command, the interpreter, a service that is missing, starting, busy or broken — the hook is
//! spawned as before and [`WarmUse`] says why. `HOOKBRIDGE_WARM` switches it: on by default (the
//! first run of an interpreter starts its service and spawns), `0` off, `always` on and waiting
//! for a new service to be up (how the test suite forces every eligible hook warm).

mod eligibility;
mod pyenv;
mod service;

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, ErrorKind};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::socket::{self as sock, ControlMessage, MsgFlags};

pub use eligibility::{python_run, PythonRun, Target};
pub use service::{
    ensure_service, service_dir, services, stop_services, InterpreterIdentity, ServiceStatus, Stopping,
    IDLE_EXIT,
};

use super::ProcessSpec;

/// `HOOKBRIDGE_WARM`: whether eligible Python hooks run warm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarmMode {
    Off,
    /// Warm when the service is up; the first run of an interpreter starts it and spawns.
    On,
    /// As `On`, but a run waits (up to [`WarmMode::START_WAIT`]) for a service it started.
    Always,
}

impl WarmMode {
    pub const VARIABLE: &'static str = "HOOKBRIDGE_WARM";
    pub const START_WAIT: Duration = Duration::from_secs(5);

    /// The mode `HOOKBRIDGE_WARM` asks for: `1`/`on`/`true`, `always`; anything else is off.
    pub fn from_env() -> WarmMode {
        match std::env::var(Self::VARIABLE).as_deref().map(str::trim) {
            Ok("0" | "off" | "false" | "no") => WarmMode::Off,
            Ok("always") => WarmMode::Always,
            _ => WarmMode::On,
        }
    }
}

/// Whether one run went warm, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WarmUse {
    /// Not tried: off, or not provably a plain Python run.
    NotTried(NotWarm),
    /// Run by a warm service.
    Ran,
    /// Eligible, but spawned while its service starts (the first runs of an interpreter): the
    /// expected way in, not a problem.
    Starting(String),
    /// Eligible, but the service declined it, by design (a file beside the script shadows a
    /// module it preloaded, a resource limit it cannot give, a Python before 3.9): not a problem.
    Declined(String),
    /// Eligible, but spawned: why (the service could not start, or is unreachable or broken).
    Spawned(String),
}

impl WarmUse {
    pub fn ran(&self) -> bool {
        matches!(self, WarmUse::Ran)
    }
}

/// How an eligible hook would run warm.
#[derive(Debug, Clone)]
pub struct WarmPlan {
    /// The command read as a Python run; a pyenv shim already seen through.
    pub run: PythonRun,
    /// Which service runs it.
    pub identity: InterpreterIdentity,
    /// The whole environment the interpreter would see.
    env: Vec<(OsString, OsString)>,
}

/// What a run would do, without running anything: the answer `list`/`test` show. A pyenv shim
/// is seen through only by its cached answer (running it to ask could run a repository's file).
pub fn plan_without_running(spec: &ProcessSpec, mode: WarmMode) -> Result<WarmPlan, NotWarm> {
    plan_for(spec, mode, false)
}

/// How a hook about to run would run: seeing through a pyenv shim may run it once (see `pyenv`),
/// with the hook's own environment, as the hook itself is about to.
pub fn plan(spec: &ProcessSpec, mode: WarmMode) -> Result<WarmPlan, NotWarm> {
    plan_for(spec, mode, true)
}

fn plan_for(spec: &ProcessSpec, mode: WarmMode, may_run_shim: bool) -> Result<WarmPlan, NotWarm> {
    if mode == WarmMode::Off {
        return Err(NotWarm::SwitchedOff);
    }
    if spec.sandbox.is_some() {
        return Err(NotWarm::Sandboxed);
    }
    if !spec.warm {
        return Err(NotWarm::OptedOut);
    }
    if !cfg!(target_os = "linux") {
        return Err(NotWarm::Unsupported);
    }
    let cwd = match &spec.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir().map_err(|e| NotWarm::Script(format!("no working directory: {e}")))?,
    };
    if !cwd.is_dir() {
        return Err(NotWarm::Script(format!(
            "working directory {} is not a directory",
            cwd.display()
        )));
    }
    // Read as the hook's shell would see it, without copying the environment: most hooks are
    // not Python runs, and for those this is all the work there is.
    let lookup = |name: &str| {
        spec.env
            .iter()
            .rev()
            .find(|(n, _)| n.as_encoded_bytes() == name.as_bytes())
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var_os(name))
    };
    let mut run = python_run(&spec.program, &lookup, &cwd)?;
    // Only now, for a Python run: which shell `/bin/sh` is costs a `readlink` per link on the way
    // (once per process), which most hooks, not Python runs, need not pay.
    if system_shell() != Some(SystemShell::Dash) {
        return Err(NotWarm::UnknownShell);
    }
    let mut env = full_environment(&spec.env);
    if let Some(root) = run.pyenv_root.take() {
        let dir = service::service_dir()
            .map_err(|e| NotWarm::Interpreter(format!("no service directory for the pyenv answer: {e}")))?;
        let seen = pyenv::resolve(&run.interpreter, &root, &cwd, &env, &dir, may_run_shim)?;
        // The shim execs the interpreter by its full path: that is its argv[0].
        run.interpreter_as_written = seen.executable.to_str().ok_or(NotWarm::NotUtf8)?.to_string();
        run.interpreter = seen.executable;
        env = seen.env;
    }
    set_pwd_as_the_shell_does(&mut env, &cwd);
    let identity = InterpreterIdentity::of(&run.interpreter, &env);
    Ok(WarmPlan { run, identity, env })
}

/// dash exports `PWD` to the command: the inherited value when it names the working directory,
/// else the physical path of the working directory.
fn set_pwd_as_the_shell_does(env: &mut Vec<(OsString, OsString)>, cwd: &Path) {
    use std::os::unix::fs::MetadataExt;
    let same_dir = |a: &Path, b: &Path| match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    };
    let inherited = env
        .iter()
        .rev()
        .find(|(n, _)| n == "PWD")
        .map(|(_, v)| PathBuf::from(v));
    let keep = inherited.is_some_and(|pwd| pwd.is_absolute() && same_dir(&pwd, cwd));
    if keep {
        return;
    }
    let physical = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    env.retain(|(n, _)| n != "PWD");
    env.push(("PWD".into(), physical.into_os_string()));
}

/// The environment a spawned hook would get: ours, with the hook's variables laid over it.
fn full_environment(overlay: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(name, _)| !overlay.iter().any(|(n, _)| n == name))
        .collect();
    for (name, value) in overlay {
        env.retain(|(n, _)| n != name);
        env.push((name.clone(), value.clone()));
    }
    env
}

/// What `/bin/sh -c 'python3 hook.py'` does between the hook and us, which a warm run (started
/// without a shell) must reproduce. Only dash's part is known and reproduced: it exports `PWD`,
/// waits for the command, and reports a signal death as exit `128 + signal` with the signal's
/// name on stderr. bash (which execs the command and sets `SHLVL` and `_`) is recognised but not
/// reproduced yet, so under it hooks spawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SystemShell {
    Dash,
    Bash,
}

fn system_shell() -> Option<SystemShell> {
    static SHELL: std::sync::OnceLock<Option<SystemShell>> = std::sync::OnceLock::new();
    *SHELL.get_or_init(|| {
        let real = std::fs::canonicalize("/bin/sh").ok()?;
        match real.file_name()?.to_str()? {
            "dash" => Some(SystemShell::Dash),
            "bash" => Some(SystemShell::Bash),
            _ => None,
        }
    })
}

/// A warm child's wait status as the hook's `/bin/sh` would have reported it, and the line the
/// shell would have printed on stderr (dash: `Terminated`, `Segmentation fault (core dumped)`,
/// nothing for SIGINT and SIGPIPE).
pub(super) fn as_the_shell_reports(status: ExitStatus) -> (ExitStatus, Option<String>) {
    let Some(signal) = status.signal() else {
        return (status, None);
    };
    if system_shell() != Some(SystemShell::Dash) {
        return (status, None);
    }
    let code = 128 + signal;
    let line = (signal != libc::SIGINT && signal != libc::SIGPIPE).then(|| {
        // SAFETY: strsignal returns a pointer to a NUL-terminated string valid until the next
        // call on this thread; it is copied at once.
        let name = unsafe { std::ffi::CStr::from_ptr(libc::strsignal(signal)) };
        let core = if status.core_dumped() {
            " (core dumped)"
        } else {
            ""
        };
        format!("{}{core}\n", name.to_string_lossy())
    });
    (ExitStatus::from_raw((code & 0xff) << 8), line)
}

/// A child started by a warm service, and how its end is learned.
#[derive(Debug)]
pub(super) struct WarmChild {
    pid: i32,
    /// Its process group, led (as `/bin/sh -c` leads a spawned hook's) by a process of the
    /// service's that does nothing else: the hook is a member of its group, not its leader.
    pgid: i32,
    /// The connection to the service: `{"pid"}` and `{"exit"}` from the child, `{"status"}` from
    /// the service.
    /// `None` once it reached EOF.
    control: Option<File>,
    /// The child's pidfd: its end when the service is gone before reporting it.
    pidfd: Option<OwnedFd>,
    unread: Vec<u8>,
}

/// A started warm child and our ends of its standard streams (non-blocking).
pub(super) struct WarmStart {
    pub(super) child: WarmChild,
    pub(super) stdin: File,
    pub(super) stdout: File,
    pub(super) stderr: File,
}

/// How long a service may take to fork the child and say its pid.
const FORK_ANSWER_LIMIT: Duration = Duration::from_secs(2);

/// A connection to the service for `identity`, started when nobody answers. `On` does not wait
/// for a service it starts; `Always` does.
fn reach_service(identity: &InterpreterIdentity, mode: WarmMode) -> Result<File, WarmUse> {
    let socket =
        service::socket_path(identity).map_err(|e| WarmUse::Spawned(format!("no service directory: {e}")))?;
    let unreachable = |e: io::Error| WarmUse::Spawned(format!("warm service unreachable: {e}"));
    match service::connect(&socket) {
        Ok(control) => return Ok(control),
        Err(e) if !matches!(e.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused) => {
            return Err(unreachable(e))
        }
        Err(_) => {}
    }
    let interpreter = identity.interpreter.display();
    let starting = || WarmUse::Starting(format!("the warm service for {interpreter} is starting"));
    if !service::started_recently(&socket) {
        service::start_service(identity, &socket)
            .map_err(|e| WarmUse::Spawned(format!("could not start {interpreter}: {e}")))?;
    } else if mode != WarmMode::Always {
        // Started moments ago (by this run or another), or it could not start: a start is tried
        // again only after a while, so a broken interpreter costs no more than a connect.
        if service::start_age(&socket).is_some_and(|age| age < WarmMode::START_WAIT) {
            return Err(starting());
        }
        return Err(WarmUse::Spawned(format!(
            "the warm service for {interpreter} could not start (try `hookbridge serve --python {interpreter}`)"
        )));
    }
    if mode != WarmMode::Always {
        return Err(starting());
    }
    if !service::wait_until_listening(&socket, WarmMode::START_WAIT) {
        return Err(WarmUse::Spawned(format!(
            "the warm service for {interpreter} did not start within {:?}",
            WarmMode::START_WAIT
        )));
    }
    service::connect(&socket).map_err(unreachable)
}

/// Starts `spec` in a warm service when it is eligible and the service is up; otherwise says why
/// not, and the caller spawns it.
pub(super) fn start(spec: &ProcessSpec, mode: WarmMode, more_follow: bool) -> Result<WarmStart, WarmUse> {
    let WarmPlan { run, identity, env } = plan(spec, mode).map_err(WarmUse::NotTried)?;
    let control = reach_service(&identity, mode)?;
    let refused =
        |what: &str, e: &dyn std::fmt::Display| WarmUse::Spawned(format!("warm service: {what}: {e}"));
    let cwd = match &spec.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir().map_err(|e| refused("working directory", &e))?,
    };
    let request = request_line(&env, &run, &cwd, more_follow).ok_or(WarmUse::NotTried(NotWarm::NotUtf8))?;

    let (stdin_child, stdin_ours) = super::spawn::stream_pair().map_err(|e| refused("socketpair", &e))?;
    let (stdout_ours, stdout_child) = super::spawn::stream_pair().map_err(|e| refused("socketpair", &e))?;
    let (stderr_ours, stderr_child) = super::spawn::stream_pair().map_err(|e| refused("socketpair", &e))?;
    for ours in [&stdin_ours, &stdout_ours, &stderr_ours] {
        fcntl(ours, FcntlArg::F_SETFL(OFlag::O_NONBLOCK)).map_err(|e| refused("socket flags", &e))?;
    }
    send_request(&control, &request, [&stdin_child, &stdout_child, &stderr_child])
        .map_err(|e| refused("sending the run", &e))?;
    drop((stdin_child, stdout_child, stderr_child));

    let mut child = WarmChild {
        pid: 0,
        pgid: 0,
        control: Some(control),
        pidfd: None,
        unread: Vec::new(),
    };
    let (pid, pgid) = match child.read_pid(Instant::now() + FORK_ANSWER_LIMIT) {
        Ok(Ok(ids)) => ids,
        Ok(Err(why)) => return Err(WarmUse::Declined(why)),
        Err(e) => return Err(refused("no answer", &e)),
    };
    child.pid = pid;
    child.pgid = pgid;
    child.pidfd = pidfd_of(pid);
    tally(&run);
    // The child waits for `go` (see `WarmChild::go`), sent once the payload is in its stdin.
    Ok(WarmStart {
        child,
        stdin: File::from(stdin_ours),
        stdout: File::from(stdout_ours),
        stderr: File::from(stderr_ours),
    })
}

/// `HOOKBRIDGE_WARM_TALLY`, when set, names a file to which every run that goes warm appends one
/// line (the interpreter): a count that outlives the services, which a test suite reads to know
/// that a part of it really ran hooks warm. Looked up only once a run has gone warm, and only by
/// debug builds: a variable a project's agent settings can set must not make a release build
/// append to a file it names.
pub const TALLY_VARIABLE: &str = "HOOKBRIDGE_WARM_TALLY";

fn tally(run: &PythonRun) {
    use std::io::Write;
    if !cfg!(debug_assertions) {
        return;
    }
    let Some(path) = std::env::var_os(TALLY_VARIABLE).filter(|p| !p.is_empty()) else {
        return;
    };
    let mut line = run.interpreter.as_os_str().as_encoded_bytes().to_vec();
    line.push(b'\n');
    // One append of one short line: runs in parallel processes do not interleave.
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(&line));
}

/// The run, as the service reads it.
fn request_line(
    env: &[(OsString, OsString)],
    run: &PythonRun,
    cwd: &Path,
    more_follow: bool,
) -> Option<Vec<u8>> {
    let env: serde_json::Map<String, serde_json::Value> = env
        .iter()
        .map(|(k, v)| {
            Some((
                k.to_str()?.to_string(),
                serde_json::Value::String(v.to_str()?.to_string()),
            ))
        })
        .collect::<Option<_>>()?;
    // sys.argv as the script or module starts; sys.path[0] (the script's directory with symlinks
    // resolved, or for `-m` the working directory as getcwd(3) gives it).
    let (argv, orig_argv, file, module, path0) = match &run.target {
        Target::Script { as_written, path } => {
            let path0 = std::fs::canonicalize(path)
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf))
                .unwrap_or_else(|| {
                    path.parent()
                        .map(Path::to_path_buf)
                        .unwrap_or_else(|| PathBuf::from("/"))
                });
            let argv: Vec<String> = std::iter::once(as_written.clone())
                .chain(run.args.iter().cloned())
                .collect();
            let orig_argv: Vec<String> = std::iter::once(run.interpreter_as_written.clone())
                .chain(argv.iter().cloned())
                .collect();
            (argv, orig_argv, Some(path.to_str()?), None, path0)
        }
        Target::Module(name) => {
            // While the module is found, argv[0] is "-m" (runpy then sets it to the file).
            let argv: Vec<String> = std::iter::once("-m".to_string())
                .chain(run.args.iter().cloned())
                .collect();
            let orig_argv: Vec<String> = [run.interpreter_as_written.clone(), "-m".to_string(), name.clone()]
                .into_iter()
                .chain(run.args.iter().cloned())
                .collect();
            let path0 = std::fs::canonicalize(cwd).ok()?;
            (argv, orig_argv, None, Some(name.as_str()), path0)
        }
    };
    // SAFETY: umask(2) cannot fail; it is set straight back.
    let umask = unsafe {
        let mask = libc::umask(0o022);
        libc::umask(mask);
        mask
    };
    let request = serde_json::json!({
        "argv": argv,
        "orig_argv": orig_argv,
        "file": file,
        "module": module,
        "path0": path0.to_str()?,
        "env": env,
        "cwd": cwd.to_str()?,
        "umask": umask,
        "rlimits": resource_limits(),
        "more": more_follow,
    });
    let mut line = serde_json::to_vec(&request).ok()?;
    line.push(b'\n');
    Some(line)
}

/// This process's resource limits, `[resource, soft, hard]` with -1 for no limit (as Python's
/// `resource` module spells them): a spawned hook inherits them, so a warm child takes them on.
fn resource_limits() -> Vec<[i64; 3]> {
    let as_number = |limit: libc::rlim_t| {
        if limit == libc::RLIM_INFINITY {
            -1
        } else {
            i64::try_from(limit).unwrap_or(-1)
        }
    };
    // Their type is the C library's (glibc's `__rlimit_resource_t`, musl's `int`): inferred.
    let resources = [
        libc::RLIMIT_CPU,
        libc::RLIMIT_FSIZE,
        libc::RLIMIT_DATA,
        libc::RLIMIT_STACK,
        libc::RLIMIT_CORE,
        libc::RLIMIT_RSS,
        libc::RLIMIT_NPROC,
        libc::RLIMIT_NOFILE,
        libc::RLIMIT_MEMLOCK,
        libc::RLIMIT_AS,
        libc::RLIMIT_LOCKS,
        libc::RLIMIT_SIGPENDING,
        libc::RLIMIT_MSGQUEUE,
        libc::RLIMIT_NICE,
        libc::RLIMIT_RTPRIO,
        libc::RLIMIT_RTTIME,
    ];
    resources
        .into_iter()
        .filter_map(|resource| {
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: getrlimit(2) writes only the rlimit it is given.
            let got = unsafe { libc::getrlimit(resource, &mut limit) };
            (got == 0).then(|| {
                [
                    i64::from(resource),
                    as_number(limit.rlim_cur),
                    as_number(limit.rlim_max),
                ]
            })
        })
        .collect()
}

/// Sends the request line with the child's three stream ends attached to its first byte.
fn send_request(control: &File, line: &[u8], fds: [&OwnedFd; 3]) -> io::Result<()> {
    let raw = [fds[0].as_raw_fd(), fds[1].as_raw_fd(), fds[2].as_raw_fd()];
    let rights = [ControlMessage::ScmRights(&raw)];
    let mut sent = sock::sendmsg::<()>(
        control.as_raw_fd(),
        &[io::IoSlice::new(line)],
        &rights,
        MsgFlags::MSG_NOSIGNAL,
        None,
    )?;
    // The rest, if the socket took only part (a very large environment).
    let until = Instant::now() + FORK_ANSWER_LIMIT;
    while sent < line.len() {
        match sock::send(control.as_raw_fd(), &line[sent..], MsgFlags::MSG_NOSIGNAL) {
            Ok(n) => sent += n,
            Err(nix::errno::Errno::EAGAIN) => {
                wait_ready(control.as_fd(), PollFlags::POLLOUT, until)?;
            }
            Err(nix::errno::Errno::EINTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

fn wait_ready(fd: BorrowedFd<'_>, flags: PollFlags, until: Instant) -> io::Result<()> {
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                ErrorKind::TimedOut,
                "the warm service did not answer in time",
            ));
        }
        let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
        let mut fds = [PollFd::new(fd, flags)];
        match poll(&mut fds, PollTimeout::try_from(ms).unwrap_or(PollTimeout::NONE)) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
            Ok(_) => return Ok(()),
            Err(e) => return Err(e.into()),
        }
    }
}

impl WarmChild {
    pub(super) fn pid(&self) -> i32 {
        self.pid
    }

    pub(super) fn pgid(&self) -> i32 {
        self.pgid
    }

    /// Lets the child run the hook. Sent after the first write of the payload, as a spawned hook
    /// finds its payload waiting (a hook that exits at once must not make the payload "unread").
    /// Until it gets this byte the child waits; if the connection closes first (we gave up, or
    /// are gone) it exits unrun, so a run handed back to spawning never runs twice.
    pub(super) fn go(&self) -> io::Result<()> {
        let control = self.control.as_ref().ok_or_else(|| {
            io::Error::new(ErrorKind::UnexpectedEof, "the warm service closed the connection")
        })?;
        sock::send(control.as_raw_fd(), b"g", MsgFlags::MSG_NOSIGNAL)?;
        Ok(())
    }

    /// What to poll for the child's end: the connection, else the child's pidfd.
    pub(super) fn fd(&self) -> Option<BorrowedFd<'_>> {
        match (&self.control, &self.pidfd) {
            (Some(control), _) => Some(control.as_fd()),
            (None, Some(pidfd)) => Some(pidfd.as_fd()),
            (None, None) => None,
        }
    }

    /// The child's pid and its process group, or why the service declined the run.
    fn read_pid(&mut self, until: Instant) -> io::Result<Result<(i32, i32), String>> {
        loop {
            while let Some(message) = self.next_message() {
                if let Some(why) = message.get("decline").and_then(serde_json::Value::as_str) {
                    return Ok(Err(why.to_string()));
                }
                let number = |key: &str| message.get(key).and_then(serde_json::Value::as_i64);
                if let (Some(pid), Some(pgid)) = (number("pid"), number("pgid")) {
                    if pid > 1 && pgid > 1 {
                        return Ok(Ok((pid as i32, pgid as i32)));
                    }
                }
            }
            let Some(control) = &self.control else {
                return Err(io::Error::new(
                    ErrorKind::UnexpectedEof,
                    "the warm service closed the connection",
                ));
            };
            wait_ready(control.as_fd(), PollFlags::POLLIN, until)?;
            self.read_available();
        }
    }

    /// Reads what the connection holds now; at EOF the connection is closed.
    fn read_available(&mut self) {
        let Some(control) = &self.control else {
            return;
        };
        let mut chunk = [0u8; 512];
        loop {
            match rustix::io::read(control, &mut chunk) {
                Ok(0) => {
                    self.control = None;
                    return;
                }
                Ok(n) => self.unread.extend_from_slice(&chunk[..n]),
                Err(rustix::io::Errno::INTR) => {}
                Err(rustix::io::Errno::AGAIN) => return,
                Err(_) => {
                    self.control = None;
                    return;
                }
            }
        }
    }

    fn next_message(&mut self) -> Option<serde_json::Value> {
        loop {
            let end = self.unread.iter().position(|&b| b == b'\n')?;
            let line: Vec<u8> = self.unread.drain(..=end).collect();
            if let Ok(message) = serde_json::from_slice::<serde_json::Value>(&line) {
                return Some(message);
            }
        }
    }

    /// How the child ended, once known; never blocks. Only the service reports it: it is the
    /// child's parent, so its `{"status"}` is the raw wait status of the hook's own process (what
    /// the hook forks cannot speak for it). `Some(Lost)` when the service is gone without saying:
    /// the run's end cannot be known.
    pub(super) fn try_status(&mut self) -> Option<WarmEnd> {
        self.read_available();
        while let Some(message) = self.next_message() {
            if let Some(status) = message.get("status").and_then(serde_json::Value::as_i64) {
                return Some(WarmEnd::Exited(ExitStatus::from_raw(status as i32)));
            }
        }
        self.control.is_none().then_some(WarmEnd::Lost)
    }

    /// Whether the child's process is still there (after the service was lost: until it ends,
    /// its group is ours to stop).
    pub(super) fn child_alive(&self) -> bool {
        match &self.pidfd {
            Some(pidfd) => {
                let mut fds = [PollFd::new(pidfd.as_fd(), PollFlags::POLLIN)];
                matches!(poll(&mut fds, PollTimeout::ZERO), Ok(0))
            }
            None => false,
        }
    }

    /// Blocks (up to `limit`) until the child's end is known: after a SIGKILL to its group. A
    /// service that is gone, or says nothing in time, leaves it unknown.
    pub(super) fn wait_status(&mut self, limit: Duration) -> WarmEnd {
        let until = Instant::now() + limit;
        loop {
            if let Some(end) = self.try_status() {
                return end;
            }
            let Some(fd) = self.fd() else {
                return WarmEnd::Lost;
            };
            // SAFETY: the descriptor stays open for this call: `self` is not touched meanwhile.
            let fd = unsafe { BorrowedFd::borrow_raw(fd.as_raw_fd()) };
            if wait_ready(fd, PollFlags::POLLIN, until).is_err() {
                return WarmEnd::Lost;
            }
        }
    }
}

/// How a warm child's run ended, as far as can be known.
#[derive(Debug)]
pub(super) enum WarmEnd {
    /// The service reaped it: its wait status.
    Exited(ExitStatus),
    /// The service is gone (killed, crashed) without reporting it: how the hook ended cannot be
    /// known, and the run is made again, spawned.
    Lost,
}

/// A pidfd for any process of ours (not only a child), to learn when it ends.
fn pidfd_of(pid: i32) -> Option<OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = i32::try_from(fd).ok().filter(|&fd| fd >= 0)?;
        // SAFETY: `fd` was just returned by the kernel and is owned by nobody else.
        Some(unsafe { OwnedFd::from_raw_fd(fd) })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}
/// Why a hook runs spawned rather than warm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotWarm {
    /// `HOOKBRIDGE_WARM` is off.
    SwitchedOff,
    /// The hook says `"warm": false`.
    OptedOut,
    /// The hook runs in a sandbox, which a warm service (started with the user's rights) cannot
    /// give it.
    Sandboxed,
    /// Warm runs need Linux (pidfds, `SO_PEERCRED`).
    Unsupported,
    /// `/bin/sh` is not dash, whose part between the hook and us (`PWD`, exit status of a signal
    /// death) warm runs reproduce.
    UnknownShell,
    /// Not a shell command (an exec-form program).
    NotAShellCommand,
    /// The command uses shell syntax beyond a simple command.
    ShellSyntax(char),
    /// The command reads a variable that is unset or would be split or globbed.
    Variable(String),
    /// The command is not `python… script …` or a script with a Python `#!` line.
    NotPython,
    /// An interpreter option before the script (`-u`, `-m`, `-c`…), which changes how it starts.
    InterpreterOption(String),
    /// The interpreter was not found, or is not an executable binary (a shim or wrapper script).
    Interpreter(String),
    /// The script is not a readable regular file.
    Script(String),
    /// The environment or a path is not UTF-8.
    NotUtf8,
}

impl std::fmt::Display for NotWarm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotWarm::SwitchedOff => f.write_str("warm runs are switched off (HOOKBRIDGE_WARM)"),
            NotWarm::OptedOut => f.write_str("the hook says \"warm\": false"),
            NotWarm::Sandboxed => f.write_str("the hook runs sandboxed, so it is spawned"),
            NotWarm::Unsupported => f.write_str("warm runs need Linux"),
            NotWarm::UnknownShell => f.write_str("/bin/sh is not dash, the shell warm runs reproduce"),
            NotWarm::NotAShellCommand => f.write_str("not a shell command"),
            NotWarm::ShellSyntax(c) => write!(f, "the command uses shell syntax (`{c}`)"),
            NotWarm::Variable(name) => write!(
                f,
                "the command reads ${name}, which is unset or would be split by the shell"
            ),
            NotWarm::NotPython => f.write_str("not a Python interpreter running a script"),
            NotWarm::InterpreterOption(option) => {
                write!(f, "the interpreter is given an option ({option})")
            }
            NotWarm::Interpreter(why) => write!(f, "interpreter: {why}"),
            NotWarm::Script(why) => write!(f, "script: {why}"),
            NotWarm::NotUtf8 => f.write_str("a path or environment variable is not UTF-8"),
        }
    }
}
