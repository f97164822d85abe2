//! Trust: nothing a repository brings runs until its user has seen it, pinned to what they saw.
//!
//! A project's hooks (`<project>/.amplifier/hooks/`) are *held* — loaded, listed, never run — until
//! the user trusts the project with `hookbridge trust`, and held again as soon as anything that
//! decides what they do changes. User-level and managed hooks are the user's own and always run.
//!
//! The shaping decision: **trust is pinned to what runs, not to files or folders.** A trust record
//! ([`store`]) holds a digest of each project hook as it will run (event, matcher, kind and every
//! field that changes what it does, its file: [`pins`]), of each file inside the project a project
//! hook's command names (a changed `format.sh` is a changed hook), and of each server of the
//! project's `.mcp.json` a hook calls. A record is kept outside the repository, in the user's state
//! directory, and counts only when hookbridge wrote it (a file of this user's, closed to others): no
//! environment variable and no file a repository can ship grants trust. Checking costs a digest of
//! each hook's settings and a `stat` per pinned script (a script is hashed again only when its
//! `stat` changed), on runs that have project hooks at all.

pub mod pins;
pub mod store;

pub use pins::{
    current_pins, current_pins_at, unpinned_from, PinnedFile, PinnedHook, PinnedServer, ProjectPins,
};
pub use store::{state_dir, state_dir_for, StoreError, TrustRecord, TrustStore};

pub use crate::config::Held;
use crate::config::{HookSet, Scope};

/// Whether a project's hooks may run, and why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustState {
    /// The project brings no hooks: there is nothing to trust.
    NothingToTrust,
    /// Trusted, and nothing changed since.
    Trusted,
    /// Never trusted (or the record was revoked or is not usable).
    Untrusted,
    /// Trusted once; what would run has changed since.
    Changed(Box<Diff>),
}

impl TrustState {
    /// Whether the project's hooks may run.
    pub fn allows(&self) -> bool {
        matches!(self, TrustState::NothingToTrust | TrustState::Trusted)
    }
}

/// What changed since a project was trusted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    pub hooks_added: Vec<PinnedHook>,
    pub hooks_removed: Vec<PinnedHook>,
    /// `(as trusted, as now)`: the same hook (event, file and place) with other settings.
    pub hooks_changed: Vec<(PinnedHook, PinnedHook)>,
    /// Scripts whose content changed, appeared or went (relative paths).
    pub scripts_changed: Vec<String>,
    pub scripts_added: Vec<String>,
    pub scripts_removed: Vec<String>,
    /// MCP servers that hooks call (the project's `.mcp.json`, a project plugin's own), added,
    /// changed or removed.
    pub servers_changed: Vec<String>,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        *self == Diff::default()
    }
}

/// Whether what `current` pins is what `record` trusted.
pub fn check(record: Option<&TrustRecord>, current: &ProjectPins) -> TrustState {
    if current.is_empty() {
        return TrustState::NothingToTrust;
    }
    let Some(record) = record else {
        return TrustState::Untrusted;
    };
    let diff = diff(&record.pins, current, record.config_only);
    if diff.is_empty() {
        TrustState::Trusted
    } else {
        TrustState::Changed(Box::new(diff))
    }
}

