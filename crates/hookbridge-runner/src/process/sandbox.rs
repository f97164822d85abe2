//! Sandboxed hooks: what a hook's process may touch, enforced by the kernel (Landlock), for a
//! command hook that asks for it (`"sandbox"`, see [`hookbridge_core::config::Sandbox`]).
//!
//! The shaping decision: **the sandbox is made by the engine and entered by the hook's own process
//! between its clone and its exec.** Landlock and seccomp restrict the task that asks and whatever
//! it starts afterwards, so the rules and the filter are built on the engine's thread (building
//! restricts nothing) into a [`Confinement`], and the child that `spawn.rs` clones as
//! `posix_spawn` does (`CLONE_VM | CLONE_VFORK`, same steps) enters it with a few system calls
//! just before its exec: the engine's threads keep their rights, and no thread is started per hook
//! (hookbridge's first design, a thread that restricted itself and then called `posix_spawn`,
//! spent more on starting and joining that thread than on anything else the sandbox adds but the
//! rules themselves).
//!
//! What the sandbox allows (Landlock ABI 6, Linux 6.12 or later):
//! - **no environment variable named as a secret** ([`names_a_secret`](crate::process::names_a_secret): `ANTHROPIC_API_KEY`,
//!   `GITHUB_TOKEN`, `PGPASSWORD`, …) of those the engine inherited, but those the hook's `env`
//!   lists: the files of the credentials below are kept from it, and a key in the environment is
//!   the same key;
//! - **reading and running** everything but the user's credentials ([`CREDENTIALS`] beneath every
//!   home folder the hook could mean: the engine's `HOME`, the account's, the hook's own; by name
//!   and where symlinks really lead; those there when the hook starts). Landlock only allows, so
//!   "everything but" is the folders beside each credential folder, on every level from `/` down:
//!   a folder that holds a credential is itself not listable (its other entries are); nor the
//!   plugins' data folders there (other plugins' state), but for the hook's own plugin's;
//! - **writing** beneath the project, the hook's own temporary folder (its `TMPDIR`, removed after
//!   the run) and the paths the hook declares — never beneath a credential, even where one of
//!   those holds it (a project that is the home folder): write rules grant no reading, and are
//!   split around credentials like the read rules; the character devices `/dev/null`,
//!   `/dev/zero`, `/dev/full` and `/dev/tty`;
//! - **no network** unless `network` allows it: no TCP (neither connecting nor listening), by
//!   Landlock; no socket at all (UDP, Unix-domain sockets on the filesystem, netlink) and no
//!   io_uring, by a seccomp filter (`seccompiler`), for what Landlock cannot say. A list of ports
//!   allows TCP connections to those ports (on any address: Landlock says ports, not addresses),
//!   and the filter then lets only plain TCP sockets be made, no data be sent with a TCP Fast
//!   Open connect (`MSG_FASTOPEN`, which connects without `connect`, past Landlock) and no socket
//!   listen (a `listen` without `bind` takes a port past Landlock);
//! - **no new privileges** (a setuid program runs without them) and **no signals or abstract Unix
//!   sockets** beyond the hook's own sandbox.
//!
//! A kernel that cannot enforce all of it (no Landlock, or an older ABI, no seccomp filters) does
//! not run the hook: the spawn fails, which is a hook error that follows the hook's `onFailure` —
//! never a silent run with fewer restrictions. Only where the user's settings or the managed policy
//! say `"sandboxUnavailable": "runUnsandboxed"` (and neither says `"refuse"`) does the hook run
//! without its sandbox, and then every such run says so ([`unenforceable`] is what asks the kernel).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookbridge_core::config::{DeclaredPath, Network};

#[cfg(target_os = "linux")]
use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathFd, Ruleset, RulesetAttr, Scope, ABI,
};

/// The Landlock ABI every rule here needs (scoped signals and abstract sockets came with 6).
#[cfg(target_os = "linux")]
const ABI_NEEDED: ABI = ABI::V6;

/// Beneath the home folder: what a hook never reads (keys, cloud and registry credentials, and
/// the coding agents' own sign-ins: a hook's output reaches the model, so a token it could read
/// could leave through it even without a network).
pub const CREDENTIALS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".config/gcloud",
    ".config/gh",
    ".config/github-copilot",
    ".local/share/keyrings",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
];

use hookbridge_core::config::PLUGIN_DATA_DIR;

/// Whether an environment variable's name says it holds a secret, so that a sandboxed hook is not
/// given it (the files of [`CREDENTIALS`] hold the same kind of thing): one of its words (split
/// at `_`, in any case) is or ends in `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `PASSPHRASE`,
/// `CREDENTIAL(S)`, `APIKEY` or `COOKIE`, or is `KEY`/`KEYS` (not after `PUBLIC`), `AUTH`,
/// `PAT`, `PWD` (not the name alone, nor `OLDPWD`) or `DSN`. By name only: a value is never
/// looked at, so a secret in a variable named otherwise (`DATABASE_URL` with a password in it)
/// is given. A hook that needs one of them lists it in its sandbox's `env`.
pub fn names_a_secret(name: &[u8]) -> bool {
    const ENDINGS: &[&[u8]] = &[
        b"TOKEN",
        b"SECRET",
        b"PASSWORD",
        b"PASSWD",
        b"PASSPHRASE",
        b"CREDENTIAL",
        b"CREDENTIALS",
        b"APIKEY",
        b"COOKIE",
    ];
    const WORDS: &[&[u8]] = &[b"KEY", b"KEYS", b"AUTH", b"PAT", b"DSN"];
    // Word by word, in any case, without a copy: this runs for every variable of every sandboxed
    // hook's environment.
    let is = |word: &[u8], what: &[u8]| word.eq_ignore_ascii_case(what);
    let ends =
        |word: &[u8], what: &[u8]| word.len() >= what.len() && is(&word[word.len() - what.len()..], what);
    let several = name.contains(&b'_');
    let mut before: Option<&[u8]> = None;
    name.split(|&b| b == b'_').any(|word| {
        let after_public = before.is_some_and(|b| is(b, b"PUBLIC"));
        before = Some(word);
        ENDINGS.iter().any(|ending| ends(word, ending))
            || (WORDS.iter().any(|w| is(word, w)) && !after_public)
            || (is(word, b"PWD") && several)
    })
}

/// How the name of a hook's own temporary folder begins.
const TEMP_PREFIX: &str = "hookbridge-hook-";

/// Character devices a hook may write (output thrown away, a terminal).
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// A sandbox resolved for one run: real paths, and the hook's temporary folder.
#[derive(Debug, Clone)]
pub struct SandboxPlan {
    /// Where the hook may write (folders, with everything beneath, or files).
    pub write: Vec<WriteRoot>,
    /// Never readable or writable, with everything beneath: the credentials beneath every home
    /// folder the hook could mean, both as named and where their symlinks really lead, and the
    /// plugins' data folders there ([`SandboxPlan::plugin_data_roots`]). Empty only when no home
    /// folder is known, and then the hook is not run.
    pub denied: Vec<PathBuf>,
    /// Those of `denied` that hold the plugins' `${CLAUDE_PLUGIN_DATA}` folders
    /// ([`PLUGIN_DATA_DIR`] beneath each home): other plugins' state, which may hold their tokens.
    pub plugin_data_roots: Vec<PathBuf>,
    /// The hook's own plugin's data folder, which it may read and write, though it lies beneath
    /// one of `plugin_data_roots`.
    pub plugin_data: Option<PathBuf>,
    /// Those of `denied` that are there when the plan is made: only these split the read rules
    /// (what is not there cannot be read; the hook cannot make it, for `denied` splits its write
    /// rules whether there or not). Most homes hold few of them, so `/` is split along one or two
    /// paths, not a dozen.
    pub present: Vec<PathBuf>,
    pub network: Network,
    /// The hook's own temporary folder (its `TMPDIR`), removed when the last holder drops it.
    pub temp: Option<Arc<tempfile::TempDir>>,
    /// The read layers of the event this hook runs on, which hooks that read alike share
    /// ([`ReadLayers`]); `None`: the hook makes its own.
    pub shared: Option<Arc<ReadLayers>>,
    /// The variables named as secrets that the hook is given all the same (its `env`).
    pub kept_env: Vec<String>,
}

