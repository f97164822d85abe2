//! Starting one hook process: `posix_spawn(3)` with three Unix socketpairs for its standard
//! streams, a process group of its own, the hook's working directory, and the hook's variables laid
//! over the inherited environment; and collecting its exit status by pid.
//!
//! Why socketpairs and not pipes: Claude Code (Node, libuv) gives a hook's stdin, stdout and stderr
//! as `socketpair(AF_UNIX, SOCK_STREAM)` ends, and hooks can tell (`[ -p /dev/stdin ]` is false for a
//! socket; shared conformance case 87 prints the kinds). A hook must take the same branch under
//! hookbridge as under Claude Code, so hookbridge hands out the same kind of file.
//!
//! The shaping decision: **the inherited environment is passed on by pointer, never copied.** The
//! standard library's `Command` copies the whole environment (owned strings, a sorted map, then a
//! fresh C array) as soon as one variable is added: about a hundred allocations per spawn, which
//! measured 5–6 % of the whole cost of starting a `true` hook (docs/benchmarks.md). Here the
//! child's `envp` is the parent's `environ` pointers, minus the names the hook sets, plus the
//! hook's own `NAME=value` strings. Reading `environ` is what `getenv(3)` does; like the standard
//! library (whose lock another language's `setenv` does not take), this assumes that no thread
//! rewrites the environment while a hook is being started.
//!
//! The rest follows the standard library's `posix_spawn` path, so hooks see what they saw before:
//! the child starts with an empty signal mask and SIGPIPE at its default action; every descriptor
//! of ours is close-on-exec; a program name without a slash is looked up in `PATH` (the hook's own
//! `PATH` when it sets one); an exec failure comes back as this function's error. One difference:
//! a working directory never forces a fork + exec, because `posix_spawn_file_actions_addchdir_np`
//! is linked directly rather than looked up at run time (which fails in a static build).
//!
//! A sandboxed hook's child is started by [`spawn_confined`] instead: the same steps, taken by our
//! own `clone(CLONE_VM | CLONE_VFORK)` child rather than glibc's, with one more before its exec —
//! entering the sandbox (`sandbox.rs`), which only the task that is to be restricted can do.

use std::borrow::Cow;
use std::ffi::{CStr, CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::ptr;

use nix::fcntl::{fcntl, FcntlArg, OFlag};

use super::sandbox::Confinement;
#[cfg(target_os = "linux")]
use super::sandbox::EnterFailure;
use super::{ProcessSpec, Program};

/// A started child: its pid (unreaped until [`Pid::wait`] or [`Pid::try_wait`] returns a status)
/// and our ends of its stdin, stdout and stderr, which are non-blocking (the child's are not).
#[derive(Debug)]
pub(super) struct SpawnedChild {
    pub(super) pid: Pid,
    pub(super) stdin: File,
    pub(super) stdout: File,
    pub(super) stderr: File,
}

/// The pid of a child we started and have not reaped yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pid(libc::pid_t);

impl Pid {
    /// The pid of a warm service's child: not ours to wait for (the service reaps it and reports
    /// its status), but the leader of the hook's process group all the same.
    pub(super) fn of_warm_child(raw: libc::pid_t) -> Pid {
        Pid(raw)
    }

    pub(super) fn raw(self) -> libc::pid_t {
        self.0
    }

    /// The exit status if the child has ended; never blocks.
    pub(super) fn try_wait(self) -> io::Result<Option<ExitStatus>> {
        self.wait_with(libc::WNOHANG)
    }

    /// Blocks until the child has ended.
    pub(super) fn wait(self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.wait_with(0)? {
                return Ok(status);
            }
        }
    }

    fn wait_with(self, flags: libc::c_int) -> io::Result<Option<ExitStatus>> {
        let mut status: libc::c_int = 0;
        loop {
            // SAFETY: waitpid writes one int through a pointer to a live local.
            let reaped = unsafe { libc::waitpid(self.0, &mut status, flags) };
            match reaped {
                0 => return Ok(None),
                -1 => {
                    let err = io::Error::last_os_error();
                    if err.kind() != io::ErrorKind::Interrupted {
                        return Err(err);
                    }
                }
                _ => return Ok(Some(ExitStatus::from_raw(status))),
            }
        }
    }
}

