//! Managed policy: what an administrator sets for every user of a machine, in a system file that
//! user and project settings cannot override (`/etc/hookbridge/managed.json`).
//!
//! ```json
//! { "allowManagedHooksOnly": false, "allowProjectHooks": false,
//!   "allowedHttpHookUrls": ["https://hooks.example.com/*"], "httpHookAllowedEnvVars": ["HOOK_TOKEN"],
//!   "warm": false, "maxTimeout": 120, "auditLog": "/var/log/hookbridge/audit.jsonl",
//!   "sandboxHooks": "project", "sandboxNetwork": false, "sandboxUnavailable": "refuse",
//!   "hooks": { "PreToolUse": [ … managed hooks, Claude Code's format … ] } }
//! ```
//!
//! The file is also a hooks file: its `hooks` load first, as [`Scope::Managed`](super::Scope)
//! hooks (of identical ones, the managed copy is kept), and its http lists are the managed level
//! of the http policy (which user and project lists only narrow). Its own keys:
//! `allowManagedHooksOnly` holds every user and project hook; `allowProjectHooks: false` holds the
//! project's; `warm: false` turns warm Python runs off; `maxTimeout` (seconds) caps every hook;
//! `auditLog` (an absolute path) is where every hook run is recorded, which neither
//! `HOOKBRIDGE_AUDIT_LOG` nor `off` can change; `sandboxHooks` (`"project"` or `"all"`) runs
//! every command hook of those scopes sandboxed (the default profile where it asks for none, its
//! `"sandbox": false` notwithstanding) and `sandboxNetwork: false` takes the network from every
//! sandboxed hook, and `sandboxUnavailable` says what a sandboxed hook does where the kernel cannot
//! enforce its sandbox (`"refuse"`, the default: it is not run; `"runUnsandboxed"`: it runs
//! without, and says so) — the floor of [`SandboxFloor`], applied when a hook runs (not when it is
//! loaded, so trust records, pinned to what the project says, stay as they are).
//!
//! The shaping decision: **a policy that cannot be read holds what it could have held.** A file
//! that exists but is not readable JSON, or has a key of the wrong type, is reported and read as
//! `allowManagedHooksOnly: true`: an administrator's typo stops user and project hooks rather
//! than lifting the policy. Debug builds (the test suite's) read the file named by
//! `HOOKBRIDGE_TEST_MANAGED_POLICY` instead; release builds have no such way in, so nothing a
//! project or an environment says can move the policy.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::diagnostics::Diagnostic;

/// Where the managed policy is read from.
pub const MANAGED_POLICY_PATH: &str = "/etc/hookbridge/managed.json";

/// The managed policy file of this build: [`MANAGED_POLICY_PATH`]; in debug builds, the file
/// `HOOKBRIDGE_TEST_MANAGED_POLICY` names, when set.
pub fn managed_policy_path() -> PathBuf {
    #[cfg(debug_assertions)]
    if let Some(path) = std::env::var_os("HOOKBRIDGE_TEST_MANAGED_POLICY") {
        return PathBuf::from(path);
    }
    PathBuf::from(MANAGED_POLICY_PATH)
}

/// The managed policy's own rules (its hooks and http lists are loaded as a hooks file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedRules {
    pub path: PathBuf,
    pub allow_managed_hooks_only: bool,
    pub allow_project_hooks: bool,
    /// `false`: no hook runs warm.
    pub warm: bool,
    pub max_timeout: Option<Duration>,
    /// `auditLog`: the audit log's place, mandatory.
    pub audit_log: Option<PathBuf>,
    /// `sandboxHooks` and `sandboxNetwork`.
    pub sandbox: SandboxFloor,
    /// The file could not be read as a policy: everything it could hold is held.
    pub unreadable: Option<String>,
}

impl ManagedRules {
    /// The rules in force, for `list` and `validate`: one phrase each.
    pub fn in_force(&self) -> Vec<String> {
        let mut rules = Vec::new();
        if let Some(why) = &self.unreadable {
            rules.push(format!("unreadable ({why}), read as allowManagedHooksOnly"));
        }
        if self.allow_managed_hooks_only {
            rules.push("allowManagedHooksOnly: only managed hooks run".into());
        } else if !self.allow_project_hooks {
            rules.push("allowProjectHooks: false: project hooks never run".into());
        }
        if !self.warm {
            rules.push("warm: false: no hook runs warm".into());
        }
        if let Some(max) = self.max_timeout {
            rules.push(format!(
                "maxTimeout: no hook runs longer than {}s",
                max.as_secs_f64()
            ));
        }
        if let Some(log) = &self.audit_log {
            rules.push(format!(
                "auditLog: every hook run is recorded in {} (it cannot be switched off)",
                log.display()
            ));
        }
        rules.extend(self.sandbox.in_force());
        rules
    }
}