/// The read layers of one event's sandboxed hooks: a sandbox is two Landlock layers, one for what
/// the hook may read (the walk beside every credential: most of its cost) and one for what it may
/// write, connect to and signal, and hooks whose reading is alike (the same credentials there, the
/// same own plugin data folder) share the first, made by the first of them to start. Landlock's
/// layers intersect, and each right is handled by one layer alone — reading by the first, every
/// other right by the second — but `REFER` (renaming and linking across folders), which Landlock
/// denies in any layer that does not grant it, by both (granted by the first wherever it grants
/// reading), so two layers allow exactly what one ruleset with both sets of rules would. Kept for one dispatch, never longer: a
/// layer allows what was there when it was made, so a folder made later would stay unreadable to
/// every later hook of a long-lived host.
#[derive(Default)]
pub struct ReadLayers {
    #[cfg(target_os = "linux")]
    made: std::sync::Mutex<Vec<(ReadKey, Arc<std::os::fd::OwnedFd>)>>,
}

impl std::fmt::Debug for ReadLayers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadLayers")
    }
}

/// What a read layer is made from: the credentials there (the walk splits along them) and the
/// hook's own plugin data folder (readable beneath the others').
#[cfg(target_os = "linux")]
#[derive(PartialEq, Eq)]
struct ReadKey {
    present: Vec<PathBuf>,
    own_plugin_data: Option<PathBuf>,
}

/// A place the hook may write beneath.
#[derive(Debug, Clone)]
pub struct WriteRoot {
    pub path: PathBuf,
    /// The place itself, opened when its path was checked (a path inside the project): the rule
    /// is made for what was checked, not for whatever the path names by the time the hook starts.
    #[cfg(target_os = "linux")]
    held: Option<Arc<PathFd>>,
}

impl WriteRoot {
    fn path(path: PathBuf) -> WriteRoot {
        WriteRoot {
            path,
            #[cfg(target_os = "linux")]
            held: None,
        }
    }
}

impl SandboxPlan {
    /// The plan for `sandbox` in `project`; `hook_home` is the `HOME` the hook is given, when the
    /// host sets one of its own; `given` are the files the hook protocol gives the hook to write
    /// (its env file, `CLAUDE_ENV_FILE`), named by hookbridge or its host, never by a project;
    /// `plugin_data` is its plugin's data folder, where discovery put it (never a variable's).
    /// Makes the hook's temporary folder (without one, when it cannot be made, the hook has no
    /// `TMPDIR` of its own and can write no temporary file: still sandboxed, never less).
    ///
    /// `~` in a declared path is the user's home (the engine's `HOME`, else the account's). The
    /// credentials are kept from the hook beneath every home it could mean: the engine's, the
    /// account's and the one it is given.
    pub fn new(
        sandbox: &hookbridge_core::config::Sandbox,
        project: Option<&Path>,
        hook_home: Option<&Path>,
        given: &[PathBuf],
        plugin_data: Option<&Path>,
    ) -> SandboxPlan {
        let engine_home = crate::home::user_home();
        let account_home = crate::home::account_home();
        let user_home = engine_home.as_deref().or(account_home);
        let temp = tempfile::Builder::new().prefix(TEMP_PREFIX).tempdir().ok();
        // The project, unless it is your home or holds it (a session opened in the home, or a
        // project folder moved there through the environment): then nothing of it is writable,
        // as granting it would grant your dotfiles and your own hooks.
        let holds_a_home = |p: &Path| {
            p.parent().is_none()
                || [engine_home.as_deref(), account_home]
                    .into_iter()
                    .flatten()
                    .any(|home| home.starts_with(p))
        };
        let mut write: Vec<WriteRoot> = project
            .filter(|p| !holds_a_home(p))
            .map(|p| WriteRoot::path(p.to_path_buf()))
            .into_iter()
            .collect();
        write.extend(temp.as_ref().map(|t| WriteRoot::path(t.path().to_path_buf())));
        write.extend(given.iter().cloned().map(WriteRoot::path));
        for path in &sandbox.write {
            match DeclaredPath::of(path) {
                DeclaredPath::Home(rest) => {
                    write.extend(user_home.map(|home| WriteRoot::path(home.join(rest))))
                }
                DeclaredPath::Absolute(path) => write.push(WriteRoot::path(path.to_path_buf())),
                // The project's: only where it really lies inside the project. A project is often
                // someone else's repository, whose symlink (`out -> ~`) would otherwise lend the
                // hook the right to write wherever it leads.
                DeclaredPath::Project(path) => {
                    write.extend(project.and_then(|project| inside(project, path)))
                }
            }
        }
        let mut homes: Vec<&Path> = Vec::with_capacity(3);
        for home in [engine_home.as_deref(), account_home, hook_home]
            .into_iter()
            .flatten()
        {
            if home.is_absolute() && !homes.contains(&home) {
                homes.push(home);
            }
        }
        // Each home with where it really is, when that differs (resolved once for both lists).
        let homes: Vec<(&Path, Option<PathBuf>)> = homes
            .into_iter()
            .map(|home| (home, home.canonicalize().ok().filter(|real| real != home)))
            .collect();
        let mut kept = beneath_homes(&homes, CREDENTIALS);
        let plugin_data_roots: Vec<PathBuf> = if kept.is_empty() {
            Vec::new()
        } else {
            let roots = beneath_homes(&homes, &[PLUGIN_DATA_DIR]);
            let paths = roots.iter().map(|(path, _)| path.clone()).collect();
            kept.extend(roots);
            paths
        };
        SandboxPlan {
            write,
            present: kept
                .iter()
                .filter(|(_, there)| *there)
                .map(|(path, _)| path.clone())
                .collect(),
            denied: kept.into_iter().map(|(path, _)| path).collect(),
            plugin_data_roots,
            plugin_data: plugin_data.map(|dir| dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())),
            network: sandbox.network.clone(),
            temp: temp.map(Arc::new),
            shared: None,
            kept_env: sandbox.env.clone(),
        }
    }

    /// Whether the hook is not given the inherited variable `name`: one [named as a
    /// secret](crate::process::names_a_secret) that its `env` does not list.
    pub fn withholds(&self, name: &[u8]) -> bool {
        names_a_secret(name) && !self.kept_env.iter().any(|kept| kept.as_bytes() == name)
    }

    /// The plan, sharing its read layer with the other hooks of `layers`' event that read alike.
    pub fn sharing(mut self, layers: &Arc<ReadLayers>) -> SandboxPlan {
        self.shared = Some(layers.clone());
        self
    }

    /// The hook's `TMPDIR`.
    pub fn temp_dir(&self) -> Option<&Path> {
        self.temp.as_deref().map(tempfile::TempDir::path)
    }
}