/// Starts `spec`'s program. The child leads a new process group whose id is its pid. A sandboxed
/// spec's child enters its sandbox before its exec (see [`spawn_confined`]).
pub(super) fn spawn(spec: &ProcessSpec) -> io::Result<SpawnedChild> {
    match &spec.sandbox {
        None => spawn_with(spec, None),
        Some(plan) => spawn_with(spec, Some(&super::sandbox::confinement(plan)?)),
    }
}

/// [`spawn`], the child entering `confinement` (if any) before its exec.
fn spawn_with(spec: &ProcessSpec, confinement: Option<&Confinement>) -> io::Result<SpawnedChild> {
    let argv = Argv::of(&spec.program)?;
    let env = Environment::with_overlay(&spec.env, spec.sandbox.as_deref())?;
    let program = resolve(argv.program(), &spec.env, spec.cwd.as_deref())?;
    let cwd = spec.cwd.as_deref().map(c_string_of_path).transpose()?;

    // Our ends stay with us; the child's ends are dup2'ed onto 0, 1 and 2. Every one of them is
    // close-on-exec, and the child's are kept off 0–2 so that no dup2 can overwrite another.
    let (stdin_child, stdin_ours) = stream_pair()?;
    let (stdout_ours, stdout_child) = stream_pair()?;
    let (stderr_ours, stderr_child) = stream_pair()?;
    for ours in [&stdin_ours, &stdout_ours, &stderr_ours] {
        // A new socket has no other status flag to keep, so no F_GETFL first.
        fcntl(ours, FcntlArg::F_SETFL(OFlag::O_NONBLOCK))?;
    }
    let (stdin_child, stdout_child, stderr_child) = (
        above_stdio(stdin_child)?,
        above_stdio(stdout_child)?,
        above_stdio(stderr_child)?,
    );

    #[cfg(not(target_os = "linux"))]
    if let Some(confinement) = confinement {
        match *confinement {}
    }
    #[cfg(target_os = "linux")]
    if let Some(confinement) = confinement {
        let pid = spawn_confined(
            &ChildSetup {
                program: &program,
                argv: &argv.pointers,
                envp: &env.pointers,
                cwd: cwd.as_deref(),
                stdio: [
                    stdin_child.as_raw_fd(),
                    stdout_child.as_raw_fd(),
                    stderr_child.as_raw_fd(),
                ],
            },
            confinement,
        )?;
        return Ok(SpawnedChild {
            pid: Pid(pid),
            stdin: File::from(stdin_ours),
            stdout: File::from(stdout_ours),
            stderr: File::from(stderr_ours),
        });
    }

    let mut actions = FileActions::new()?;
    if let Some(cwd) = &cwd {
        actions.chdir(cwd)?;
    }
    actions.dup2(&stdin_child, libc::STDIN_FILENO)?;
    actions.dup2(&stdout_child, libc::STDOUT_FILENO)?;
    actions.dup2(&stderr_child, libc::STDERR_FILENO)?;
    // A hook gets its three streams and nothing else, as under Claude Code: descriptors the host
    // left inheritable (a jobserver's, a Python host's sockets) are closed in the child.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    actions.close_from(libc::STDERR_FILENO + 1)?;
    let attributes = Attributes::new_group_default_signals()?;

    let mut pid: libc::pid_t = 0;
    // SAFETY: every pointer is valid for the call: `argv.pointers` and `env.pointers` are
    // NULL-terminated arrays of NUL-terminated strings that outlive it (the inherited ones are
    // `environ`'s own, see the module documentation), and `actions`/`attributes` were initialized.
    // posix_spawn does not write through argv or envp despite the `*mut` in its signature.
    let error = unsafe {
        libc::posix_spawn(
            &mut pid,
            program.as_ptr(),
            actions.as_ptr(),
            attributes.as_ptr(),
            argv.pointers.as_ptr().cast(),
            env.pointers.as_ptr().cast(),
        )
    };
    if error != 0 {
        return Err(io::Error::from_raw_os_error(error));
    }
    Ok(SpawnedChild {
        pid: Pid(pid),
        stdin: File::from(stdin_ours),
        stdout: File::from(stdout_ours),
        stderr: File::from(stderr_ours),
    })
}