/// A floor under hooks' sandboxes: which hooks must run sandboxed, and whether a sandboxed hook
/// may have the network it asks for. The managed policy sets one, the user's own settings another
/// (the same two keys in a hooks file of `~/.amplifier/hooks/`), a project's trust a
/// third (`trust --sandboxed`); the stricter holds on each point. The managed policy's own hooks
/// are under none of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxFloor {
    /// `sandboxHooks`: whose command hooks run sandboxed whatever they say; `None`: only those
    /// that ask.
    pub hooks: Option<SandboxedHooks>,
    /// `sandboxNetwork`: `false` takes the network from every sandboxed hook.
    pub network: bool,
    /// `sandboxUnavailable`: what a sandboxed hook does where the kernel cannot enforce its
    /// sandbox; `None`: not said, which is [`SandboxUnavailable::Refuse`].
    pub unavailable: Option<SandboxUnavailable>,
}

impl SandboxFloor {
    /// No floor: each hook's own sandbox, as it says.
    pub const NONE: SandboxFloor = SandboxFloor {
        hooks: None,
        network: true,
        unavailable: None,
    };

    /// What the floor holds, one phrase per key set (for `list` and `validate`).
    pub fn in_force(&self) -> Vec<String> {
        let mut rules = Vec::new();
        match self.hooks {
            Some(SandboxedHooks::Project) => {
                rules.push("sandboxHooks: project: every project command hook runs sandboxed".into());
            }
            Some(SandboxedHooks::All) => rules
                .push("sandboxHooks: all: every command hook but the managed policy's runs sandboxed".into()),
            None => {}
        }
        if !self.network {
            rules.push("sandboxNetwork: false: no sandboxed hook reaches the network".into());
        }
        if let Some(said) = self.unavailable {
            let does = match said {
                SandboxUnavailable::RunUnsandboxed => {
                    "the hook runs without it, and each such run is reported"
                }
                SandboxUnavailable::Refuse => "the hook is not run",
            };
            rules.push(format!(
                "sandboxUnavailable: {}: where this kernel cannot enforce a hook's sandbox, {does}",
                said.word()
            ));
        }
        rules
    }

    /// The stricter of two floors, on each point (of `sandboxUnavailable`: `refuse` over
    /// `runUnsandboxed` over not said).
    pub fn stricter(self, other: SandboxFloor) -> SandboxFloor {
        SandboxFloor {
            hooks: self.hooks.max(other.hooks),
            network: self.network && other.network,
            unavailable: self.unavailable.max(other.unavailable),
        }
    }

    /// What a sandboxed hook does where the kernel cannot enforce its sandbox.
    pub fn where_unavailable(&self) -> SandboxUnavailable {
        self.unavailable.unwrap_or(SandboxUnavailable::Refuse)
    }
}

impl Default for SandboxFloor {
    fn default() -> Self {
        SandboxFloor::NONE
    }
}

/// What a sandboxed hook does where the kernel cannot enforce its sandbox (no Landlock, an older
/// Landlock ABI, no seccomp filters, not Linux): `sandboxUnavailable`, the laxer first, so the
/// stricter of two is the greater.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum SandboxUnavailable {
    /// `"runUnsandboxed"`: the hook runs without its sandbox, and every such run says so (a
    /// problem the user is shown, the diagnostics log, the audit record's `unsandboxed`).
    RunUnsandboxed,
    /// `"refuse"`, the default: the hook is not run (a hook error, in words, that follows its
    /// `onFailure`).
    #[default]
    Refuse,
}