/// What differs between what was trusted and what is there now. Scripts are compared only when
/// the trust covers them (not `config_only`).
pub fn diff(trusted: &ProjectPins, now: &ProjectPins, config_only: bool) -> Diff {
    use std::collections::{HashMap, HashSet};
    let mut d = Diff::default();
    // Looked up by digest and by path, not searched: a project with a thousand plugins has two
    // thousand hooks, and this runs on every event.
    let now_digests: HashSet<&str> = now.hooks.iter().map(|h| h.digest.as_str()).collect();
    let trusted_digests: HashSet<&str> = trusted.hooks.iter().map(|h| h.digest.as_str()).collect();
    let unmatched_old: Vec<&PinnedHook> = trusted
        .hooks
        .iter()
        .filter(|h| !now_digests.contains(h.digest.as_str()))
        .collect();
    let unmatched_new: Vec<&PinnedHook> = now
        .hooks
        .iter()
        .filter(|h| !trusted_digests.contains(h.digest.as_str()))
        .collect();
    let mut used_old = vec![false; unmatched_old.len()];
    for new in unmatched_new {
        let same_place = unmatched_old.iter().enumerate().position(|(i, old)| {
            !used_old[i] && old.event == new.event && old.source == new.source && old.key == new.key
        });
        match same_place {
            Some(i) => {
                used_old[i] = true;
                d.hooks_changed.push((unmatched_old[i].clone(), new.clone()));
            }
            None => d.hooks_added.push(new.clone()),
        }
    }
    d.hooks_removed = unmatched_old
        .iter()
        .zip(&used_old)
        .filter(|(_, used)| !**used)
        .map(|(h, _)| (*h).clone())
        .collect();
    // A multiset: the same hook twice counts twice.
    if d.hooks_added.is_empty() && d.hooks_removed.is_empty() && d.hooks_changed.is_empty() {
        let mut a: Vec<&str> = trusted.hooks.iter().map(|h| h.digest.as_str()).collect();
        let mut b: Vec<&str> = now.hooks.iter().map(|h| h.digest.as_str()).collect();
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            d.hooks_added = now.hooks.clone();
            d.hooks_removed = trusted.hooks.clone();
        }
    }
    if !config_only {
        let trusted_scripts: HashMap<&str, &str> = trusted
            .scripts
            .iter()
            .map(|s| (s.path.as_str(), s.sha256.as_str()))
            .collect();
        let now_paths: HashSet<&str> = now.scripts.iter().map(|s| s.path.as_str()).collect();
        for script in &now.scripts {
            match trusted_scripts.get(script.path.as_str()) {
                None => d.scripts_added.push(script.path.clone()),
                Some(old) if *old != script.sha256 => d.scripts_changed.push(script.path.clone()),
                Some(_) => {}
            }
        }
        for old in &trusted.scripts {
            if !now_paths.contains(old.path.as_str()) {
                d.scripts_removed.push(old.path.clone());
            }
        }
    }
    for server in &now.servers {
        if !trusted.servers.contains(server) {
            d.servers_changed.push(server.name.clone());
        }
    }
    for old in &trusted.servers {
        if !now.servers.iter().any(|s| s.name == old.name) {
            d.servers_changed.push(old.name.clone());
        }
    }
    d
}

/// What applying trust to a loaded set did.
#[derive(Debug)]
pub struct Applied {
    pub state: TrustState,
    /// Project hooks held by it.
    pub held: usize,
    /// A trust record that could not be believed (reported; the project counts as untrusted).
    pub problem: Option<String>,
    /// The project is trusted to run sandboxed (`hookbridge trust --sandboxed`).
    pub sandboxed: bool,
}

impl Applied {
    /// The floor this trust puts under the project's hooks' sandboxes: with `--sandboxed`, every
    /// project command hook runs sandboxed.
    pub fn sandbox_floor(&self) -> crate::config::managed::SandboxFloor {
        use crate::config::managed::{SandboxFloor, SandboxedHooks};
        match self.sandboxed && self.state == TrustState::Trusted {
            true => SandboxFloor {
                hooks: Some(SandboxedHooks::Project),
                ..SandboxFloor::NONE
            },
            false => SandboxFloor::NONE,
        }
    }

    /// Whether a hook may call an MCP server of the project's own `.mcp.json`: only once the
    /// project is trusted (and the server pinned). A user's or managed server of the same name
    /// always wins over the project's.
    pub fn project_servers_allowed(&self) -> bool {
        self.state == TrustState::Trusted
    }
}

/// Holds the project hooks of `set` unless `store` trusts `project` as it is now.
pub fn apply(
    set: &mut HookSet,
    project: &std::path::Path,
    store: Result<&TrustStore, &StoreError>,
) -> Applied {
    let has_project_hooks = set.hooks().any(|(_, _, h)| h.source.scope == Scope::Project);
    let calls_mcp = set
        .hooks()
        .any(|(_, _, h)| matches!(h.kind, crate::config::HookKind::McpTool(_)));
    if !(has_project_hooks || (calls_mcp && project.join(".mcp.json").exists())) {
        set.release(Scope::Project, &Held::AwaitingTrust);
        return Applied {
            state: TrustState::NothingToTrust,
            held: 0,
            problem: None,
            sandboxed: false,
        };
    }
    // Resolved once for the record and the pins alike.
    let root = pins::canonical_project(project);
    let (record, problem) = match store {
        Ok(store) => match store.record_for_canonical(&root) {
            Ok(record) => (record, None),
            Err(e) => (None, Some(e.to_string())),
        },
        Err(e) => (None, Some(e.to_string())),
    };
    let pins = current_pins_at(set, project, &root, record.as_ref().map(|r| &r.pins));
    let state = check(record.as_ref(), &pins);
    let held = match &state {
        TrustState::Untrusted => set.hold(Scope::Project, &Held::NotTrusted),
        TrustState::Changed(_) => set.hold(Scope::Project, &Held::ChangedSinceTrusted),
        TrustState::NothingToTrust | TrustState::Trusted => {
            set.release(Scope::Project, &Held::AwaitingTrust);
            0
        }
    };
    Applied {
        sandboxed: record.as_ref().is_some_and(|r| r.sandboxed),
        state,
        held,
        problem,
    }
}

