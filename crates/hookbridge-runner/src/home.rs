//! Whose home is "yours": the one answer every part of hookbridge that reads your own hooks,
//! settings, MCP servers, trust records and logs asks for. `$HOME` when it is a usable folder
//! ([`hookbridge_core::env_paths::usable_env_folder`]: absolute, no `..`, not under `/proc` or
//! `/dev`), else the account's home from the password database. A project's settings can give the
//! agent (and so hookbridge and its hooks) `HOME=.` or `HOME=/proc/self/cwd`, which would make the
//! repository's own `.amplifier/hooks` "yours", never held for trust. Nor may it hide your hooks:
//! `HOME=/var/empty` or `HOME=/nonexistent` would have made every guard of yours not load, so a
//! `$HOME` counts only when it is a folder of yours (owned by this user); else the account's home
//! is yours (where it is a folder: else `$HOME`, as there is nothing else to go by).

use std::path::{Path, PathBuf};

/// Your home: `$HOME` if it is a usable folder of yours, else the account's.
pub fn user_home() -> Option<PathBuf> {
    let env = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|home| hookbridge_core::env_paths::usable_env_folder(home));
    if let Some(home) = env.as_deref().filter(|home| owned_folder(home)) {
        return Some(home.to_path_buf());
    }
    account_home()
        .filter(|home| owned_folder(home))
        .map(Path::to_path_buf)
        .or(env)
        .or_else(|| account_home().map(Path::to_path_buf))
}

/// The home of the account called `name`, from the password database (what `~name` means to a
/// shell or to Python's `expanduser`); `None` when there is no such account.
pub fn home_of(name: &str) -> Option<PathBuf> {
    nix::unistd::User::from_name(name)
        .ok()
        .flatten()
        .map(|user| user.dir)
        .filter(|dir| dir.is_absolute())
}

/// Whether `path` is a folder this user owns (through symlinks: a home may be one).
fn owned_folder(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_dir() && meta.uid() == rustix::process::geteuid().as_raw())
}

/// The account's home from the password database, looked up once.
pub fn account_home() -> Option<&'static Path> {
    static HOME: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        nix::unistd::User::from_uid(nix::unistd::Uid::current())
            .ok()
            .flatten()
            .map(|user| user.dir)
            .filter(|dir| dir.is_absolute())
    })
    .as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Red-team pass 9: a project's settings gave the agent `HOME=/var/empty` (or a folder that
    /// does not exist) and none of your hooks loaded. A `$HOME` that is not a folder of yours is
    /// not your home: the account's is. (Each nextest test is a process of its own, so setting
    /// `HOME` here touches no other test.)
    #[test]
    fn a_home_that_is_not_a_folder_of_yours_is_not_yours() {
        let account = account_home().expect("this user has an account home");
        assert!(owned_folder(account), "{}", account.display());
        let tmp = tempfile::tempdir().unwrap();
        std::env::set_var("HOME", tmp.path());
        assert_eq!(
            user_home().as_deref(),
            Some(tmp.path()),
            "a folder of yours is your home"
        );

        let missing = tmp.path().join("missing");
        let file = tmp.path().join("file");
        std::fs::write(&file, "").unwrap();
        // Someone else's folder: as root, one given to another user; else the root's `/`.
        let foreign = tmp.path().join("foreign");
        std::fs::create_dir(&foreign).unwrap();
        let foreign = if rustix::process::geteuid().is_root() {
            std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).unwrap();
            foreign
        } else {
            PathBuf::from("/")
        };
        for not_yours in [&missing, &file, &foreign] {
            assert!(!owned_folder(not_yours), "{}", not_yours.display());
            std::env::set_var("HOME", not_yours);
            assert_eq!(
                user_home().as_deref(),
                Some(account),
                "HOME={}",
                not_yours.display()
            );
        }
    }
}