impl SandboxUnavailable {
    /// Both, each with its value as written.
    const WORDS: [(SandboxUnavailable, &'static str); 2] = [
        (SandboxUnavailable::RunUnsandboxed, "runUnsandboxed"),
        (SandboxUnavailable::Refuse, "refuse"),
    ];

    /// The one its value as written names: `"refuse"` or `"runUnsandboxed"`.
    pub fn of(word: &str) -> Option<SandboxUnavailable> {
        Self::WORDS.iter().find(|(_, w)| *w == word).map(|(it, _)| *it)
    }

    /// Its value as written.
    pub fn word(self) -> &'static str {
        Self::WORDS
            .iter()
            .find(|(it, _)| *it == self)
            .map_or("refuse", |(_, w)| w)
    }
}

/// Whose command hooks `sandboxHooks` sandboxes, the fewest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SandboxedHooks {
    /// The project's (`.amplifier/hooks/`, the project's plugins).
    Project,
    /// Every hook but the managed policy's own.
    All,
}

/// The sandbox `hook` runs in, under `floor`: its own, raised to the floor. `None` for a hook that
/// runs unsandboxed (and for every hook that is not a command). The one definition that running,
/// `list`, `test` and the audit record use.
pub fn effective_sandbox<'a>(
    hook: &'a super::HookSpec,
    floor: &SandboxFloor,
) -> Option<std::borrow::Cow<'a, super::Sandbox>> {
    use super::{HookKind, Scope};
    use std::borrow::Cow;
    let HookKind::Command(command) = &hook.kind else {
        return None;
    };
    if hook.source.scope == Scope::Managed {
        return command.sandbox.as_ref().map(Cow::Borrowed);
    }
    let required = match floor.hooks {
        Some(SandboxedHooks::All) => true,
        Some(SandboxedHooks::Project) => hook.source.scope == Scope::Project,
        None => false,
    };
    let sandbox = match &command.sandbox {
        Some(own) if floor.network || !own.network.any() => Cow::Borrowed(own),
        Some(own) => Cow::Owned(super::Sandbox {
            network: super::Network::None,
            ..own.clone()
        }),
        None if required => Cow::Owned(super::Sandbox::default()),
        None => return None,
    };
    Some(sandbox)
}

/// The rules of the managed file whose text is `text`: `Ok` with the rules, or the rules to
/// apply anyway (fail closed) with what was wrong.
pub fn read_rules(path: PathBuf, text: &str) -> (ManagedRules, Option<Diagnostic>) {
    let closed = |why: String| {
        let rules = ManagedRules {
            path: path.clone(),
            allow_managed_hooks_only: true,
            allow_project_hooks: false,
            warm: false,
            max_timeout: None,
            audit_log: None,
            // Held hooks do not run; those that still do (the policy's own) are not under it.
            sandbox: SandboxFloor::NONE,
            unreadable: Some(why.clone()),
        };
        let d = Diagnostic::error(format!(
            "the managed policy cannot be read ({why}): only managed hooks run until it is fixed"
        ))
        .in_file(&path);
        (rules, Some(d))
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Value::Object(map),
        Ok(_) => return closed("not a JSON object".into()),
        Err(e) => return closed(format!("not valid JSON: {e}")),
    };
    let boolean = |key: &str, default: bool| -> Result<bool, String> {
        match value.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!("`{key}` must be true or false, not {other}")),
        }
    };
    let max_timeout = match value.get("maxTimeout") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .and_then(|s| crate::timeout::timeout_from_secs(s).ok())
            .map(Some)
            .ok_or_else(|| format!("`maxTimeout` must be a positive number of seconds, not {v}")),
    };
    let audit_log = match value.get("auditLog") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(p)) if std::path::Path::new(p).is_absolute() => Ok(Some(PathBuf::from(p))),
        Some(v) => Err(format!("`auditLog` must be an absolute path, not {v}")),
    };
    let sandboxed_hooks = match value.get("sandboxHooks") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s == "project" => Ok(Some(SandboxedHooks::Project)),
        Some(Value::String(s)) if s == "all" => Ok(Some(SandboxedHooks::All)),
        Some(v) => Err(format!("`sandboxHooks` must be \"project\" or \"all\", not {v}")),
    };
    let unavailable = match value.get("sandboxUnavailable") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if SandboxUnavailable::of(s).is_some() => Ok(SandboxUnavailable::of(s)),
        Some(v) => Err(format!(
            "`sandboxUnavailable` must be \"refuse\" or \"runUnsandboxed\", not {v}"
        )),
    };
    let rules = (|| {
        let only = boolean("allowManagedHooksOnly", false)?;
        Ok::<_, String>(ManagedRules {
            path: path.clone(),
            allow_managed_hooks_only: only,
            allow_project_hooks: boolean("allowProjectHooks", true)? && !only,
            warm: boolean("warm", true)?,
            max_timeout: max_timeout?,
            audit_log: audit_log?,
            sandbox: SandboxFloor {
                hooks: sandboxed_hooks?,
                network: boolean("sandboxNetwork", true)?,
                unavailable: unavailable?,
            },
            unreadable: None,
        })
    })();
    match rules {
        Ok(rules) => (rules, None),
        Err(e) => closed(e),
    }
}