/// What a child started by [`spawn_confined`] does before its exec, all of it made beforehand: the
/// child may only make system calls.
#[cfg(target_os = "linux")]
struct ChildSetup<'a> {
    program: &'a CStr,
    argv: &'a [*const libc::c_char],
    envp: &'a [*const libc::c_char],
    cwd: Option<&'a CStr>,
    /// Its stdin, stdout and stderr, each above 2 (`above_stdio`).
    stdio: [libc::c_int; 3],
}

/// The stack of a child of [`spawn_confined`] until its exec: system calls only, a few frames.
#[cfg(target_os = "linux")]
const CHILD_STACK: usize = 64 * 1024;

/// Starts a child that enters `confinement` and then execs: `clone(CLONE_VM | CLONE_VFORK)`, as
/// glibc's `posix_spawn` does, with the same steps in the child (a process group of its own,
/// every signal handler back to its default and SIGPIPE too, no blocked signal, the working
/// directory, the three streams, no other descriptor) and one more before the exec: entering the
/// sandbox. The child shares our memory until its exec and this thread waits for that (the
/// `CLONE_VFORK`), so the child makes system calls only, on a stack of its own, and reports a
/// failure through memory before it exits; every signal is blocked meanwhile, so that none runs one
/// of our handlers in the child.
///
/// Why not a thread that enters the sandbox and calls `posix_spawn`, as hookbridge did before:
/// Landlock and seccomp restrict the thread that asks, so that needed a thread per sandboxed hook,
/// and starting it and waiting for it to end cost more than anything else the sandbox adds but the
/// rules themselves (measured: about 150–300 µs to start, 70 µs or more to join, of about 1.1 ms;
/// the commit that made this change has the comparison).
#[cfg(target_os = "linux")]
fn spawn_confined(setup: &ChildSetup<'_>, confinement: &Confinement) -> io::Result<libc::pid_t> {
    use std::sync::atomic::{AtomicU64, Ordering};
    // What stopped the child before its exec: 0 for nothing, else a `ChildFailure`'s code.
    let failed = AtomicU64::new(0);
    let mut stack = vec![0u8; CHILD_STACK];
    let child = Box::new(|| -> isize {
        // SAFETY: the child shares our memory and this thread is suspended until it execs or
        // exits; `confined_child` makes only system calls and reads `setup`, which outlives it.
        let failure = unsafe { confined_child(setup, confinement) };
        failed.store(failure.code(), Ordering::SeqCst);
        // SAFETY: `_exit` ends the child at once, running nothing of ours.
        unsafe { libc::_exit(127) }
    });
    let blocked = SignalsBlocked::all()?;
    // SAFETY: the child runs `child` on `stack` (64 KiB for a few frames of system calls) in our
    // memory while this thread waits (`CLONE_VFORK`); it touches nothing that another thread may be
    // changing meanwhile, and takes no lock.
    let cloned = unsafe {
        nix::sched::clone(
            child,
            &mut stack,
            nix::sched::CloneFlags::CLONE_VM | nix::sched::CloneFlags::CLONE_VFORK,
            Some(libc::SIGCHLD),
        )
    };
    drop(blocked);
    let pid = cloned?.as_raw();
    match ChildFailure::of_code(failed.load(Ordering::SeqCst)) {
        None => Ok(pid),
        Some(failure) => {
            // It has exited: reap it, then say why.
            let _ = Pid(pid).wait();
            Err(failure.into_error())
        }
    }
}

/// Why a child of [`spawn_confined`] did not exec.
#[cfg(target_os = "linux")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChildFailure {
    /// A step `posix_spawn` takes too, or the exec: its `errno`, the error `posix_spawn` returns.
    Spawn(i32),
    /// Entering the sandbox.
    Enter(EnterFailure),
}

#[cfg(target_os = "linux")]
impl ChildFailure {
    /// As one number the child can store without allocating (0 is "none").
    fn code(self) -> u64 {
        let (step, errno) = match self {
            ChildFailure::Spawn(errno) => (1, errno),
            ChildFailure::Enter(EnterFailure::Landlock(errno)) => (2, errno),
            ChildFailure::Enter(EnterFailure::Seccomp(errno)) => (3, errno),
        };
        (step << 32) | u64::from(errno as u32)
    }