/// Each of `names` (such as [`CREDENTIALS`]) beneath each of `homes` (each with where it really
/// is, when a symlink leads there), as named and, where a home or a name is (or lies behind) a
/// symlink, where it really is: Landlock's rules follow the real folders, so a credential kept
/// only by its symlinked name would stay readable by its real one. Each with whether it is there
/// now.
fn beneath_homes(homes: &[(&Path, Option<PathBuf>)], names: &[&str]) -> Vec<(PathBuf, bool)> {
    let mut denied: Vec<(PathBuf, bool)> = Vec::with_capacity(homes.len() * names.len() * 2);
    // The same path twice is kept once. Compared as bytes, not component by component (which
    // parses both paths for each of some forty entries, each against the others): a path spelled
    // two ways is only kept twice, which denies nothing less.
    let add = |path: PathBuf, there: bool, denied: &mut Vec<(PathBuf, bool)>| match denied
        .iter_mut()
        .find(|(known, _)| known.as_os_str() == path.as_os_str())
    {
        Some((_, known_there)) => *known_there |= there,
        None => denied.push((path, there)),
    };
    for (home, real_home) in homes {
        for credential in names {
            let named = home.join(credential);
            // Most are not there: one `lstat` says so, and only what is there is resolved.
            let there = named.symlink_metadata().is_ok();
            if there {
                if let Ok(real) = named.canonicalize() {
                    add(real, true, &mut denied);
                }
            }
            if let Some(real_home) = &real_home {
                add(real_home.join(credential), there, &mut denied);
            }
            add(named, there, &mut denied);
        }
    }
    denied
}

/// `project/relative` with every symlink resolved, if it exists and lies inside the project.
#[cfg(not(target_os = "linux"))]
fn inside(project: &Path, relative: &str) -> Option<WriteRoot> {
    let root = project.canonicalize().ok()?;
    let real = project.join(relative).canonicalize().ok()?;
    real.starts_with(&root).then(|| WriteRoot::path(real))
}

/// `project/relative`, opened, if what was opened really lies inside the project (the kernel's
/// own name for the opened folder says where it is, symlinks resolved).
#[cfg(target_os = "linux")]
fn inside(project: &Path, relative: &str) -> Option<WriteRoot> {
    use std::os::fd::{AsFd, AsRawFd};
    let root = project.canonicalize().ok()?;
    let fd = PathFd::new(project.join(relative)).ok()?;
    let real = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd())).ok()?;
    (real.is_absolute() && real.starts_with(&root)).then(|| WriteRoot {
        path: real,
        held: Some(Arc::new(fd)),
    })
}

/// The sandbox's denials in a sandboxed hook's `stderr`, in words (for `hookbridge test`): each
/// line that reports `Permission denied` or `Operation not permitted` for a path (its last) the sandbox
/// keeps from the hook — a credential beneath `home` ("read of ~/.ssh/id_ed25519 denied by the
/// sandbox: …"), or a place outside its write rights that hookbridge itself could read or create
/// ("write to ~/.bashrc denied by the sandbox: …"). A denial the operating system would give
/// anyway (a file hookbridge cannot read either) is left out; a denial with no path is named as
/// possibly the sandbox's.
pub fn explain_denials(
    sandbox: &hookbridge_core::config::Sandbox,
    project: &Path,
    home: Option<&Path>,
    stderr: &str,
) -> Vec<String> {
    let shown = |path: &Path| match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_string(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    };
    let credentials: Vec<PathBuf> = home
        .map(|home| CREDENTIALS.iter().map(|c| home.join(c)).collect())
        .unwrap_or_default();
    let plugin_data = home.map(|home| home.join(PLUGIN_DATA_DIR));
    let mut writable: Vec<PathBuf> = vec![project.to_path_buf()];
    for path in &sandbox.write {
        match DeclaredPath::of(path) {
            DeclaredPath::Home(rest) => writable.extend(home.map(|home| home.join(rest))),
            DeclaredPath::Absolute(path) => writable.push(path.to_path_buf()),
            DeclaredPath::Project(path) => writable.push(project.join(path)),
        }
    }
    let mut said = Vec::new();
    for line in stderr.lines() {
        if !(line.contains("Permission denied") || line.contains("Operation not permitted")) {
            continue;
        }
        // The path the error is about: the last one on the line (`/bin/sh: 1: cannot create
        // /home/me/.bashrc: Permission denied` names the program first).
        let path = line
            .split_whitespace()
            .map(|word| word.trim_matches(|c: char| "'\"`:,;()[]{}".contains(c)))
            .rfind(|word| word.starts_with('/'))
            .map(PathBuf::from);
        let words = match path {
            Some(path) if plugin_data.as_ref().is_some_and(|d| path.starts_with(d)) => format!(
                "{} {} denied by the sandbox: another plugin's data folder is out of a sandboxed hook's reach (its own is `$CLAUDE_PLUGIN_DATA`)",
                if says_a_write(line) { "write to" } else { "read of" },
                shown(&path)
            ),
            Some(path) if credentials.iter().any(|c| path.starts_with(c)) => format!(
                "{} {} denied by the sandbox: the user's credentials are out of a sandboxed hook's reach",
                if says_a_write(line) { "write to" } else { "read of" },
                shown(&path)
            ),
            // Its own to write, or the operating system's denial (hookbridge cannot read it either).
            Some(path)
                if writable.iter().any(|w| path.starts_with(w))
                    || in_a_hooks_temp(&path)
                    || (path.exists() && !readable_here(&path)) =>
            {
                continue
            }
            Some(path) => format!(
                "write to {} denied by the sandbox: a sandboxed hook writes only beneath the project, its temporary folder (TMPDIR) and the paths in `sandbox.write`",
                shown(&path)
            ),
            None => {
                let network = match sandbox.network {
                    Network::All => "",
                    Network::TcpPorts(_) => {
                        ", or a socket other than a TCP connection to the ports in `sandbox.network`"
                    }
                    Network::None => ", or a socket (`\"network\": true` allows them)",
                };
                format!(
                    "`{}` may be the sandbox's: it denies writes outside the project, TMPDIR and `sandbox.write`, reading credentials{network}",
                    line.trim()
                )
            }
        };
        if !said.contains(&words) {
            said.push(words);
        }
    }
    said
}

/// Whether an error line is about making or writing a file (the shell's `cannot create`,
/// `touch`, `mkdir`, Python's `open(…, 'w')` cannot be told from a read; those read as reads).
fn says_a_write(line: &str) -> bool {
    [
        "cannot create",
        "cannot touch",
        "cannot make directory",
        "cannot remove",
        "cannot move",
    ]
    .iter()
    .any(|words| line.contains(words))
}

/// Whether hookbridge itself may read `path`: asked of the kernel (`access`), never by opening it
/// — the path comes from a hook's stderr, and opening a FIFO it names would wait for a writer.
fn readable_here(path: &Path) -> bool {
    nix::unistd::access(path, nix::unistd::AccessFlags::R_OK).is_ok()
}

