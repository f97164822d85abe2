//! Whose home is "yours": the one answer every part of hookbridge that reads your own hooks,
//! settings, MCP servers, trust records and logs asks for. `$HOME` when it is a usable folder
//! ([`hookbridge_core::env_paths::usable_env_folder`]: absolute, no `..`, not under `/proc` or
//! `/dev`), else the account's home from the password database. A project's settings can give the
//! agent (and so hookbridge and its hooks) `HOME=.` or `HOME=/proc/self/cwd`, which would make the
//! repository's own `.amplifier/hooks` "yours", never held for trust.

use std::path::{Path, PathBuf};

/// Your home: `$HOME` if it is a usable folder, else the account's.
pub fn user_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|home| hookbridge_core::env_paths::usable_env_folder(home))
        .or_else(|| account_home().map(Path::to_path_buf))
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