    fn of_code(code: u64) -> Option<ChildFailure> {
        let errno = code as u32 as i32;
        match code >> 32 {
            0 => None,
            1 => Some(ChildFailure::Spawn(errno)),
            2 => Some(ChildFailure::Enter(EnterFailure::Landlock(errno))),
            _ => Some(ChildFailure::Enter(EnterFailure::Seccomp(errno))),
        }
    }

    fn into_error(self) -> io::Error {
        match self {
            ChildFailure::Spawn(errno) => io::Error::from_raw_os_error(errno),
            ChildFailure::Enter(failure) => failure.into_error(),
        }
    }
}

/// The child of [`spawn_confined`] up to its exec; returns only if a step failed.
///
/// # Safety
/// Only in a child of `clone(CLONE_VM | CLONE_VFORK)` made with every signal blocked, whose parent
/// keeps `setup` and `confinement` alive until the child execs or exits.
#[cfg(target_os = "linux")]
unsafe fn confined_child(setup: &ChildSetup<'_>, confinement: &Confinement) -> ChildFailure {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINVAL);
    // Every handler back to its default (ours would run in the engine's memory), and SIGPIPE,
    // which this process ignores, too; other ignored signals stay ignored, as across any exec.
    // 32 and 33 are glibc's own, which sigaction refuses.
    for signal in 1..=libc::SIGRTMAX() {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(signal, ptr::null(), &mut old) != 0 {
            continue;
        }
        let ignored = old.sa_sigaction == libc::SIG_IGN && signal != libc::SIGPIPE;
        if old.sa_sigaction != libc::SIG_DFL && !ignored {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &default, ptr::null_mut());
        }
    }
    if libc::setpgid(0, 0) != 0 {
        return ChildFailure::Spawn(errno());
    }
    if let Some(cwd) = setup.cwd {
        if libc::chdir(cwd.as_ptr()) != 0 {
            return ChildFailure::Spawn(errno());
        }
    }
    for (fd, onto) in
        setup
            .stdio
            .into_iter()
            .zip([libc::STDIN_FILENO, libc::STDOUT_FILENO, libc::STDERR_FILENO])
    {
        if libc::dup2(fd, onto) < 0 {
            return ChildFailure::Spawn(errno());
        }
    }
    if let Err(failure) = confinement.enter() {
        return ChildFailure::Enter(failure);
    }
    // A hook gets its three streams and nothing else (the layers' descriptors are closed here too).
    if libc::syscall(
        libc::SYS_close_range,
        3 as libc::c_uint,
        libc::c_uint::MAX,
        0 as libc::c_uint,
    ) != 0
    {
        return ChildFailure::Spawn(errno());
    }
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, ptr::null_mut());
    libc::execve(setup.program.as_ptr(), setup.argv.as_ptr(), setup.envp.as_ptr());
    ChildFailure::Spawn(errno())
}

/// Every signal blocked on this thread until dropped, when the mask it had is back.
#[cfg(target_os = "linux")]
struct SignalsBlocked(libc::sigset_t);

#[cfg(target_os = "linux")]
impl SignalsBlocked {
    fn all() -> io::Result<SignalsBlocked> {
        // SAFETY: both sets are initialized (sigfillset, and pthread_sigmask's old set) before use.
        unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            let mut previous: libc::sigset_t = std::mem::zeroed();
            check(libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut previous))?;
            Ok(SignalsBlocked(previous))
        }
    }
}

#[cfg(target_os = "linux")]
impl Drop for SignalsBlocked {
    fn drop(&mut self) {
        // SAFETY: the mask saved by `all`.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.0, ptr::null_mut()) };
    }
}

/// The program to exec and its NULL-terminated argument vector.
struct Argv {
    strings: Vec<CString>,
    pointers: Vec<*const libc::c_char>,
}

impl Argv {
    fn of(program: &Program) -> io::Result<Argv> {
        let strings: Vec<CString> = match program {
            Program::Shell { command } => vec![
                CString::from(c"/bin/sh"),
                CString::from(c"-c"),
                c_string(command.as_bytes(), "the command")?,
            ],
            Program::Exec { program, args } => std::iter::once(program)
                .chain(args)
                .map(|arg| c_string(arg.as_bytes(), "the command or one of its arguments"))
                .collect::<io::Result<_>>()?,
        };
        let pointers = strings
            .iter()
            .map(|s| s.as_ptr())
            .chain(std::iter::once(ptr::null()))
            .collect();
        Ok(Argv { strings, pointers })
    }

