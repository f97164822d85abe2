//! The warm Python services: one long-lived interpreter per *interpreter identity* (its path and
//! every variable that changes how it starts), listening on a Unix socket in a directory only this
//! user can enter, started on first use and gone after a while without work.
//!
//! The shaping decision: **the service is the interpreter itself** (`warm_server.py`, run with
//! `-c`), not a Rust daemon relaying to it. A hook run is then one connection to the right socket:
//! nothing else to keep alive, nothing to relay, and a service that is missing or broken costs a
//! failed `connect(2)`. The socket's name is a hash of the identity and of the server's source, so
//! a different interpreter, environment or hookbridge version never reaches the wrong service.

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The server, run by the interpreter with `-c`.
pub(super) const SERVER_SOURCE: &str = include_str!("warm_server.py");
/// What the service's command line says (`ps` shows it): the source itself comes on stdin.
const SERVER_BOOTSTRAP: &str = "import sys; exec(sys.stdin.read())  # hookbridge warm Python service";
// Written at once into the pipe (64 KiB on Linux) without waiting for the interpreter to read.
const _: () = assert!(SERVER_SOURCE.len() < 60 * 1024);

/// How long a service waits without work before it exits, unless `HOOKBRIDGE_WARM_IDLE` (seconds)
/// says otherwise.
pub const IDLE_EXIT: Duration = Duration::from_secs(15 * 60);

fn idle_exit() -> Duration {
    std::env::var("HOOKBRIDGE_WARM_IDLE")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or(IDLE_EXIT, Duration::from_secs)
}

/// How many services of this user may run at once, unless `HOOKBRIDGE_WARM_MAX_SERVICES` says
/// otherwise. Each interpreter identity has its own service, and `HOME` is part of the identity: a
/// host that gives every session a home of its own (a CI job, a test suite, a sandbox per task)
/// would otherwise leave one idle interpreter per home until each one's idle time runs out.
pub const MAX_SERVICES: usize = 8;

fn max_services() -> usize {
    std::env::var("HOOKBRIDGE_WARM_MAX_SERVICES")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(MAX_SERVICES)
}

/// Variables besides `PYTHON*` that change what a fresh interpreter looks like before it reads a
/// script: the locale (file system and stdio encodings), the home directory (user site-packages),
/// the dynamic loader's search path and preloads (a shared libpython, an interposed library).
const STARTUP_VARIABLES: &[&str] = &[
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "HOME",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
];

/// Which interpreter, started how: hooks with the same identity may share a service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterpreterIdentity {
    pub interpreter: PathBuf,
    /// `(name, value)` of every start-up variable set, sorted.
    pub startup_env: Vec<(OsString, OsString)>,
}

impl InterpreterIdentity {
    pub fn of(interpreter: &Path, env: &[(OsString, OsString)]) -> InterpreterIdentity {
        let mut startup_env: Vec<(OsString, OsString)> = env
            .iter()
            .filter(|(name, _)| {
                name.as_bytes().starts_with(b"PYTHON")
                    || STARTUP_VARIABLES.iter().any(|v| name.as_bytes() == v.as_bytes())
            })
            .cloned()
            .collect();
        startup_env.sort();
        InterpreterIdentity {
            interpreter: interpreter.to_path_buf(),
            startup_env,
        }
    }

    /// The socket's file name: a hash of the identity and of the server's source.
    fn socket_name(&self) -> String {
        let mut hash = Fnv1a::new();
        hash.write(SERVER_SOURCE.as_bytes());
        hash.write(self.interpreter.as_os_str().as_bytes());
        for (name, value) in &self.startup_env {
            hash.write(b"\0");
            hash.write(name.as_bytes());
            hash.write(b"=");
            hash.write(value.as_bytes());
        }
        format!("python-{:016x}.sock", hash.0)
    }
}

/// FNV-1a, 64 bits: a stable name for an identity (the standard library's hasher is not stable
/// across builds, and the CLI and the Python module must find the same service).
pub(super) struct Fnv1a(u64);

