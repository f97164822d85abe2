//! Sandboxed hooks: what a hook's process may touch, enforced by the kernel (Landlock), for a
//! command hook that asks for it (`"sandbox"`, see [`hookbridge_core::config::Sandbox`]).
//!
//! The shaping decision: **the sandbox is entered by a short-lived thread that then starts the
//! hook**, not between fork and exec. Landlock restricts the calling thread and every process it
//! starts afterwards, so a thread that restricts itself and then calls the same `posix_spawn` as
//! every other hook gives its child the sandbox, while the engine's own threads keep their rights —
//! and the spawn path (socketpairs, process group, closed descriptors, signal defaults) stays one.
//!
//! What the sandbox allows (Landlock ABI 6, Linux 6.10 or later):
//! - **reading and running** everything but the user's credentials ([`CREDENTIALS`] beneath the
//!   home folder). Landlock only allows, so "everything but" is the folders beside each credential
//!   folder, on every level from `/` down: a folder that holds a credential is itself not
//!   listable (its other entries are);
//! - **writing** beneath the project, the hook's own temporary folder (its `TMPDIR`, removed after
//!   the run) and the paths the hook declares; the character devices `/dev/null`, `/dev/zero`,
//!   `/dev/full` and `/dev/tty`;
//! - **no TCP** (neither connecting nor listening) unless `network` is true;
//! - **no new privileges** (a setuid program runs without them) and **no signals or abstract Unix
//!   sockets** beyond the hook's own sandbox.
//!
//! A kernel that cannot enforce all of it (no Landlock, or an older ABI) does not run the hook: the
//! spawn fails, which is a hook error that follows the hook's `onFailure` — never a silent run with
//! fewer restrictions.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[cfg(target_os = "linux")]
use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, ABI,
};

/// The Landlock ABI every rule here needs (scoped signals and abstract sockets came with 6).
const ABI_NEEDED: i32 = 6;

/// Beneath the home folder: what a hook never reads (keys, cloud and registry credentials).
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
    ".local/share/keyrings",
];

/// Character devices a hook may write (output thrown away, a terminal).
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// A sandbox resolved for one run: real paths, and the hook's temporary folder.
#[derive(Debug, Clone)]
pub struct SandboxPlan {
    /// Folders (and files) the hook may write beneath.
    pub write: Vec<PathBuf>,
    /// Never readable, with everything beneath.
    pub denied: Vec<PathBuf>,
    pub network: bool,
    /// The hook's own temporary folder (its `TMPDIR`), removed when the last holder drops it.
    pub temp: Option<Arc<tempfile::TempDir>>,
}

impl SandboxPlan {
    /// The plan for `sandbox` in `project`, with `home` the user's home folder; makes the hook's
    /// temporary folder (without one, when it cannot be made, the hook has no `TMPDIR` of its own
    /// and can write no temporary file: still sandboxed, never less).
    pub fn new(
        sandbox: &hookbridge_core::config::Sandbox,
        project: Option<&Path>,
        home: Option<&Path>,
    ) -> SandboxPlan {
        let temp = tempfile::Builder::new().prefix("hookbridge-hook-").tempdir().ok();
        let mut write: Vec<PathBuf> = project.map(Path::to_path_buf).into_iter().collect();
        write.extend(temp.as_ref().map(|t| t.path().to_path_buf()));
        for path in &sandbox.write {
            let home_relative = path.strip_prefix("~/").or((path == "~").then_some(""));
            match (home_relative, home) {
                (Some(rest), Some(home)) => write.push(home.join(rest)),
                (Some(_), None) => {}
                (None, _) if Path::new(path).is_absolute() => write.push(PathBuf::from(path)),
                // The project's: only where it really lies inside the project. A project is often
                // someone else's repository, whose symlink (`out -> ~`) would otherwise lend the
                // hook the right to write wherever it leads.
                (None, _) => write.extend(project.and_then(|project| inside(project, path))),
            }
        }
        let denied = home
            .map(|home| CREDENTIALS.iter().map(|c| home.join(c)).collect())
            .unwrap_or_default();
        SandboxPlan {
            write,
            denied,
            network: sandbox.network,
            temp: temp.map(Arc::new),
        }
    }

    /// The hook's `TMPDIR`.
    pub fn temp_dir(&self) -> Option<&Path> {
        self.temp.as_deref().map(tempfile::TempDir::path)
    }
}

/// `project/relative` with every symlink resolved, if it exists and lies inside the project.
fn inside(project: &Path, relative: &str) -> Option<PathBuf> {
    let root = project.canonicalize().ok()?;
    let real = project.join(relative).canonicalize().ok()?;
    real.starts_with(&root).then_some(real)
}