    /// The program as written (argument 0).
    fn program(&self) -> &CStr {
        &self.strings[0]
    }
}

/// The child's environment: the hook's variables (the last value of a name wins), then every
/// inherited variable the hook does not set, by pointer.
struct Environment {
    /// The hook's own entries, which `pointers` points into.
    _own: Vec<CString>,
    pointers: Vec<*const libc::c_char>,
}

impl Environment {
    fn with_overlay(
        overlay: &[(std::ffi::OsString, std::ffi::OsString)],
        sandbox: Option<&super::SandboxPlan>,
    ) -> io::Result<Environment> {
        let mut own: Vec<CString> = Vec::with_capacity(overlay.len());
        for (name, value) in overlay {
            let name = name.as_bytes();
            let mut entry = Vec::with_capacity(name.len() + 1 + value.len() + 1);
            entry.extend_from_slice(name);
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            let entry = c_string(&entry, "a hook environment variable")?;
            match own.iter_mut().find(|e| name_of(e.to_bytes()) == name) {
                Some(earlier) => *earlier = entry,
                None => own.push(entry),
            }
        }
        let names: Vec<&[u8]> = own.iter().map(|e| name_of(e.to_bytes())).collect();
        let inherited = inherited_environment();
        let mut pointers = Vec::with_capacity(own.len() + inherited.len() + 1);
        pointers.extend(own.iter().map(|e| e.as_ptr()));
        for &entry in &inherited {
            // SAFETY: `environ` entries are NUL-terminated strings (see the module documentation);
            // the name is read up to its `=` (or the NUL), never past the end.
            let name = unsafe { inherited_name(entry) };
            if !names.contains(&name) && !sandbox.is_some_and(|plan| plan.withholds(name)) {
                pointers.push(entry);
            }
        }
        pointers.push(ptr::null());
        Ok(Environment { _own: own, pointers })
    }
}

/// The name part of a `NAME=value` entry (all of it when there is no `=`).
fn name_of(entry: &[u8]) -> &[u8] {
    match entry.iter().position(|&b| b == b'=') {
        Some(at) => &entry[..at],
        None => entry,
    }
}

/// The name part of an inherited `NAME=value` entry, read only as far as the `=`.
///
/// # Safety
/// `entry` must point to a NUL-terminated string that lives as long as the returned slice is used.
unsafe fn inherited_name<'a>(entry: *const libc::c_char) -> &'a [u8] {
    let mut len = 0;
    while !matches!(*entry.add(len) as u8, b'=' | 0) {
        len += 1;
    }
    std::slice::from_raw_parts(entry.cast::<u8>(), len)
}

/// The pointers of the process environment, copied (the strings are not).
fn inherited_environment() -> Vec<*const libc::c_char> {
    #[cfg(not(target_vendor = "apple"))]
    extern "C" {
        static environ: *const *const libc::c_char;
    }
    let mut entries = Vec::with_capacity(64);
    // SAFETY: `environ` is NULL or a NULL-terminated array of string pointers; it is read the way
    // getenv(3) reads it (see the module documentation for the one assumption).
    unsafe {
        #[cfg(not(target_vendor = "apple"))]
        let mut at = environ;
        // In a shared library on Apple platforms `environ` is reached through this call.
        #[cfg(target_vendor = "apple")]
        let mut at = *libc::_NSGetEnviron() as *const *const libc::c_char;
        if !at.is_null() {
            while !(*at).is_null() {
                entries.push(*at);
                at = at.add(1);
            }
        }
    }
    entries
}

