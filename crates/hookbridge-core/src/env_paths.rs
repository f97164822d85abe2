//! Folders hookbridge takes from its environment for your configuration and its own state (`HOME`,
//! `XDG_STATE_HOME`, `XDG_RUNTIME_DIR`, `TMPDIR`). A project's settings can set the agent's
//! environment, and with it hookbridge's, so such a path counts only when it is absolute, has no
//! `..`, and does not lie under `/proc` or `/dev`: there a fixed path (`/proc/self/cwd`,
//! `/dev/fd/3/..`) resolves to wherever the process stands, the repository it runs in, which would
//! make the repository's own `.amplifier/hooks` "yours" (never held for trust), or its folder the
//! one where your warm services listen.

use std::path::{Component, Path};

/// Whether `path`, named by an environment variable, may name one of hookbridge's folders.
pub fn usable_env_folder(path: &Path) -> bool {
    let mut parts = path.components();
    path.is_absolute()
        && !path.components().any(|c| c == Component::ParentDir)
        && !matches!(
            (parts.next(), parts.next()),
            (Some(Component::RootDir), Some(Component::Normal(top))) if top == "proc" || top == "dev"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_absolute_folder_is_usable() {
        for usable in [
            "/home/u",
            "/tmp/x",
            "/run/user/1000",
            "/",
            "/home/proc",
            "/srv/dev",
        ] {
            assert!(usable_env_folder(Path::new(usable)), "{usable}");
        }
        for refused in [
            ".",
            "./",
            "home",
            "/proc/self/cwd",
            "/proc/self/cwd/..",
            "/proc/1234/cwd",
            "/dev/fd/3/..",
            "/proc",
            "/home/u/../../proc/self/cwd",
            "",
        ] {
            assert!(!usable_env_folder(Path::new(refused)), "{refused}");
        }
    }
}