/// Holds the hooks `set`'s managed policy forbids (`allowManagedHooksOnly`, `allowProjectHooks:
/// false`); returns how many. Discovery calls it, so no host can forget it.
pub fn hold_what_it_forbids(set: &mut super::HookSet) -> usize {
    use super::{Held, Scope};
    let Some(rules) = set.managed.clone() else {
        return 0;
    };
    let mut held = 0;
    if rules.allow_managed_hooks_only {
        for scope in [Scope::Project, Scope::User, Scope::Explicit] {
            held += set.hold(scope, &Held::ManagedHooksOnly);
        }
    } else if !rules.allow_project_hooks {
        held += set.hold(Scope::Project, &Held::ProjectHooksNotAllowed);
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_are_read_and_a_broken_policy_holds_what_it_could() {
        let (rules, problem) = read_rules(
            PathBuf::from("/m.json"),
            r#"{"allowProjectHooks": false, "warm": false, "maxTimeout": 120, "auditLog": "/var/log/a.jsonl", "hooks": {}}"#,
        );
        assert!(problem.is_none());
        assert_eq!(rules.audit_log, Some(PathBuf::from("/var/log/a.jsonl")));
        assert!(!rules.allow_project_hooks && !rules.allow_managed_hooks_only && !rules.warm);
        assert_eq!(rules.max_timeout, Some(Duration::from_secs(120)));
        let (rules, _) = read_rules(PathBuf::from("/m.json"), "{}");
        assert!(rules.allow_project_hooks && rules.warm && rules.max_timeout.is_none());
        assert_eq!(rules.sandbox, SandboxFloor::NONE);
        let (rules, _) = read_rules(
            PathBuf::from("/m.json"),
            r#"{"sandboxHooks": "all", "sandboxNetwork": false, "sandboxUnavailable": "runUnsandboxed"}"#,
        );
        assert_eq!(
            rules.sandbox,
            SandboxFloor {
                hooks: Some(SandboxedHooks::All),
                network: false,
                unavailable: Some(SandboxUnavailable::RunUnsandboxed),
            }
        );
        for broken in [
            "{",
            "[]",
            r#"{"allowProjectHooks": "no"}"#,
            r#"{"maxTimeout": -1}"#,
            r#"{"auditLog": "relative.jsonl"}"#,
            r#"{"sandboxHooks": true}"#,
            r#"{"sandboxNetwork": "no"}"#,
            r#"{"sandboxUnavailable": "run"}"#,
            r#"{"sandboxUnavailable": false}"#,
        ] {
            let (rules, problem) = read_rules(PathBuf::from("/m.json"), broken);
            assert!(rules.allow_managed_hooks_only && !rules.warm, "{broken}");
            assert!(
                problem.unwrap().message.contains("only managed hooks run"),
                "{broken}"
            );
        }
    }

    #[test]
    fn of_two_floors_the_stricter_says_what_an_unenforceable_sandbox_does() {
        use SandboxUnavailable::{Refuse, RunUnsandboxed};
        let says = |unavailable| SandboxFloor {
            unavailable,
            ..SandboxFloor::NONE
        };
        let cases = [
            (None, None, Refuse),
            (None, Some(RunUnsandboxed), RunUnsandboxed),
            (Some(RunUnsandboxed), None, RunUnsandboxed),
            (Some(RunUnsandboxed), Some(Refuse), Refuse),
            (Some(Refuse), Some(RunUnsandboxed), Refuse),
            (Some(Refuse), None, Refuse),
        ];
        for (a, b, expected) in cases {
            assert_eq!(
                says(a).stricter(says(b)).where_unavailable(),
                expected,
                "{a:?} {b:?}"
            );
        }
    }
}