/// The path to hand to `posix_spawn`: the program itself when it names a path (it has a slash),
/// else the first executable file of that name in `PATH` — the hook's `PATH` if its variables set
/// one, else ours (and `/bin:/usr/bin` when there is none), searched as `execvp` searches it in the
/// child: a relative entry (an empty one means `.`) is relative to the hook's working directory.
fn resolve<'a>(
    program: &'a CStr,
    overlay: &[(std::ffi::OsString, std::ffi::OsString)],
    cwd: Option<&Path>,
) -> io::Result<Cow<'a, CStr>> {
    let name = program.to_bytes();
    if name.is_empty() {
        return Err(io::Error::from_raw_os_error(libc::ENOENT));
    }
    if name.contains(&b'/') {
        return Ok(Cow::Borrowed(program));
    }
    let search = match overlay.iter().rev().find(|(n, _)| n == "PATH") {
        Some((_, path)) => path.clone(),
        None => std::env::var_os("PATH").unwrap_or_else(|| "/bin:/usr/bin".into()),
    };
    let mut denied = false;
    for dir in search.as_bytes().split(|&b| b == b':') {
        let dir = Path::new(OsStr::from_bytes(if dir.is_empty() { b"." } else { dir }));
        let candidate = dir.join(OsStr::from_bytes(name));
        // Checked where the child will look; handed over as written, since the child resolves it
        // after its chdir.
        let seen_from_child = match cwd {
            Some(cwd) if candidate.is_relative() => cwd.join(&candidate),
            _ => candidate.clone(),
        };
        let Ok(seen) = c_string_of_path(&seen_from_child) else {
            continue;
        };
        // SAFETY: access(2) reads a NUL-terminated path.
        if unsafe { libc::access(seen.as_ptr(), libc::X_OK) } == 0 {
            if std::fs::metadata(&seen_from_child).is_ok_and(|m| m.is_file()) {
                return c_string_of_path(&candidate).map(Cow::Owned);
            }
        } else if io::Error::last_os_error().raw_os_error() == Some(libc::EACCES) {
            denied = true;
        }
    }
    // As execvp: EACCES if some candidate existed but could not be run, else ENOENT.
    Err(io::Error::from_raw_os_error(if denied {
        libc::EACCES
    } else {
        libc::ENOENT
    }))
}

fn c_string(bytes: &[u8], what: &str) -> io::Result<CString> {
    CString::new(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, format!("{what} contains a NUL byte")))
}

fn c_string_of_path(path: &Path) -> io::Result<CString> {
    c_string(path.as_os_str().as_bytes(), "the working directory")
}

/// A close-on-exec `socketpair(AF_UNIX, SOCK_STREAM)`, what Node gives a child for a piped stdio
/// stream. Either end can read and write; by convention here the first is read from and the second
/// written to. Closing the writer gives the reader EOF, as with a pipe; writing after the reader has
/// gone fails with `EPIPE` (and SIGPIPE, which this process ignores), as with a pipe.
pub(super) fn stream_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [-1 as libc::c_int; 2];
    // SAFETY: socketpair writes two descriptors into a live two-element array.
    let done = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and nothing else owns them.
    Ok(unsafe {
        (
            std::os::fd::FromRawFd::from_raw_fd(fds[0]),
            std::os::fd::FromRawFd::from_raw_fd(fds[1]),
        )
    })
}

/// `fd`, moved to a descriptor number of 3 or more if it is one of 0–2 (possible when the host
/// runs with a standard stream closed).
fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > libc::STDERR_FILENO {
        return Ok(fd);
    }
    Ok(fcntl(&fd, FcntlArg::F_DUPFD_CLOEXEC(libc::STDERR_FILENO + 1))
        // SAFETY: F_DUPFD_CLOEXEC returned a new descriptor that nothing else owns.
        .map(|raw| unsafe { std::os::fd::FromRawFd::from_raw_fd(raw) })?)
}

/// `posix_spawn_file_actions_t`, destroyed on drop.
struct FileActions(libc::posix_spawn_file_actions_t);

impl FileActions {
    fn new() -> io::Result<FileActions> {
        // SAFETY: zeroed storage, initialized by the call before any other use; it is wrapped (and
        // so destroyed on drop) only once initialized. It holds no pointer to itself: it may move.
        let mut raw = unsafe { std::mem::zeroed() };
        check(unsafe { libc::posix_spawn_file_actions_init(&mut raw) })?;
        Ok(FileActions(raw))
    }

    fn chdir(&mut self, dir: &CStr) -> io::Result<()> {
        // SAFETY: initialized actions; glibc and musl copy the path.
        check(unsafe { libc::posix_spawn_file_actions_addchdir_np(&mut self.0, dir.as_ptr()) })
    }