/// Whether `path` lies in a hook's own temporary folder (see [`SandboxPlan::new`]).
fn in_a_hooks_temp(path: &Path) -> bool {
    path.strip_prefix(std::env::temp_dir())
        .ok()
        .and_then(|rest| rest.iter().next())
        .is_some_and(|first| first.to_string_lossy().starts_with(TEMP_PREFIX))
}

/// Why this machine cannot enforce a sandbox whose network is `network`, or `None` where it can:
/// the kernel lacks Landlock, has it disabled or speaks an older ABI than the sandbox needs (6),
/// or (for a sandbox that keeps the network) has no seccomp filters. Asked of the kernel once per
/// process, by queries that restrict nothing. Any other answer than "lacks it" is `None`: the
/// sandbox is then tried, and fails closed if it cannot be entered. What `sandboxUnavailable:
/// runUnsandboxed` looks at, and what `list` and `test` show.
pub fn unenforceable(network: &Network) -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        static LANDLOCK: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        static SECCOMP: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        if let Some(why) = LANDLOCK.get_or_init(landlock_lacking) {
            return Some(why.clone());
        }
        match network {
            Network::All => None,
            Network::None | Network::TcpPorts(_) => SECCOMP.get_or_init(seccomp_lacking).clone(),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = network;
        Some("only Linux (Landlock) can enforce a sandbox".into())
    }
}

/// What the kernel lacks of Landlock, asked as the `landlock` crate asks it (its own query is
/// private to it): the ABI version `landlock_create_ruleset` gives for no ruleset at all.
#[cfg(target_os = "linux")]
fn landlock_lacking() -> Option<String> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: no attribute (a null pointer, size 0) and the version flag: a query, nothing made.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    let needed = ABI_NEEDED as i64;
    if abi >= needed {
        return None;
    }
    if abi >= 0 {
        return Some(format!(
            "this kernel speaks Landlock ABI {abi}, and the sandbox needs ABI {needed} (Linux 6.12 or later)"
        ));
    }
    match io::Error::last_os_error().raw_os_error() {
        Some(libc::ENOSYS) => Some("this kernel has no Landlock".into()),
        Some(libc::EOPNOTSUPP) => {
            Some("Landlock is not enabled on this kernel (its `lsm=` boot list)".into())
        }
        _ => None,
    }
}

/// What the kernel lacks of seccomp filters: whether it can take the one action the network
/// filter uses (`SECCOMP_GET_ACTION_AVAIL`, Linux 4.14; a kernel without filters has no such
/// operation either).
#[cfg(target_os = "linux")]
fn seccomp_lacking() -> Option<String> {
    let action: u32 = libc::SECCOMP_RET_ERRNO;
    // SAFETY: the kernel reads one u32 through a pointer to a live local; nothing is installed.
    let available = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_GET_ACTION_AVAIL,
            0 as libc::c_ulong,
            std::ptr::from_ref(&action),
        )
    };
    match available {
        0 => None,
        _ => match io::Error::last_os_error().raw_os_error() {
            Some(libc::ENOSYS | libc::EINVAL | libc::EOPNOTSUPP) => Some(
                "this kernel has no seccomp filters, which keep the network from a sandboxed hook".into(),
            ),
            _ => None,
        },
    }
}

/// Makes `command` (a process the engine starts other than a hook's own, such as a project's MCP
/// server) enter `plan`'s sandbox before its exec, and withholds the secrets of the environment
/// from it as from a sandboxed hook. An error when the sandbox cannot be made here: the process
/// must not then be started.
pub fn confine_command(command: &mut std::process::Command, plan: &SandboxPlan) -> io::Result<()> {
    for (name, _) in std::env::vars_os() {
        if plan.withholds(std::os::unix::ffi::OsStrExt::as_bytes(name.as_os_str())) {
            command.env_remove(name);
        }
    }
    #[cfg(target_os = "linux")]
    {
        let confinement = confinement(plan)?;
        // SAFETY: `enter` makes system calls only, no allocation and no lock (see it), which is
        // what a child forked from a process with threads may do before its exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(command, move || {
                confinement.enter().map_err(EnterFailure::into_error)
            });
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        match confinement(plan)? {}
    }
}

/// What a sandboxed hook's process enters between its clone and its exec: none here (only Linux
/// can enforce a sandbox), so none can be made.
#[cfg(not(target_os = "linux"))]
pub(super) enum Confinement {}

/// An error: only Linux (Landlock) can enforce a sandbox; the hook is not run.
#[cfg(not(target_os = "linux"))]
pub(super) fn confinement(_plan: &SandboxPlan) -> io::Result<Confinement> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "the hook asks for a sandbox and only Linux (Landlock) can enforce one here; the hook was not run",
    ))
}

/// What a sandboxed hook's process enters between its clone and its exec
/// ([`Confinement::enter`]): its Landlock layers — the read layer it shares with the event's other
/// hooks that read alike, if any, then its own — and the seccomp filter for what Landlock cannot
/// say. Made by the engine's thread, which making rules does not restrict.
#[cfg(target_os = "linux")]
pub(super) struct Confinement {
    reads: Option<Arc<std::os::fd::OwnedFd>>,
    own: std::os::fd::OwnedFd,
    filter: Option<seccompiler::BpfProgram>,
}

/// Which step of [`Confinement::enter`] the kernel refused, with its `errno`.
#[cfg(target_os = "linux")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EnterFailure {
    /// No new privileges, or a Landlock layer.
    Landlock(i32),
    /// The seccomp filter.
    Seccomp(i32),
}

#[cfg(target_os = "linux")]
impl EnterFailure {
    /// What it means for the hook, in words: it was not run.
    pub(super) fn into_error(self) -> io::Error {
        match self {
            EnterFailure::Landlock(errno) => unsupported(&io::Error::from_raw_os_error(errno)),
            EnterFailure::Seccomp(errno) => io::Error::other(format!(
                "the hook's sandbox cannot be set up: its seccomp filter: {}; the hook was not run",
                io::Error::from_raw_os_error(errno)
            )),
        }
    }
}

/// `plan`'s confinement, made now: the rules of its layers (a hook alone on its event reads by
/// the rules of its one layer, one layer being cheaper to enter than two, for a second merges the
/// first's rules again) and its seccomp filter. An error says what the kernel could not do.
#[cfg(target_os = "linux")]
pub(super) fn confinement(plan: &SandboxPlan) -> io::Result<Confinement> {
    let own = Rules::write_layer(plan)?;
    let reads = match &plan.shared {
        Some(shared) => Some(shared_read_layer(shared, plan)?),
        None => {
            own.add_reads(plan, AccessFs::from_read(ABI_NEEDED))?;
            None
        }
    };
    own.add_writes(plan)?;
    let filter = match plan.network {
        Network::None => Some(socket_filter(false)?),
        Network::TcpPorts(_) => Some(socket_filter(true)?),
        Network::All => None,
    };
    Ok(Confinement {
        reads,
        own: own.fd,
        filter,
    })
}

