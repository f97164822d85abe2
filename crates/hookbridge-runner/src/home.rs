//! Whose home is "yours": the one answer every part of hookbridge that reads your own hooks,
//! settings, MCP servers, trust records and logs asks for. `$HOME` when it is an absolute path,
//! else the account's home from the password database. A relative `HOME` is never made absolute
//! against the working directory: a project's settings can give the agent (and so hookbridge and
//! its hooks) `HOME=.`, which would make the repository's own `.amplifier/hooks` "yours", never
//! held for trust.

use std::path::{Path, PathBuf};

/// Your home: `$HOME` if it is absolute, else the account's.
pub fn user_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|home| home.is_absolute())
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