impl Fnv1a {
    pub(super) fn new() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
    pub(super) fn finish(&self) -> u64 {
        self.0
    }
    pub(super) fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The directory of this user's services: `$XDG_RUNTIME_DIR/hookbridge` when the runtime
/// directory is this user's own and closed to others (after `su` without `-` it is still the other
/// user's, who could then answer our runs), else `/tmp/hookbridge-<uid>`; created mode 0700, and
/// refused unless it is a real directory of ours closed to others.
pub fn service_dir() -> io::Result<PathBuf> {
    let uid = nix::unistd::getuid().as_raw();
    let ours_and_closed = |meta: &std::fs::Metadata| {
        meta.is_dir() && meta.uid() == uid && meta.permissions().mode() & 0o077 == 0
    };
    // A runtime directory that is named but missing (a session without logind), or not ours, is
    // passed over.
    // Only a usable folder (`hookbridge_core::env_paths`): `XDG_RUNTIME_DIR=/proc/self/cwd/.run`
    // from a project's settings would put the services' sockets in the repository, where a
    // sandboxed hook may write, and listen in their place.
    let usable = |d: &PathBuf| hookbridge_core::env_paths::usable_env_folder(d);
    let dir = match std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|d| usable(d) && std::fs::symlink_metadata(d).is_ok_and(|m| ours_and_closed(&m)))
    {
        Some(runtime) => runtime.join("hookbridge"),
        None => Some(std::env::temp_dir())
            .filter(usable)
            .unwrap_or_else(|| PathBuf::from("/tmp"))
            .join(format!("hookbridge-{uid}")),
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(&dir)?;
    if !ours_and_closed(&meta) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a directory of this user closed to others",
                dir.display()
            ),
        ));
    }
    Ok(dir)
}

/// A connection to the service listening on `socket`, made through the socket's directory held
/// open and checked again (it must still be ours and closed to others), never through a path
/// re-resolved after the check; and accepted only when the process at the other end is this
/// user's (`SO_PEERCRED`). Non-blocking: a service whose backlog is full refuses at once
/// (`EAGAIN`) instead of making the hook wait.
pub(super) fn connect(socket: &Path) -> io::Result<std::fs::File> {
    connect_expecting(socket, nix::unistd::getuid().as_raw())
}

/// [`connect`], accepting a peer of user `peer_uid` only.
fn connect_expecting(socket: &Path, peer_uid: u32) -> io::Result<std::fs::File> {
    use nix::sys::socket::{self as sock, sockopt, AddressFamily, SockFlag, SockType, UnixAddr};
    use rustix::fs::{Mode, OFlags};
    use std::os::fd::AsRawFd;
    let (Some(dir), Some(name)) = (socket.parent(), socket.file_name()) else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a socket path"));
    };
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let held = rustix::fs::open(dir, flags, Mode::empty())?;
    let meta = rustix::fs::fstat(&held)?;
    let uid = nix::unistd::getuid().as_raw();
    if meta.st_uid != uid || meta.st_mode & 0o077 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a directory of this user closed to others",
                dir.display()
            ),
        ));
    }
    let through_handle = Path::new("/proc/self/fd")
        .join(held.as_raw_fd().to_string())
        .join(name);
    let fd = sock::socket(
        AddressFamily::Unix,
        SockType::Stream,
        SockFlag::SOCK_CLOEXEC | SockFlag::SOCK_NONBLOCK,
        None,
    )?;
    let address = match UnixAddr::new(&through_handle) {
        Ok(address) if Path::new("/proc/self/fd").is_dir() => address,
        // No /proc: the path itself (the directory was checked; the peer is checked below).
        _ => UnixAddr::new(socket)?,
    };
    sock::connect(fd.as_raw_fd(), &address)?;
    let peer = sock::getsockopt(&fd, sockopt::PeerCredentials)?;
    if peer.uid() != peer_uid {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "the process listening on {} belongs to user {}, not to this user",
                socket.display(),
                peer.uid()
            ),
        ));
    }
    // Nor a process with `no_new_privs`, which every sandboxed process has and a service of
    // hookbridge's never does (the service refuses such clients too): a sandboxed hook allowed
    // the network, whose `TMPDIR` is a folder it may write, could listen there for your guards
    // (red-team pass 14). Unknown counts as refused: the hook then spawns.
    if !without_no_new_privs(peer.pid()) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "the process listening on {} runs with no_new_privs (a sandboxed process), not as a service of hookbridge's",
                socket.display()
            ),
        ));
    }
    Ok(std::fs::File::from(fd))
}

/// Whether the process `pid` is known to run without `no_new_privs` (`/proc/<pid>/status`).
fn without_no_new_privs(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|status| {
        status
            .lines()
            .find_map(|line| line.strip_prefix("NoNewPrivs:"))
            .is_some_and(|value| value.trim() == "0")
    })
}

/// Where the service for `identity` listens.
pub fn socket_path(identity: &InterpreterIdentity) -> io::Result<PathBuf> {
    Ok(service_dir()?.join(identity.socket_name()))
}