#[cfg(target_os = "linux")]
impl Confinement {
    /// Restricts the calling process (and everything it starts) to its layers, with no new
    /// privileges, then adds the seccomp filter.
    ///
    /// Only system calls, no allocation and no lock: it runs in a child that still shares the
    /// engine's memory (between `clone(CLONE_VM)` and exec, `spawn.rs`). Which is also why the
    /// filter is entered by `seccomp(2)` here rather than through `seccompiler::apply_filter`,
    /// which does the same today but promises nothing about allocating.
    pub(super) fn enter(&self) -> Result<(), EnterFailure> {
        use std::os::fd::AsRawFd;
        let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(libc::EPERM);
        // SAFETY: prctl with integer arguments only.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(EnterFailure::Landlock(errno()));
        }
        for layer in self.reads.as_deref().into_iter().chain([&self.own]) {
            // SAFETY: a ruleset descriptor of ours and no flags.
            let entered = unsafe {
                libc::syscall(
                    libc::SYS_landlock_restrict_self,
                    layer.as_raw_fd(),
                    0 as libc::c_uint,
                )
            };
            if entered != 0 {
                return Err(EnterFailure::Landlock(errno()));
            }
        }
        if let Some(filter) = &self.filter {
            let program = libc::sock_fprog {
                len: filter.len() as libc::c_ushort,
                // The same layout: `struct sock_filter` (code, jt, jf, k), which the kernel only reads.
                filter: filter.as_ptr().cast_mut().cast::<libc::sock_filter>(),
            };
            // SAFETY: `program` points to the live filter, which the kernel copies.
            let entered = unsafe {
                libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    0 as libc::c_ulong,
                    std::ptr::from_ref(&program),
                )
            };
            if entered != 0 {
                return Err(EnterFailure::Seccomp(errno()));
            }
        }
        Ok(())
    }
}

/// The read layer that `plan`'s event's hooks that read alike share, made now if it is the first
/// ([`ReadLayers`]).
#[cfg(target_os = "linux")]
fn shared_read_layer(shared: &ReadLayers, plan: &SandboxPlan) -> io::Result<Arc<std::os::fd::OwnedFd>> {
    let key = ReadKey {
        present: plan.present.clone(),
        own_plugin_data: own_plugin_data(plan),
    };
    // Held while the layer is made: another hook that reads alike waits for it rather than make
    // it again.
    let mut made = shared
        .made
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, fd)) = made.iter().find(|(made, _)| *made == key) {
        return Ok(fd.clone());
    }
    let fd = Arc::new(Rules::read_layer(plan)?.fd);
    made.push((key, fd.clone()));
    Ok(fd)
}

/// `landlock_add_rule(2)`'s rule types and their attributes (`linux/landlock.h`).
#[cfg(target_os = "linux")]
const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
#[cfg(target_os = "linux")]
const LANDLOCK_RULE_NET_PORT: libc::c_int = 2;
#[cfg(target_os = "linux")]
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}
#[cfg(target_os = "linux")]
#[repr(C)]
struct NetPortAttr {
    allowed_access: u64,
    port: u64,
}

/// A Landlock ruleset being filled: created by the `landlock` crate (which checks that the kernel
/// speaks [`ABI_NEEDED`] and handles every right it names), then filled and entered through its
/// descriptor.
///
/// Why not the crate's `add_rule`: it `fstat`s every rule's descriptor to trim a file's rights to
/// those a file can take, one more system call per rule, and a sandboxed hook's walk makes some
/// eighty rules, each of whose kind the listing that found it already says (82 `fstat`s on this
/// project's benchmark home; commit 24e6d5f has the measurement).
#[cfg(target_os = "linux")]
struct Rules {
    fd: std::os::fd::OwnedFd,
    abi: ABI,
}

#[cfg(target_os = "linux")]
impl Rules {
    /// `plan`'s read layer: reading (and `REFER`, which Landlock denies by default even where a
    /// layer does not handle it) handled, and granted everywhere but the credentials — the
    /// folders beside each, on every level from `/` down — and beneath the hook's own plugin's
    /// data folder. Each rule is made as the walk finds its place, whose descriptor is closed at
    /// once (a home of a thousand entries holds no thousand open).
    fn read_layer(plan: &SandboxPlan) -> io::Result<Rules> {
        let read = AccessFs::from_read(ABI_NEEDED) | AccessFs::Refer;
        let rules = Rules::create(plan, read, false)?;
        rules.add_reads(plan, read)?;
        Ok(rules)
    }

    /// The reading rules: `access` granted everywhere but the credentials and beneath the hook's
    /// own plugin's data folder.
    fn add_reads(&self, plan: &SandboxPlan, access: BitFlags<AccessFs>) -> io::Result<()> {
        readable_roots(Path::new("/"), &plan.present, &mut |place| {
            self.add(place, access)
        })?;
        if let Some(own) = own_plugin_data(plan) {
            self.add(Place::by_path(&own, None), access)?;
        }
        Ok(())
    }

    /// `plan`'s own layer, empty: the file rights its rules grant handled (every one, for a hook
    /// that shares no read layer; else every one but reading), the network's unless the hook may
    /// use all of it, and signals and abstract Unix sockets scoped to the sandbox (its rules are
    /// [`Rules::add_writes`], and for a hook alone [`Rules::add_reads`]).
    fn write_layer(plan: &SandboxPlan) -> io::Result<Rules> {
        if plan.denied.is_empty() {
            return Err(io::Error::other(
                "the hook's sandbox cannot be set up: no home folder is known (no HOME, no account entry), so the credentials beneath it cannot be kept from the hook; the hook was not run",
            ));
        }
        let handled = match plan.shared {
            Some(_) => AccessFs::from_write(ABI_NEEDED),
            None => AccessFs::from_all(ABI_NEEDED),
        };
        Rules::create(plan, handled, true)
    }

    /// An empty ruleset handling `access` (and with `writes`, the network's rights unless the hook
    /// may use all of it, and the scopes), made by the `landlock` crate, which checks that the
    /// kernel speaks [`ABI_NEEDED`] and handles every right it names.
    fn create(plan: &SandboxPlan, access: BitFlags<AccessFs>, writes: bool) -> io::Result<Rules> {
        let abi = ABI_NEEDED;
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(access)
            .map_err(|e| unsupported(&e))?;
        if writes && plan.network != Network::All {
            ruleset = ruleset
                .handle_access(AccessNet::from_all(abi))
                .map_err(|e| unsupported(&e))?;
        }
        let created = if writes {
            ruleset
                .scope(Scope::from_all(abi))
                .map_err(|e| unsupported(&e))?
                .create()
        } else {
            ruleset.create()
        }
        .map_err(|e| unsupported(&e))?;
        match Option::<std::os::fd::OwnedFd>::from(created) {
            Some(fd) => Ok(Rules { fd, abi }),
            None => Err(unsupported(&"no Landlock ruleset could be made")),
        }
    }