/// Restricts the calling thread (and every process it starts from now on) to `plan`. An error
/// says what the kernel could not do; nothing was restricted then.
#[cfg(not(target_os = "linux"))]
pub(super) fn enter(_plan: &SandboxPlan) -> io::Result<()> {
    Err(unsupported(&"Landlock is Linux's"))
}

/// Restricts the calling thread (and every process it starts from now on) to `plan`. An error
/// says what the kernel could not do; nothing was restricted then.
#[cfg(target_os = "linux")]
pub(super) fn enter(plan: &SandboxPlan) -> io::Result<()> {
    let failed =
        |e: &dyn std::fmt::Display| io::Error::other(format!("the hook's sandbox cannot be set up: {e}"));
    let abi = ABI::V6;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| unsupported(&e))?;
    if !plan.network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(|e| unsupported(&e))?;
    }
    let mut created = ruleset
        .scope(Scope::from_all(abi))
        .map_err(|e| unsupported(&e))?
        .create()
        .map_err(|e| unsupported(&e))?;
    let readable = readable_roots(Path::new("/"), &plan.denied);
    let rules = readable
        .iter()
        .map(|(path, dir)| (path.as_path(), *dir, AccessFs::from_read(abi)))
        .chain(
            plan.write
                .iter()
                .map(|path| (path.as_path(), None, AccessFs::from_all(abi))),
        )
        .chain(
            WRITABLE_DEVICES
                .iter()
                .map(|d| (Path::new(*d), Some(false), AccessFs::from_file(abi))),
        );
    for (path, dir, access) in rules {
        // What is not there (any more) needs no rule; a file (not a folder) takes only the rights
        // a file has. Whether it is a folder comes from the listing where it can (no `stat`).
        let dir = match dir {
            Some(dir) => dir,
            None => match std::fs::metadata(path) {
                Ok(meta) => meta.is_dir(),
                Err(_) => continue,
            },
        };
        let Ok(fd) = PathFd::new(path) else { continue };
        let access = if dir {
            access
        } else {
            access & AccessFs::from_file(abi)
        };
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|e| failed(&e))?;
    }
    created.restrict_self().map_err(|e| unsupported(&e))?;
    Ok(())
}

/// The kernel lacks what the sandbox needs.
fn unsupported(e: &dyn std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "the hook asks for a sandbox and this kernel cannot enforce it (Landlock ABI {ABI_NEEDED} is needed: Linux 6.10 or later with Landlock enabled): {e}; the hook was not run"
        ),
    )
}

/// The paths beneath `dir` that together cover everything readable: `dir` itself when no denied
/// path lies beneath it; otherwise each of its entries, recursively, leaving out the denied ones.
/// Each with whether it is a folder, when the listing says so (`None`: not known, or a symlink).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn readable_roots(dir: &Path, denied: &[PathBuf]) -> Vec<(PathBuf, Option<bool>)> {
    // The folders that hold a denied path: only these are listed and split.
    let holders: std::collections::HashSet<&Path> =
        denied.iter().flat_map(|d| d.ancestors().skip(1)).collect();
    let denied: std::collections::HashSet<&Path> = denied.iter().map(PathBuf::as_path).collect();
    let mut roots = Vec::new();
    collect_readable(dir, None, &denied, &holders, &mut roots);
    roots
}

fn collect_readable(
    dir: &Path,
    is_dir: Option<bool>,
    denied: &std::collections::HashSet<&Path>,
    holders: &std::collections::HashSet<&Path>,
    roots: &mut Vec<(PathBuf, Option<bool>)>,
) {
    if denied.contains(dir) {
        return;
    }
    if !holders.contains(dir) {
        roots.push((dir.to_path_buf(), is_dir));
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let kind = entry.file_type().ok();
        let is_dir = kind.filter(|k| !k.is_symlink()).map(|k| k.is_dir());
        collect_readable(&entry.path(), is_dir, denied, holders, roots);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_folder_but_the_credentials_and_their_parents_is_readable_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        for dir in [".ssh", ".config/gcloud", ".config/nvim", "src"] {
            std::fs::create_dir_all(home.join(dir)).unwrap();
        }
        std::fs::write(home.join(".bashrc"), "").unwrap();
        let denied: Vec<PathBuf> = CREDENTIALS.iter().map(|c| home.join(c)).collect();
        let mut roots: Vec<PathBuf> = readable_roots(&home, &denied)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        roots.sort();
        assert_eq!(
            roots,
            vec![home.join(".bashrc"), home.join(".config/nvim"), home.join("src")]
        );
        // Above the home folder only its ancestors are split.
        let roots: Vec<PathBuf> = readable_roots(tmp.path(), &denied)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert!(!roots.contains(&tmp.path().to_path_buf()));
        assert!(roots.iter().all(|r| !denied.iter().any(|d| r.starts_with(d))));
    }
}