/// Services being started by this process, reaped when they have detached (the first process
/// exits as soon as it has forked the service), so a long-lived host leaves no zombies.
static STARTING: Mutex<Vec<Child>> = Mutex::new(Vec::new());

/// How long after starting a service another start is not tried: a service that did not come up
/// (an interpreter that cannot run the server, such as Python 2) must not cost every hook run a
/// new interpreter, nor make `always` wait for it each time.
const RESTART_AFTER: Duration = Duration::from_secs(60);

/// The marker of a start in progress (or failed) for `socket`.
fn start_marker(socket: &Path) -> PathBuf {
    let mut name = socket.as_os_str().to_owned();
    name.push(".started");
    PathBuf::from(name)
}

/// Whether a service for `socket` was started less than [`RESTART_AFTER`] ago and has not come
/// up yet (a service removes the marker once it listens).
pub(super) fn started_recently(socket: &Path) -> bool {
    start_age(socket).is_some_and(|age| age < RESTART_AFTER)
}

/// How long ago a service for `socket` was started that has not come up yet.
pub(super) fn start_age(socket: &Path) -> Option<Duration> {
    std::fs::metadata(start_marker(socket))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|at| at.elapsed().ok())
}

/// Starts the service for `identity` in the background. Its environment is the identity's
/// start-up variables and nothing else: a warm child's `/proc/self/environ` is the service's, so
/// the service must hold nothing one run may not see of another (every run it serves has these
/// same values; each run's own environment is applied in its child). Returns at once; the
/// service answers on `socket` once it is up.
pub fn start_service(identity: &InterpreterIdentity, socket: &Path) -> io::Result<()> {
    if let Some(dir) = socket.parent() {
        make_room(dir, socket, max_services());
    }
    std::fs::write(start_marker(socket), b"")?;
    let mut starting = STARTING.lock().unwrap_or_else(|e| e.into_inner());
    starting.retain_mut(|child| matches!(child.try_wait(), Ok(None)));
    let mut command = Command::new(&identity.interpreter);
    command
        .arg("-c")
        .arg(SERVER_BOOTSTRAP)
        .arg(socket)
        .arg(idle_exit().as_secs().to_string())
        .arg(&identity.interpreter)
        .env_clear()
        .envs(
            identity
                .startup_env
                .iter()
                .map(|(k, v)| (k.as_os_str(), v.as_os_str())),
        )
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    let mut child = command.spawn()?;
    // The source fits in a pipe's buffer: this write does not wait for the interpreter. An
    // interpreter that dies at once is seen as a service that did not start.
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(SERVER_SOURCE.as_bytes());
    }
    starting.push(child);
    Ok(())
}

/// Before a service is started beside the others in `dir`: when `limit` or more others answer, the
/// ones started first are asked to stop (each takes no more runs and exits once the hooks it runs
/// have ended), so that with the new one there are at most `limit`. Sockets nobody answers on are
/// removed. Returns the sockets asked to stop.
fn make_room(dir: &Path, new: &Path, limit: usize) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut running: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.extension() != Some(OsStr::new("sock")) || path == new {
            continue;
        }
        match connect(&path) {
            Ok(_) => {}
            // Nobody listens: what a killed service left.
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                let _ = std::fs::remove_file(&path);
                continue;
            }
            // Busy (a full backlog) is running; anything else is not ours to judge.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(_) => continue,
        }
        // A socket's time is when its service started listening.
        let started = std::fs::symlink_metadata(&path)
            .and_then(|m| m.modified())
            .unwrap_or(std::time::UNIX_EPOCH);
        running.push((started, path));
    }
    running.sort();
    let excess = (running.len() + 1).saturating_sub(limit);
    let mut asked = Vec::new();
    for (_, path) in running.into_iter().take(excess) {
        let _ = request(&path, r#"{"op":"stop"}"#);
        asked.push(path);
    }
    asked
}

/// Makes sure the service for `interpreter`, started with this process's environment, is up:
/// starts it if nobody answers, and waits up to `limit`. Returns its socket.
pub fn ensure_service(interpreter: &Path, limit: Duration) -> io::Result<PathBuf> {
    let env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    let identity = InterpreterIdentity::of(interpreter, &env);
    let socket = socket_path(&identity)?;
    if std::os::unix::net::UnixStream::connect(&socket).is_ok() {
        return Ok(socket);
    }
    let _ = std::fs::remove_file(start_marker(&socket));
    start_service(&identity, &socket)?;
    if wait_until_listening(&socket, limit) {
        Ok(socket)
    } else {
        Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "{} did not start a warm service within {limit:?}",
                interpreter.display()
            ),
        ))
    }
}