    /// The write layer's rules: the writable devices, the write roots (split where a credential
    /// lies beneath one: a project that is the home folder, a declared `~`; Landlock's rights only
    /// add up, so a rule on a folder would grant what lies beneath it, credentials included), the
    /// hook's own plugin's data folder and the TCP ports it may connect to.
    fn add_writes(&self, plan: &SandboxPlan) -> io::Result<()> {
        use std::os::fd::AsFd;
        let abi = self.abi;
        let write = AccessFs::from_write(abi);
        for device in WRITABLE_DEVICES {
            self.add(
                Place::by_path(device, Some(false)),
                AccessFs::from_file(abi) & write,
            )?;
        }
        for root in &plan.write {
            // Where it really is: a project spelled through a symlink of the home folder
            // (`/h/me` for `/home/me`) holds the credentials all the same.
            let real = root.path.canonicalize().unwrap_or_else(|_| root.path.clone());
            // Beneath a credential (`"write": ["~/.ssh/authorized_keys"]`): nothing. Write rights
            // need no reading, so a rule there would let the hook add a key.
            if plan
                .denied
                .iter()
                .any(|d| real.starts_with(d) || root.path.starts_with(d))
            {
                continue;
            }
            let holds_a_credential = plan
                .denied
                .iter()
                .any(|d| d.starts_with(&real) || d.starts_with(&root.path));
            match &root.held {
                Some(held) if !holds_a_credential => {
                    let Ok(meta) = nix::sys::stat::fstat(held.as_fd()) else {
                        continue;
                    };
                    let dir = meta.st_mode & libc::S_IFMT == libc::S_IFDIR;
                    self.add_beneath(held.as_fd(), rights(dir, write, abi))?;
                }
                _ if holds_a_credential => {
                    readable_roots(&real, &plan.denied, &mut |place| self.add(place, write))?
                }
                _ => self.add(Place::by_path(&root.path, None), write)?,
            }
        }
        if let Some(own) = own_plugin_data(plan) {
            self.add(Place::by_path(&own, None), write)?;
        }
        if let Network::TcpPorts(ports) = &plan.network {
            for &port in ports {
                let attr = NetPortAttr {
                    allowed_access: BitFlags::from(AccessNet::ConnectTcp).bits(),
                    port: u64::from(port),
                };
                self.add_attr(LANDLOCK_RULE_NET_PORT, std::ptr::from_ref(&attr).cast())?;
            }
        }
        Ok(())
    }

    /// The rule granting `access` beneath `place` (only the rights a file can have, on a file).
    fn add(&self, place: Place, access: BitFlags<AccessFs>) -> io::Result<()> {
        let (fd, dir) = match (place.opened, place.dir) {
            (Some(fd), Some(dir)) => (fd, dir),
            (_, dir) => {
                // By path: what is not there (any more) needs no rule.
                let dir = match dir {
                    Some(dir) => dir,
                    None => match std::fs::metadata(&place.path) {
                        Ok(meta) => meta.is_dir(),
                        Err(_) => return Ok(()),
                    },
                };
                // As the landlock crate's `PathFd` opens a path: symlinks followed (the walk's
                // start, a write root, a device: named by hookbridge, the user or the kernel, not
                // listed).
                let open = nix::fcntl::OFlag::O_PATH | nix::fcntl::OFlag::O_CLOEXEC;
                match nix::fcntl::open(&place.path, open, nix::sys::stat::Mode::empty()) {
                    Ok(fd) => (fd, dir),
                    Err(_) => return Ok(()),
                }
            }
        };
        use std::os::fd::AsFd;
        self.add_beneath(fd.as_fd(), rights(dir, access, self.abi))
    }

    /// `landlock_add_rule(2)` for the file hierarchy beneath `fd`.
    fn add_beneath(&self, fd: std::os::fd::BorrowedFd<'_>, access: BitFlags<AccessFs>) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let attr = PathBeneathAttr {
            allowed_access: access.bits(),
            parent_fd: fd.as_raw_fd(),
        };
        self.add_attr(LANDLOCK_RULE_PATH_BENEATH, std::ptr::from_ref(&attr).cast())
    }

    fn add_attr(&self, kind: libc::c_int, attr: *const libc::c_void) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        // SAFETY: `attr` points to a live attribute of the layout `kind` names (the kernel's
        // `landlock_path_beneath_attr` or `landlock_net_port_attr`), which the call only reads.
        let made = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                self.fd.as_raw_fd(),
                kind,
                attr,
                0 as libc::c_uint,
            )
        };
        if made == 0 {
            Ok(())
        } else {
            Err(io::Error::other(format!(
                "the hook's sandbox cannot be set up: a rule was refused: {}",
                io::Error::last_os_error()
            )))
        }
    }
}

/// The hook's own plugin's data folder, beneath the plugins' data folders kept from it, to read
/// and write: unless it lies beneath a credential.
#[cfg(target_os = "linux")]
fn own_plugin_data(plan: &SandboxPlan) -> Option<PathBuf> {
    let own = plan.plugin_data.as_ref()?;
    let beneath_a_credential = plan
        .denied
        .iter()
        .filter(|d| !plan.plugin_data_roots.contains(d))
        .any(|d| own.starts_with(d));
    (!beneath_a_credential).then(|| own.clone())
}

/// What Landlock cannot say, for a hook without the network: no socket at all — UDP, and
/// Unix-domain sockets on the filesystem (an ssh agent, which signs with the keys the hook may
/// not read; the Docker daemon; the session bus and the keyring behind it), netlink — and no
/// io_uring, which makes sockets past the filter. `socketpair` (a process's own pipes) stays.
/// With `tcp` (the hook may connect to some TCP ports), plain TCP sockets may be made — IPv4 or
/// IPv6, stream, protocol TCP: not MPTCP or SCTP, whose connections Landlock's TCP rules may not
/// see — and nothing may be sent with `MSG_FASTOPEN` nor any socket listen: Landlock (measured on
/// Linux 6.18) lets a Fast Open `sendto` connect to any port, for it connects without `connect`,
/// and a `listen` on a socket never bound take a port without `bind`.
/// A seccomp filter entered by the hook's process before its exec, inherited by everything it
/// starts; a socket is refused with `EACCES`, as Landlock refuses a TCP connection.
#[cfg(target_os = "linux")]
fn socket_filter(tcp: bool) -> io::Result<seccompiler::BpfProgram> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    let failed = |e: &dyn std::fmt::Display| {
        io::Error::other(format!(
            "the hook's sandbox cannot be set up: its seccomp filter: {e}; the hook was not run"
        ))
    };
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| failed(&e))?;
    let condition = |arg: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(|e| failed(&e))
    };
    let rule = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions).map_err(|e| failed(&e));
    // For each call, the rules under which it is refused (any one of them); none: always.
    let mut refused: Vec<(i64, Vec<SeccompRule>)> = vec![(libc::SYS_io_uring_setup, Vec::new())];
    if tcp {
        const TYPE_MASK: u64 = 0xf; // the type without SOCK_NONBLOCK and SOCK_CLOEXEC
        let mut socket = vec![
            // Neither IPv4 nor IPv6.
            rule(vec![
                condition(0, SeccompCmpOp::Ne, libc::AF_INET as u64)?,
                condition(0, SeccompCmpOp::Ne, libc::AF_INET6 as u64)?,
            ])?,
            // A protocol other than the default or TCP.
            rule(vec![
                condition(2, SeccompCmpOp::Ne, 0)?,
                condition(2, SeccompCmpOp::Ne, libc::IPPROTO_TCP as u64)?,
            ])?,
        ];
        // Not a stream.
        for kind in (0..=TYPE_MASK).filter(|k| *k != libc::SOCK_STREAM as u64) {
            socket.push(rule(vec![condition(
                1,
                SeccompCmpOp::MaskedEq(TYPE_MASK),
                kind,
            )?])?);
        }
        refused.push((libc::SYS_socket, socket));
        // Landlock refuses binding a port, but `listen` on a socket never bound binds a port of
        // the kernel's choosing without asking.
        refused.push((libc::SYS_listen, Vec::new()));
        let fastopen = libc::MSG_FASTOPEN as u64;
        for (number, flags) in [
            (libc::SYS_sendto, 3),
            (libc::SYS_sendmsg, 2),
            (libc::SYS_sendmmsg, 3),
        ] {
            refused.push((
                number,
                vec![rule(vec![condition(
                    flags,
                    SeccompCmpOp::MaskedEq(fastopen),
                    fastopen,
                )?])?],
            ));
        }
    } else {
        refused.push((libc::SYS_socket, Vec::new()));
    }
    let mut rules = std::collections::BTreeMap::new();
    for (number, when) in refused {
        // The x32 ABI's numbers for the same calls (the filter checks the architecture, and x32
        // shares x86-64's).
        #[cfg(target_arch = "x86_64")]
        rules.insert(number | 0x4000_0000, when.clone());
        rules.insert(number, when);
    }
    // x32's own numbers for the two calls whose structures differ there.
    #[cfg(target_arch = "x86_64")]
    if tcp {
        for (x32, from) in [(518, libc::SYS_sendmsg), (538, libc::SYS_sendmmsg)] {
            let when = rules[&from].clone();
            rules.insert(x32 | 0x4000_0000, when);
        }
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(|e| failed(&e))?;
    BpfProgram::try_from(filter).map_err(|e| failed(&e))
}