    fn dup2(&mut self, fd: &OwnedFd, onto: libc::c_int) -> io::Result<()> {
        // SAFETY: initialized actions; `fd` stays open until the spawn has happened.
        check(unsafe { libc::posix_spawn_file_actions_adddup2(&mut self.0, fd.as_raw_fd(), onto) })
    }

    /// Closes every descriptor from `first` up in the child (glibc 2.34+, `close_range(2)`).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn close_from(&mut self, first: libc::c_int) -> io::Result<()> {
        // SAFETY: initialized actions.
        check(unsafe { libc::posix_spawn_file_actions_addclosefrom_np(&mut self.0, first) })
    }

    fn as_ptr(&self) -> *const libc::posix_spawn_file_actions_t {
        &self.0
    }
}

impl Drop for FileActions {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, destroyed once.
        unsafe { libc::posix_spawn_file_actions_destroy(&mut self.0) };
    }
}

/// `posix_spawnattr_t`, destroyed on drop.
struct Attributes(libc::posix_spawnattr_t);

impl Attributes {
    /// A new process group led by the child; no blocked signals; SIGPIPE (which Rust programs and
    /// Python ignore) back at its default action.
    fn new_group_default_signals() -> io::Result<Attributes> {
        // SAFETY: zeroed storage, initialized by the call before any other use and wrapped (and so
        // destroyed on drop) only once initialized; the sigset_t values are initialized by
        // sigemptyset before they are read.
        unsafe {
            let mut raw = std::mem::zeroed();
            check(libc::posix_spawnattr_init(&mut raw))?;
            let mut attributes = Attributes(raw);
            let mut empty: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut empty);
            let mut defaults: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut defaults);
            libc::sigaddset(&mut defaults, libc::SIGPIPE);
            check(libc::posix_spawnattr_setpgroup(&mut attributes.0, 0))?;
            check(libc::posix_spawnattr_setsigmask(&mut attributes.0, &empty))?;
            check(libc::posix_spawnattr_setsigdefault(&mut attributes.0, &defaults))?;
            let flags =
                libc::POSIX_SPAWN_SETPGROUP | libc::POSIX_SPAWN_SETSIGMASK | libc::POSIX_SPAWN_SETSIGDEF;
            check(libc::posix_spawnattr_setflags(
                &mut attributes.0,
                flags as libc::c_short,
            ))?;
            Ok(attributes)
        }
    }

    fn as_ptr(&self) -> *const libc::posix_spawnattr_t {
        &self.0
    }
}

impl Drop for Attributes {
    fn drop(&mut self) {
        // SAFETY: initialized in `new_group_default_signals`, destroyed once.
        unsafe { libc::posix_spawnattr_destroy(&mut self.0) };
    }
}

/// posix_spawn functions return the error number instead of setting errno.
fn check(code: libc::c_int) -> io::Result<()> {
    match code {
        0 => Ok(()),
        code => Err(io::Error::from_raw_os_error(code)),
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A confined child's failure crosses to the parent as one number: every step and errno
    /// comes back as it was, and nothing reads as a failure.
    #[test]
    fn a_childs_failure_comes_back_as_it_was() {
        assert_eq!(ChildFailure::of_code(0), None);
        for failure in [
            ChildFailure::Spawn(libc::ENOENT),
            ChildFailure::Spawn(libc::EACCES),
            ChildFailure::Enter(EnterFailure::Landlock(libc::ENOSYS)),
            ChildFailure::Enter(EnterFailure::Landlock(libc::EPERM)),
            ChildFailure::Enter(EnterFailure::Seccomp(libc::EINVAL)),
        ] {
            assert_ne!(failure.code(), 0, "{failure:?}");
            assert_eq!(ChildFailure::of_code(failure.code()), Some(failure));
        }
        let seccomp = ChildFailure::Enter(EnterFailure::Seccomp(libc::EINVAL)).into_error();
        assert!(seccomp.to_string().contains("seccomp filter"), "{seccomp}");
        let spawn = ChildFailure::Spawn(libc::ENOENT).into_error();
        assert_eq!(spawn.kind(), io::ErrorKind::NotFound);
    }
}