/// Waits up to `limit` for a service to answer on `socket`.
pub fn wait_until_listening(socket: &Path, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    loop {
        if std::os::unix::net::UnixStream::connect(socket).is_ok() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// One running service, as `hookbridge serve --status` shows it.
#[derive(Debug, Clone)]
pub struct ServiceStatus {
    pub socket: PathBuf,
    /// The service's answer to a ping (`pid`, `runs`, `python`, `version`, `children`), or why
    /// there was none.
    pub answer: Result<serde_json::Value, String>,
}

/// Every service socket of this user, each pinged.
pub fn services() -> io::Result<Vec<ServiceStatus>> {
    let dir = service_dir()?;
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.extension() != Some(OsStr::new("sock")) {
            continue;
        }
        let answer = request(&path, r#"{"op":"ping"}"#);
        found.push(ServiceStatus { socket: path, answer });
    }
    found.sort_by(|a, b| a.socket.cmp(&b.socket));
    Ok(found)
}

/// A service asked to stop: it takes no more runs at once, and exits once the hooks it is running
/// have ended (each hook's own timeout bounds that) and their ends are reported.
#[derive(Debug, Clone, Copy)]
pub struct Stopping {
    pub pid: i32,
    /// Hooks it was running when asked.
    pub running: u64,
}

impl Stopping {
    /// Whether the service's process has exited.
    pub fn gone(&self) -> bool {
        // kill(pid, 0): ESRCH once it is gone (a zombie of our own is not: services are
        // detached, so they are never our children).
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.pid), None).is_err()
    }

    /// Waits until the service has exited, up to `limit`; whether it has.
    pub fn wait(&self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        while !self.gone() {
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }
}

/// Asks every service to stop; returns the sockets that were asked, with the outcome.
pub fn stop_services() -> io::Result<Vec<(PathBuf, Result<Stopping, String>)>> {
    let mut stopped = Vec::new();
    for service in services()? {
        let outcome = match service.answer {
            Ok(_) => request(&service.socket, r#"{"op":"stop"}"#).and_then(|answer| {
                let number = |key: &str| answer.get(key).and_then(serde_json::Value::as_i64);
                match (number("pid"), number("children")) {
                    (Some(pid), Some(running)) => Ok(Stopping {
                        pid: pid as i32,
                        running: running.max(0) as u64,
                    }),
                    _ => Err(format!("unexpected answer to stop: {answer}")),
                }
            }),
            Err(why) => {
                // Nobody answers: a stale socket left by a service that was killed.
                let _ = std::fs::remove_file(&service.socket);
                let _ = std::fs::remove_file(start_marker(&service.socket));
                Err(format!("not running ({why}); removed its socket"))
            }
        };
        stopped.push((service.socket, outcome));
    }
    Ok(stopped)
}