/// `access` as a folder's rule grants it, or only the part a file can take.
#[cfg(target_os = "linux")]
fn rights(dir: bool, access: BitFlags<AccessFs>, abi: ABI) -> BitFlags<AccessFs> {
    if dir {
        access
    } else {
        access & AccessFs::from_file(abi)
    }
}

/// The kernel lacks what the sandbox needs.
#[cfg(target_os = "linux")]
fn unsupported(e: &dyn std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "the hook asks for a sandbox and this kernel cannot enforce it (Landlock ABI {} is needed: Linux 6.12 or later with Landlock enabled): {e}; the hook was not run",
            ABI_NEEDED as i32
        ),
    )
}

/// A place a rule is made for.
#[cfg(target_os = "linux")]
struct Place {
    path: PathBuf,
    /// Opened (`O_PATH`) beneath the descriptor of the folder whose listing named it, never
    /// through a symlink, so the rule is for what was listed; `None`: opened by its path when its
    /// rule is made.
    opened: Option<std::os::fd::OwnedFd>,
    /// Whether it is a folder, when known (the listing says so; `None`: ask when the rule is made).
    dir: Option<bool>,
}

#[cfg(target_os = "linux")]
impl Place {
    fn by_path(path: impl Into<PathBuf>, dir: Option<bool>) -> Place {
        Place {
            path: path.into(),
            opened: None,
            dir,
        }
    }
}

/// The places beneath `dir` that together cover everything readable, each given to `found` as the
/// walk finds it: `dir` itself when no denied path lies beneath it; otherwise each of its
/// entries, recursively, leaving out the denied ones and symlinks (see [`collect_readable`]).
/// Stops at `found`'s first error.
///
/// Each listed folder is opened beneath its parent's descriptor and each entry beneath its
/// folder's, with `O_NOFOLLOW`: one path component per `openat` (no walk from `/` for each of the
/// hundred-odd entries beside a home's credentials), and a name that turns into a symlink between
/// the listing and the rule gets no rule through it — a folder's open fails (`O_DIRECTORY`), and
/// anything else opens as the link itself, whose rule covers no file (Landlock checks the path a
/// link leads to, never the link).
#[cfg(target_os = "linux")]
fn readable_roots(
    dir: &Path,
    denied: &[PathBuf],
    found: &mut dyn FnMut(Place) -> io::Result<()>,
) -> io::Result<()> {
    use nix::fcntl::OFlag;
    // The folders that hold a denied path: only these are listed and split.
    let holders: std::collections::HashSet<&Path> =
        denied.iter().flat_map(|d| d.ancestors().skip(1)).collect();
    let denied: std::collections::HashSet<&Path> = denied.iter().map(PathBuf::as_path).collect();
    if denied.contains(dir) {
        return Ok(());
    }
    if !holders.contains(dir) {
        return found(Place::by_path(dir, None));
    }
    let open = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    match nix::dir::Dir::open(dir, open, nix::sys::stat::Mode::empty()) {
        Ok(listing) => collect_readable(listing, dir, &denied, &holders, found),
        Err(_) => Ok(()),
    }
}