/// Runs the project hooks of `set` without a trust record: the caller vouches for them (its own
/// tests and benchmarks, a project it wrote itself), never for a repository it did not write.
/// Hooks held for any other reason (managed policy, the host's own folder trust) stay held.
/// Returns how many it released.
pub fn vouch_for_project_hooks(set: &mut HookSet) -> usize {
    set.release(Scope::Project, &Held::AwaitingTrust)
}

/// Trusts `project` as its loaded hooks `set` are now (`set` as discovered, nothing held):
/// writes the record and returns where.
pub fn trust_now(
    set: &HookSet,
    project: &std::path::Path,
    store: &TrustStore,
    config_only: bool,
) -> Result<std::path::PathBuf, StoreError> {
    let pins = current_pins(set, project, None);
    store.save(project, &TrustRecord::new(project, pins, config_only))
}

/// What the user is told, once per session, of held project hooks: how many, and the one command
/// that reviews them.
pub fn held_notice(held: usize, state: &TrustState, project: &std::path::Path) -> String {
    let (hooks, are) = if held == 1 {
        ("hook", "is")
    } else {
        ("hooks", "are")
    };
    let why = match state {
        TrustState::Changed(_) => "what they run changed since you trusted the project",
        _ => "the project is not trusted",
    };
    format!(
        "hookbridge: {held} project {hooks} in {} {are} held: {why}. Review them with: hookbridge trust {}",
        project.display(),
        shell_quote(&project.to_string_lossy())
    )
}

/// `text` as one shell word.
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%".contains(&b))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// How many project hooks `set` holds.
pub fn held_count(set: &HookSet, scope: Scope) -> usize {
    set.hooks()
        .filter(|(_, _, h)| h.source.scope == scope && h.held.is_some())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{discover, DiscoveryOptions};
    use crate::event::{EventName, EventPayload};

    /// A project with one PreToolUse hook, as discovery finds it (no user hooks).
    fn discovered(project: &std::path::Path) -> HookSet {
        let hooks = project.join(".amplifier/hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        std::fs::write(
            hooks.join("hooks.json"),
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./guard.sh"}]}]}}"#,
        )
        .unwrap();
        discover(&DiscoveryOptions::new(project, None))
    }

    fn reasons(set: &HookSet) -> Vec<Option<Held>> {
        set.hooks().map(|(_, _, h)| h.held.clone()).collect()
    }

    #[test]
    fn a_host_that_never_applies_trust_runs_none_of_the_projects_hooks() {
        let project = tempfile::tempdir().unwrap();
        let set = discovered(project.path());
        assert_eq!(reasons(&set), [Some(Held::AwaitingTrust)]);
        let payload = EventPayload::parse(
            EventName::PreToolUse,
            br#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}"#,
        )
        .unwrap();
        assert!(
            set.select(&payload).hooks.is_empty(),
            "a held hook is never selected to run"
        );
    }

    #[test]
    fn apply_decides_every_awaiting_hook_and_keeps_every_other_reason() {
        let project = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let store = TrustStore::at(state.path().join("trust"));

        let mut set = discovered(project.path());
        let applied = apply(&mut set, project.path(), Ok(&store));
        assert_eq!((applied.held, reasons(&set)), (1, vec![Some(Held::NotTrusted)]));

        trust_now(&discovered(project.path()), project.path(), &store, false).unwrap();
        let mut set = discovered(project.path());
        let applied = apply(&mut set, project.path(), Ok(&store));
        assert_eq!((applied.held, reasons(&set)), (0, vec![None]));

        // Another reason (here the host's own folder trust) replaces the wait, and trust does not
        // lift it.
        let mut set = discovered(project.path());
        let host = Held::HostDoesNotTrustFolder("Gemini CLI".into());
        assert_eq!(set.hold(Scope::Project, &host), 1);
        apply(&mut set, project.path(), Ok(&store));
        assert_eq!(reasons(&set), [Some(host)]);
    }

    #[test]
    fn vouching_releases_the_wait_and_nothing_else() {
        let project = tempfile::tempdir().unwrap();
        let mut set = discovered(project.path());
        assert_eq!(vouch_for_project_hooks(&mut set), 1);
        assert_eq!(reasons(&set), [None]);
        let mut set = discovered(project.path());
        set.hold(Scope::Project, &Held::ProjectHooksNotAllowed);
        assert_eq!(vouch_for_project_hooks(&mut set), 0);
        assert_eq!(reasons(&set), [Some(Held::ProjectHooksNotAllowed)]);
    }
}