fn request(socket: &Path, line: &str) -> Result<serde_json::Value, String> {
    use std::io::{BufRead, Write};
    let stream = connect(socket).map_err(|e| e.to_string())?;
    let mut stream = std::os::unix::net::UnixStream::from(std::os::fd::OwnedFd::from(stream));
    stream.set_nonblocking(false).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .map_err(|e| e.to_string())?;
    stream
        .write_all(format!("{line}\n").as_bytes())
        .map_err(|e| e.to_string())?;
    let mut answer = String::new();
    io::BufReader::new(stream)
        .read_line(&mut answer)
        .map_err(|e| e.to_string())?;
    serde_json::from_str(&answer).map_err(|_| format!("unreadable answer {answer:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of this test's own, mode `mode`.
    fn dir_with_mode(mode: u32) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode)).unwrap();
        dir
    }

    /// A stand-in service listening on `socket`: it answers each request line with `{"pid": 1,
    /// "children": 0}` and records it.
    fn fake_service(socket: &Path) -> std::sync::Arc<Mutex<Vec<String>>> {
        use std::io::BufRead;
        let listener = std::os::unix::net::UnixListener::bind(socket).unwrap();
        let seen = std::sync::Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let mut line = String::new();
                if io::BufReader::new(&stream).read_line(&mut line).is_ok() && !line.is_empty() {
                    record.lock().unwrap().push(line.trim().to_string());
                    let _ = stream.write_all(b"{\"pid\": 1, \"children\": 0}\n");
                }
            }
        });
        seen
    }

    #[test]
    fn starting_a_service_past_the_limit_stops_the_ones_started_first() {
        let dir = dir_with_mode(0o700);
        let at = |secs: i64| rustix::fs::Timespec {
            tv_sec: 1_700_000_000 + secs,
            tv_nsec: 0,
        };
        let mut services = Vec::new();
        // Started in this order: c (oldest), a, b; d is gone (its socket left behind).
        for (name, started) in [("a", 20), ("b", 30), ("c", 10)] {
            let socket = dir.path().join(format!("python-{name}.sock"));
            let seen = fake_service(&socket);
            let times = rustix::fs::Timestamps {
                last_access: at(started),
                last_modification: at(started),
            };
            rustix::fs::utimensat(
                rustix::fs::CWD,
                &socket,
                &times,
                rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
            )
            .unwrap();
            services.push((name, seen));
        }
        let stale = dir.path().join("python-d.sock");
        drop(std::os::unix::net::UnixListener::bind(&stale).unwrap());
        let new = dir.path().join("python-new.sock");

        // Room for the new one beside all three: nobody is asked to stop.
        assert!(make_room(dir.path(), &new, 4).is_empty());
        assert!(!stale.exists(), "a socket nobody answers on is removed");
        // A limit of 2: the new one and the one started last (b) stay; c, then a, are asked.
        let asked = make_room(dir.path(), &new, 2);
        assert_eq!(
            asked,
            vec![dir.path().join("python-c.sock"), dir.path().join("python-a.sock")]
        );
        let stops = |name: &str| {
            let seen = &services.iter().find(|(n, _)| *n == name).unwrap().1;
            seen.lock().unwrap().iter().filter(|l| l.contains("stop")).count()
        };
        assert_eq!((stops("a"), stops("b"), stops("c")), (1, 0, 1));
    }

    #[test]
    fn a_runtime_directory_open_to_others_or_not_ours_is_passed_over() {
        let uid = nix::unistd::getuid().as_raw();
        let fallback = std::env::temp_dir().join(format!("hookbridge-{uid}"));
        let closed = dir_with_mode(0o700);
        std::env::set_var("XDG_RUNTIME_DIR", closed.path());
        assert_eq!(service_dir().unwrap(), closed.path().join("hookbridge"));
        let open = dir_with_mode(0o755);
        std::env::set_var("XDG_RUNTIME_DIR", open.path());
        assert_eq!(
            service_dir().unwrap(),
            fallback,
            "a runtime directory others can enter"
        );
        // Another user's (root's, after `su` without `-`): as root, one made another's; else root's.
        let theirs = dir_with_mode(0o700);
        let foreign = if uid == 0 {
            std::os::unix::fs::chown(theirs.path(), Some(65534), Some(65534)).unwrap();
            theirs.path().to_path_buf()
        } else {
            PathBuf::from("/root")
        };
        assert_ne!(std::fs::metadata(&foreign).unwrap().uid(), uid);
        std::env::set_var("XDG_RUNTIME_DIR", &foreign);
        assert_eq!(
            service_dir().unwrap(),
            fallback,
            "another user's runtime directory"
        );
    }

    /// Red-team pass 14: a sandboxed process (which has `no_new_privs`) listening where your
    /// warm services listen is refused, as the service refuses it as a client.
    #[test]
    fn a_listener_with_no_new_privs_is_refused() {
        use std::os::unix::process::CommandExt;
        let dir = dir_with_mode(0o700);
        let socket = dir.path().join("python-test.sock");
        let mut command = std::process::Command::new("/usr/bin/python3");
        command.args([
            "-c",
            "import socket, sys, time\ns = socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen()\ntime.sleep(30)",
        ]);
        command.arg(&socket);
        // SAFETY: prctl is async-signal-safe; it only sets a flag of the child about to exec.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !socket.exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let refused = connect(&socket);
        let _ = child.kill();
        let _ = child.wait();
        let err = refused.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert!(err.to_string().contains("no_new_privs"), "{err}");
    }

    #[test]
    fn a_connection_is_refused_unless_the_listener_is_this_user_and_its_directory_closed() {
        let dir = dir_with_mode(0o700);
        let socket = dir.path().join("python-test.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let uid = nix::unistd::getuid().as_raw();
        assert!(connect_expecting(&socket, uid).is_ok());
        let err = connect_expecting(&socket, uid + 1).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert!(
            err.to_string().contains(&format!("belongs to user {uid}")),
            "{err}"
        );
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = connect(&socket).unwrap_err();
        assert!(err.to_string().contains("closed to others"), "{err}");
    }
}