/// The places beneath the folder `listing` (at `path`), which holds a denied path.
#[cfg(target_os = "linux")]
fn collect_readable(
    mut listing: nix::dir::Dir,
    path: &Path,
    denied: &std::collections::HashSet<&Path>,
    holders: &std::collections::HashSet<&Path>,
    found: &mut dyn FnMut(Place) -> io::Result<()>,
) -> io::Result<()> {
    use nix::dir::Type;
    use nix::fcntl::{openat, OFlag};
    use nix::sys::stat::Mode;
    use std::os::unix::ffi::OsStrExt;
    let entries: Vec<(std::ffi::CString, Option<Type>)> = listing
        .iter()
        .flatten()
        .filter(|e| !matches!(e.file_name().to_bytes(), b"." | b".."))
        .map(|e| (e.file_name().to_owned(), e.file_type()))
        .collect();
    for (name, kind) in entries {
        // A symlink needs no rule: what it leads to is reached, and checked, where it really
        // lies. A rule made through it would be a rule on its target — `~/keys -> ~/.ssh` would
        // open the credentials it leads to.
        if kind == Some(Type::Symlink) {
            continue;
        }
        let child = path.join(std::ffi::OsStr::from_bytes(name.to_bytes()));
        if denied.contains(child.as_path()) {
            continue;
        }
        if holders.contains(child.as_path()) {
            let open = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
            if let Ok(inner) =
                openat(&listing, name.as_c_str(), open, Mode::empty()).and_then(nix::dir::Dir::from_fd)
            {
                collect_readable(inner, &child, denied, holders, found)?;
            }
            continue;
        }
        let mut open = OFlag::O_PATH | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        if kind == Some(Type::Directory) {
            open |= OFlag::O_DIRECTORY;
        }
        let Ok(fd) = openat(&listing, name.as_c_str(), open, Mode::empty()) else {
            continue;
        };
        let dir = match kind {
            Some(kind) => kind == Type::Directory,
            // The listing did not say (some file systems): ask the opened place itself.
            None => match nix::sys::stat::fstat(&fd) {
                Ok(meta) if meta.st_mode & libc::S_IFMT == libc::S_IFLNK => continue,
                Ok(meta) => meta.st_mode & libc::S_IFMT == libc::S_IFDIR,
                Err(_) => continue,
            },
        };
        found(Place {
            path: child,
            opened: Some(fd),
            dir: Some(dir),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The explainer never opens what a hook's stderr names: a FIFO with no writer would hold
    /// `hookbridge test` forever.
    #[test]
    fn a_fifo_named_in_a_hooks_stderr_is_not_opened() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let project = tmp.path().join("project");
        let stderr = format!("cat: {}: Permission denied\n", fifo.display());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let said = explain_denials(
                &hookbridge_core::config::Sandbox::default(),
                &project,
                None,
                &stderr,
            );
            let _ = tx.send(said.len());
        });
        let said = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("explain_denials returned (it must not open the FIFO)");
        assert_eq!(said, 1);
    }

    #[test]
    fn a_variable_is_withheld_by_its_name_saying_it_holds_a_secret() {
        for secret in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GEMINI_API_KEY",
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "NPM_AUTHTOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ACCESS_KEY_ID",
            "AWS_SESSION_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "PGPASSWORD",
            "MYSQL_PWD",
            "GITHUB_PAT",
            "SENTRY_DSN",
            "STRIPE_KEY",
            "SIGNING_KEYS",
            "DOCKER_AUTH",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "SSH_PASSPHRASE",
            "client_secret",
            "HF_TOKEN",
            "SESSION_COOKIE",
            "MY_APIKEY",
        ] {
            assert!(names_a_secret(secret.as_bytes()), "{secret}");
        }
        for plain in [
            "PATH",
            "HOME",
            "PWD",
            "OLDPWD",
            "LANG",
            "CLAUDE_PROJECT_DIR",
            "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
            "TOKENIZERS_PARALLELISM",
            "KEYMAP",
            "SSH_PUBLIC_KEY",
            "XAUTHORITY",
            "PATCH_LEVEL",
            "MONKEY",
            "",
        ] {
            assert!(!names_a_secret(plain.as_bytes()), "{plain}");
        }
        let tmp = tempfile::tempdir().unwrap();
        let sandbox = hookbridge_core::config::Sandbox {
            env: vec!["GITHUB_TOKEN".into()],
            ..Default::default()
        };
        let plan = SandboxPlan::new(&sandbox, Some(tmp.path()), None, &[], None);
        assert!(!plan.withholds(b"GITHUB_TOKEN"), "kept by its `env`");
        assert!(plan.withholds(b"GH_TOKEN"));
        assert!(!plan.withholds(b"PATH"));
    }

    #[test]
    fn a_denial_in_a_sandboxed_hooks_stderr_is_said_in_words() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let project = tmp.path().join("project");
        std::fs::create_dir_all(home.join(".cache")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(home.join(".bashrc"), "").unwrap();
        let sandbox = hookbridge_core::config::Sandbox {
            write: vec!["~/.cache".into()],
            network: Network::None,
            env: vec![],
        };
        let stderr = format!(
            "/bin/sh: 1: cannot create {home}/.bashrc: Permission denied\n\
             cat: {home}/.ssh/id_ed25519: Permission denied\n\
             /bin/sh: 1: cannot create {home}/.ssh/authorized_keys: Permission denied\n\
             cat: {home}/.amplifier/plugin-data/fmt/token: Permission denied\n\
             touch: cannot touch '{home}/.cache/x': Permission denied\n\
             touch: cannot touch '{project}/x': Permission denied\n\
             all went well\n\
             PermissionError: [Errno 13] Permission denied\n",
            home = home.display(),
            project = project.display()
        );
        let said = explain_denials(&sandbox, &project, Some(&home), &stderr);
        assert_eq!(
            said,
            [
                "write to ~/.bashrc denied by the sandbox: a sandboxed hook writes only beneath the project, its temporary folder (TMPDIR) and the paths in `sandbox.write`",
                "read of ~/.ssh/id_ed25519 denied by the sandbox: the user's credentials are out of a sandboxed hook's reach",
                "write to ~/.ssh/authorized_keys denied by the sandbox: the user's credentials are out of a sandboxed hook's reach",
                "read of ~/.amplifier/plugin-data/fmt/token denied by the sandbox: another plugin's data folder is out of a sandboxed hook's reach (its own is `$CLAUDE_PLUGIN_DATA`)",
                "`PermissionError: [Errno 13] Permission denied` may be the sandbox's: it denies writes outside the project, TMPDIR and `sandbox.write`, reading credentials, or a socket (`\"network\": true` allows them)",
            ]
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn every_folder_but_the_credentials_and_their_parents_is_readable_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        for dir in [".ssh", ".config/gcloud", ".config/nvim", "src"] {
            std::fs::create_dir_all(home.join(dir)).unwrap();
        }
        std::fs::write(home.join(".bashrc"), "").unwrap();
        let denied: Vec<PathBuf> = CREDENTIALS.iter().map(|c| home.join(c)).collect();
        let paths = |dir: &Path| {
            let mut paths: Vec<PathBuf> = Vec::new();
            readable_roots(dir, &denied, &mut |place| {
                paths.push(place.path);
                Ok(())
            })
            .unwrap();
            paths
        };
        let mut roots = paths(&home);
        roots.sort();
        assert_eq!(
            roots,
            vec![home.join(".bashrc"), home.join(".config/nvim"), home.join("src")]
        );
        // Above the home folder only its ancestors are split.
        let roots = paths(tmp.path());
        assert!(!roots.contains(&tmp.path().to_path_buf()));
        assert!(roots.iter().all(|r| !denied.iter().any(|d| r.starts_with(d))));
    }

    /// Each place's descriptor is the rule's to close as the walk goes: a home of many entries
    /// never has them all open at once (a soft limit of 1,024 descriptors is common).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_walk_holds_few_descriptors_however_many_entries_a_home_has() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        for n in 0..400 {
            std::fs::write(home.join(format!("f{n}")), "").unwrap();
        }
        std::fs::create_dir(home.join("d")).unwrap();
        std::os::unix::fs::symlink(home.join(".ssh"), home.join("keys")).unwrap();
        let open_now = || std::fs::read_dir("/proc/self/fd").unwrap().count();
        let before = open_now();
        let (mut most, mut places, mut dirs) = (0, 0, Vec::new());
        readable_roots(&home, &[home.join(".ssh")], &mut |place| {
            most = most.max(open_now());
            places += 1;
            if place.dir == Some(true) {
                dirs.push(place.path.clone());
            }
            assert!(
                place.opened.is_some(),
                "a listed entry is opened where it was listed"
            );
            Ok(())
        })
        .unwrap();
        // Every entry but the credential and the symlink to it, which gets no rule.
        assert_eq!(places, 401);
        assert_eq!(dirs, [home.join("d")]);
        assert!(
            most < before + 8,
            "{most} descriptors open at once (from {before})"
        );
    }

    /// One event's hooks that read alike get the same read layer, made once; a hook of another
    /// plugin (whose own data folder it may read) gets its own.
    #[cfg(target_os = "linux")]
    #[test]
    fn hooks_that_read_alike_share_one_read_layer_and_others_get_their_own() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        let data = tmp.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        let layers = ReadLayers::default();
        let sandbox = hookbridge_core::config::Sandbox::default();
        let plan = |data: Option<&Path>| SandboxPlan::new(&sandbox, None, Some(&home), &[], data);
        let first = shared_read_layer(&layers, &plan(None)).unwrap();
        let again = shared_read_layer(&layers, &plan(None)).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "made once for hooks that read alike");
        let other_plugin = shared_read_layer(&layers, &plan(Some(&data))).unwrap();
        assert!(!Arc::ptr_eq(&first, &other_plugin));
        assert_eq!(layers.made.lock().unwrap().len(), 2);
    }

    #[test]
    fn the_credentials_of_a_home_the_host_gives_the_hook_are_kept_as_well_as_the_users() {
        let tmp = tempfile::tempdir().unwrap();
        let given = tmp.path().join("given-home");
        let plan = SandboxPlan::new(
            &hookbridge_core::config::Sandbox::default(),
            None,
            Some(&given),
            &[],
            None,
        );
        assert!(plan.denied.contains(&given.join(".ssh")), "{:?}", plan.denied);
        let user = crate::home::account_home().expect("this account has a home folder");
        assert!(plan.denied.contains(&user.join(".ssh")), "{:?}", plan.denied);
    }
}
