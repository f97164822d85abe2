//! What a project pins: a digest of each of its hooks as it will run, of each file inside the
//! project its hooks' commands name, and of each server of its `.mcp.json` a hook calls.
//!
//! A hook's digest covers everything that changes what it does — its event, its group's matcher,
//! its file (relative to the project, and its plugin), its kind and every field of it, `timeout`,
//! `if`, `once`, `onFailure`, whether `hookbridge disable` switched it off — and nothing that does
//! not (where in its file it is written, how the JSON is spaced): moving a hook down a file is not a
//! change, widening its matcher is. The digest is SHA-256 over a versioned canonical JSON form.
//!
//! A command's files are found without running anything: its words as `/bin/sh` would read them
//! (the project and plugin placeholders expanded), else each of its simple commands split at shell
//! punctuation with redirections dropped; every regular file named inside the project by a word
//! of it (the program, its arguments, a `NAME=value` or `--opt=value` value, a name in a string of
//! code such as `python3 -c "…"`) and the file a task runner takes its tasks from (`make` →
//! `Makefile`) is pinned by content — where it really is, also when that is outside the project (a
//! repository's `g.sh -> /tmp/g.sh` is pinned as `/tmp/g.sh`, so that whoever can write there
//! cannot change it unseen). A wrapper in front of a script (`nohup`, `setsid`, `stdbuf`, an
//! option with a value) is one of too many to list, so no list decides what runs: only the files
//! the programs that merely read or write data name (`cat notes.md`, `tee -a audit.log`) are left
//! out, unless they are code or the line runs text it makes (`cat setup | sh`). So are the
//! program and script of each project server a hook calls (`.mcp.json`: `python3 server.py`).
//! What such a script imports or reads (another module, `node_modules`, a data file) is not, and
//! neither is a file a command writes (`>> log.txt`): `hookbridge trust` says so.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::config::{HookKind, HookSet, HookSpec, MatcherGroup, OnFailure, Scope, Shell};
use crate::event::EventName;

/// Everything pinned of one project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectPins {
    pub hooks: Vec<PinnedHook>,
    #[serde(default)]
    pub scripts: Vec<PinnedFile>,
    #[serde(default)]
    pub servers: Vec<PinnedServer>,
}

impl ProjectPins {
    /// No project hook, and no server of the project's that a hook calls: nothing to trust.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty() && self.servers.is_empty()
    }
}

/// One project hook, by digest, with what a person reviewing it needs to see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedHook {
    /// SHA-256 (hex) of the hook's canonical form.
    pub digest: String,
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// `command`, `http`, `mcp_tool`, …
    pub kind: String,
    /// The command, URL, prompt or tool, as written.
    pub label: String,
    /// Its file, relative to the project.
    pub source: String,
    /// Its key path in the file (`hooks.PreToolUse[0].hooks[1]`).
    pub key: String,
    pub line: usize,
    pub column: usize,
    /// The sandbox the hook asks for, in words (shown by `hookbridge trust`; pinned by the digest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

/// One file inside the project that a project hook's command names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedFile {
    /// Relative to the project.
    pub path: String,
    /// SHA-256 (hex) of its content.
    pub sha256: String,
    /// `(device, inode, size, mtime ns, ctime ns)` when it was hashed: while it is the same, the
    /// content is taken to be (a write changes the ctime, which no program can set back).
    pub stat: [u64; 5],
}

/// One server of the project's `.mcp.json` that a hook calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedServer {
    pub name: String,
    /// SHA-256 (hex) of its entry's canonical JSON.
    pub digest: String,
}

/// The pins of `project` as it is now, from its loaded hooks `set`. `previous` (what was trusted)
/// spares hashing a script again while its `stat` is unchanged.
pub fn current_pins(set: &HookSet, project: &Path, previous: Option<&ProjectPins>) -> ProjectPins {
    current_pins_at(set, project, &canonical_project(project), previous)
}

/// `project` with every symlink resolved (as given, if it cannot be): the path a trust record is
/// kept by and project files are pinned beneath.
pub(super) fn canonical_project(project: &Path) -> PathBuf {
    std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf())
}

/// [`current_pins`] where `root` is `project` already made canonical.
pub fn current_pins_at(
    set: &HookSet,
    project: &Path,
    root: &Path,
    previous: Option<&ProjectPins>,
) -> ProjectPins {
    let mut pins = ProjectPins::default();
    // Sorted and each once: a project with a thousand plugins names a thousand scripts.
    let mut named: std::collections::BTreeSet<PathBuf> = std::collections::BTreeSet::new();
    let mut servers: Vec<String> = Vec::new();
    let mut plugin_servers: Vec<(&Path, &str)> = Vec::new();
    for (event, group, hook) in set.hooks() {
        if let HookKind::McpTool(m) = &hook.kind {
            if !servers.contains(&m.server) {
                servers.push(m.server.clone());
            }
            // A project plugin's own server (`plugin:<name>:<server>`), from its folder.
            if let (Scope::Project, Some(plugin)) = (hook.source.scope, &hook.source.plugin) {
                let own = (plugin.root.as_path(), m.server.as_str());
                if m.server.starts_with("plugin:") && !plugin_servers.contains(&own) {
                    plugin_servers.push(own);
                }
            }
        }
        if hook.source.scope != Scope::Project {
            continue;
        }
        pins.hooks.push(pinned_hook(event, group, hook, project));
        if let HookKind::Command(c) = &hook.kind {
            named.extend(named_files(c, hook, project, root));
        }
    }
    // Each project server a hook calls, and the files it runs (from the project root).
    pins.servers = project_servers(project, &servers, &mut named);
    // What was trusted, by path: looked up, not searched, for each of possibly a thousand scripts.
    let known: std::collections::HashMap<&str, &PinnedFile> = previous
        .map(|p| p.scripts.iter().map(|s| (s.path.as_str(), s)).collect())
        .unwrap_or_default();
    for path in named {
        let relative = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let Some(stat) = stat_key(&path) else {
            continue;
        };
        let known = known
            .get(relative.as_str())
            .filter(|s| s.stat == stat)
            .map(|s| s.sha256.clone());
        let sha256 = match known {
            Some(sha) => sha,
            None => match hash_file(&path) {
                Some(sha) => sha,
                None => continue,
            },
        };
        pins.scripts.push(PinnedFile {
            path: relative,
            sha256,
            stat,
        });
    }
    pins.servers.extend(
        plugin_servers
            .into_iter()
            .filter_map(|(root, name)| plugin_server(root, name)),
    );
    pins
}

/// The entry of a project plugin's own server `name` (`plugin:<plugin>:<server>`), by digest: where
/// the runner finds it, the plugin's `.mcp.json` first, then its manifest's `mcpServers`. A file
/// there that is not JSON is pinned by its text, so that it becoming readable is a change.
fn plugin_server(root: &Path, name: &str) -> Option<PinnedServer> {
    let server = name.strip_prefix("plugin:")?.split_once(':')?.1;
    for file in [root.join(".mcp.json"), root.join(".claude-plugin/plugin.json")] {
        let Ok(text) = crate::config::read_bounded(&file, crate::config::MAX_CONFIG_BYTES) else {
            continue;
        };
        let digest = match serde_json::from_str::<Value>(&text) {
            Ok(value) => match value.get("mcpServers").and_then(|s| s.get(server)) {
                Some(entry) => sha256_json(entry),
                None => continue,
            },
            Err(_) => sha256_hex(text.as_bytes()),
        };
        return Some(PinnedServer {
            name: name.to_string(),
            digest,
        });
    }
    None
}

fn relative_to(project: &Path, path: &Path) -> String {
    path.strip_prefix(project)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

fn pinned_hook(event: &EventName, group: &MatcherGroup, hook: &HookSpec, project: &Path) -> PinnedHook {
    let canonical = canonical(event, group, hook, project);
    PinnedHook {
        digest: sha256_json(&canonical),
        event: event.as_str().to_string(),
        matcher: group.matcher_text.clone(),
        kind: hook.kind.type_name().to_string(),
        label: hook.kind.label().to_string(),
        source: relative_to(project, &hook.source.path),
        key: hook.key.clone(),
        line: hook.position.line,
        column: hook.position.column,
        sandbox: match &hook.kind {
            crate::config::HookKind::Command(c) => c.sandbox.as_ref().map(ToString::to_string),
            _ => None,
        },
    }
}

/// The hook as it will run, in a canonical form (see the module doc).
fn canonical(event: &EventName, group: &MatcherGroup, hook: &HookSpec, project: &Path) -> Value {
    let mut whole = serde_json::Map::with_capacity(15);
    whole.insert("v".into(), json!(1));
    whole.insert("event".into(), json!(event.as_str()));
    whole.insert("matcher".into(), json!(group.matcher_text));
    canonical_hook(&mut whole, hook, project);
    Value::Object(whole)
}

/// A digest of `hook`'s definition as it will run (its kind's fields, timeout, `if`, `onFailure`,
/// source, …; not the event or matcher, which a caller knows): names the definition a record
/// was made with, without showing it (an http hook's header values stay out of sight).
pub fn definition_digest(hook: &HookSpec, project: &Path) -> String {
    let mut own = serde_json::Map::with_capacity(12);
    canonical_hook(&mut own, hook, project);
    sha256_json(&Value::Object(own))
}

/// [`canonical`] without the event and the matcher, added to `out` (inserted in place: a trust
/// check computes it for every hook of a project).
fn canonical_hook(out: &mut serde_json::Map<String, Value>, hook: &HookSpec, project: &Path) {
    let kind = match &hook.kind {
        HookKind::Command(c) => {
            let mut command = json!({
                "command": c.command, "resolved": c.resolved_command, "args": c.args,
                "shell": matches!(c.shell, Shell::PowerShell), "async": c.run_async,
                "asyncRewake": c.async_rewake, "warm": c.warm,
            });
            // Only when set, so the pins of hooks written before sandboxes stay as they were;
            // taking a sandbox away (or widening it) changes the pin, and the project is asked
            // to be trusted again.
            if let Some(sandbox) = &c.sandbox {
                command["sandbox"] = json!({"write": sandbox.write, "network": sandbox.network.to_json()});
                // Likewise `env` only when it keeps a secret: pins made before it stay as they were.
                if !sandbox.env.is_empty() {
                    command["sandbox"]["env"] = json!(sandbox.env);
                }
            }
            // How its answers are read is part of what was trusted (only when set, as above).
            if let Some(agent) = c.answers {
                command["answers"] = json!(agent.as_str());
            }
            command
        }
        HookKind::Prompt(p) | HookKind::Agent(p) => {
            json!({"prompt": p.prompt, "model": p.model, "continueOnBlock": p.continue_on_block})
        }
        HookKind::Http(h) => {
            let mut headers: Vec<(&String, &String)> = h.headers.iter().collect();
            headers.sort();
            json!({"url": h.url, "headers": headers, "allowedEnvVars": h.allowed_env_vars})
        }
        HookKind::McpTool(m) => json!({"server": m.server, "tool": m.tool, "input": m.input}),
        HookKind::Rule(r) => {
            json!({"rule": r.label, "action": format!("{:?}", r.action), "message": r.message})
        }
        HookKind::Llm(l) => {
            json!({"prompt": l.prompt, "model": l.model, "maxTokens": l.max_tokens, "cache": l.cache})
        }
    };
    let on_failure = match hook.on_failure {
        OnFailure::Continue => "continue",
        OnFailure::Block => "block",
        OnFailure::Ignore => "ignore",
    };
    let fields = [
        ("source", json!(relative_to(project, &hook.source.path))),
        ("plugin", json!(hook.source.plugin.as_ref().map(|p| &p.name))),
        ("type", json!(hook.kind.type_name())),
        ("kind", kind),
        ("timeoutMs", json!(hook.timeout.map(|t| t.as_millis() as u64))),
        ("if", json!(hook.condition.as_ref().map(|c| &c.text))),
        ("statusMessage", json!(hook.status_message)),
        ("once", json!(hook.once)),
        ("onFailure", json!(on_failure)),
        ("seedEvent", json!(hook.seed_event.as_deref())),
        ("disabled", json!(hook.disabled.is_some())),
    ];
    for (key, value) in fields {
        out.insert(key.into(), value);
    }
}

/// The files inside the project (`root`, canonical) that `command` may run: in each simple command
/// of the line, every file its words name (see [`candidate_words`]), so that a wrapper or an
/// option with a value in front (`timeout 5 ./b.sh`, `nohup bash g`, `bash -o pipefail g`,
/// `python3 -W ignore d.py`) cannot run a file nobody pinned. Files a command only writes or
/// reads as data (`>> log.txt`, `< in.json`, `cat notes.md`, `tee -a audit.log`) are not pinned
/// unless they are code ([`looks_like_code`]): they change as hooks run. A relative word is taken
/// from the project root.
fn named_files(
    command: &crate::config::CommandHook,
    hook: &HookSpec,
    project: &Path,
    root: &Path,
) -> Vec<PathBuf> {
    let words = candidate_words(command, hook, project)
        .into_iter()
        .map(|(word, named_to_run, _)| (word, named_to_run));
    files_named(words, project, root)
}

/// The files among `words` (each with whether it is named to run: see [`names_code`]) that are
/// the project's to change: named inside it (a relative word is taken from the project root) or
/// really inside it, each where it really is — also outside the project, where a symlink of the
/// project's leads.
fn files_named(words: impl Iterator<Item = (String, bool)>, project: &Path, root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for (word, named_to_run) in words {
        let path = Path::new(&word);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            project.join(path)
        };
        if !names_code(&path, named_to_run) {
            continue;
        }
        let Ok(real) = std::fs::canonicalize(&path) else {
            continue;
        };
        let named_inside = path.starts_with(project) || path.starts_with(root) || real.starts_with(root);
        if named_inside && !files.contains(&real) {
            files.push(real);
        }
    }
    files
}

/// For a project hook that runs in `cwd`, not in the project root its files were pinned from
/// (pins take a relative word from the root): the first file its command names by a
/// relative path that, from `cwd`, is another file than from the root (or is there only from
/// `cwd`) — a file trust never pinned, which the hook must not run. `None` when each such word
/// names the same file both ways. A program without a `/` is looked up on `PATH`, not in `cwd`.
pub fn unpinned_from(
    command: &crate::config::CommandHook,
    hook: &HookSpec,
    project: &Path,
    cwd: &Path,
) -> Option<PathBuf> {
    for (word, named_to_run, program) in candidate_words(command, hook, project) {
        let relative = Path::new(&word);
        if relative.is_absolute() || (program && !word.contains('/')) {
            continue;
        }
        let here = cwd.join(relative);
        if !names_code(&here, named_to_run) {
            continue;
        }
        let Ok(real) = std::fs::canonicalize(&here) else {
            continue;
        };
        if std::fs::canonicalize(project.join(relative)).ok().as_ref() != Some(&real) {
            return Some(real);
        }
    }
    None
}

/// The words of `command` that may name a file it runs, placeholders expanded, each with whether
/// it is named to run (the program, an interpreter's script: a file there is pinned whatever it
/// is) or not (a file there is pinned if it is code), and whether it is a simple command's
/// program. Options (`-x`) are skipped.
fn candidate_words(
    command: &crate::config::CommandHook,
    hook: &HookSpec,
    project: &Path,
) -> Vec<(String, bool, bool)> {
    let plugin_root = hook.source.plugin.as_ref().map(|p| p.root.clone());
    let placeholder = |name: &str| -> Option<String> {
        match name {
            "CLAUDE_PROJECT_DIR" | "AMPLIFIER_PROJECT_DIR" => Some(project.to_string_lossy().into_owned()),
            "CLAUDE_PLUGIN_ROOT" => plugin_root.as_ref().map(|p| p.to_string_lossy().into_owned()),
            "AMPLIFIER_HOOKS_DIR" => Some(hook.source.hooks_dir.to_string_lossy().into_owned()),
            _ => None,
        }
    };
    let lookup = |name: &str| placeholder(name).map(std::ffi::OsString::from);
    let mut commands: Vec<Vec<String>> = match &command.args {
        // Exec form: the program and its arguments, no shell.
        Some(args) => vec![std::iter::once(command.resolved_command.clone())
            .chain(args.iter().cloned())
            .collect()],
        None => shell_line(&command.resolved_command, &lookup),
    };
    // A shell given its commands as a string (`sh -c "sh g.sh"`) runs what that string names: read
    // in turn, nested strings too, until MAX_COMMANDS commands are known (a bound on the count,
    // not on the depth: what lies past it is not pinned).
    let mut at = 0;
    while at < commands.len() && commands.len() < MAX_COMMANDS {
        if let Some(line) = shell_string(&commands[at]) {
            let inner = shell_line(&line, &lookup);
            commands.extend(inner.into_iter().take(MAX_COMMANDS));
        }
        at += 1;
    }
    // A line that runs text it makes (`cat setup | sh`, `eval "$(cat setup)"`, `sh <(cat setup)`,
    // `xargs -a setup sh -c`): any file it names may be what runs, whichever program reads it
    // (`paste`, `dd if=…`, `envsubst <`, a variable set to it): each is pinned, whatever it looks
    // like, but those of the programs that only write (`tee -a audit.log`).
    let runs_text = command.args.is_none() && runs_made_text(&command.resolved_command, &commands);
    // Variables the line sets (`x=uard; bash g$x.sh`) and `PWD` (the project root, where pins are
    // taken from) are read as they would be; the protocol's placeholders too.
    let assigned: Vec<(String, String)> = commands
        .iter()
        .flatten()
        .filter_map(|w| w.split_once('=').filter(|(name, _)| is_identifier(name)))
        .map(|(name, value)| (name.to_string(), expand_placeholders(value, &placeholder)))
        .collect();
    let project_text = project.to_string_lossy().into_owned();
    let known = |name: &str| -> Option<String> {
        placeholder(name)
            .or_else(|| (name == "PWD").then(|| project_text.clone()))
            .or_else(|| {
                assigned
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
            })
    };
    let mut out = Vec::new();
    for words in &commands {
        one_commands_words(words, runs_text, &known, project, &mut out);
    }
    // A relative word read from a folder the line moves to (`cd tools && ./guard.sh`, `make -C
    // tools`, `env -C tools bash g`, `npm --prefix sub run x`) or a module path it sets
    // (`PYTHONPATH=tools python3 -m guard`) may name a file there: it is read from each of them too.
    let bases = folders_named(&commands, &known);
    if !bases.is_empty() {
        let from_bases: Vec<(String, bool, bool)> = out
            .iter()
            .filter(|(word, _, program)| !Path::new(word).is_absolute() && (!program || word.contains('/')))
            .flat_map(|(word, named_to_run, _)| {
                bases
                    .iter()
                    .map(move |base| (format!("{base}/{word}"), *named_to_run, false))
            })
            .collect();
        out.extend(from_bases);
    }
    out
}

/// At most this many folders a line moves to are read from.
const MAX_FOLDERS: usize = 16;

/// The folders a line's commands move to or search (see [`candidate_words`]): `cd`'s and
/// `pushd`'s, an option's that changes folder (`-C`, `--directory`, `--prefix`, `--cwd`,
/// `--chdir`), and the folders of `PYTHONPATH` and `NODE_PATH` set in it.
fn folders_named(commands: &[Vec<String>], known: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    const OPTIONS: &[&str] = &["-C", "--directory", "--prefix", "--cwd", "--chdir"];
    let mut folders: Vec<String> = Vec::new();
    let mut add = |dir: &str| {
        let dir = expand_placeholders(dir, known);
        let dir = dir.trim_end_matches('/');
        if !dir.is_empty() && dir != "." && dir != "-" && !folders.iter().any(|f| f == dir) {
            folders.push(dir.to_string());
        }
    };
    for words in commands {
        let run = run_words(words);
        if let Some(program) = run.first().filter(|p| ["cd", "pushd"].contains(&file_name(p))) {
            let at = words.iter().position(|w| std::ptr::eq(w, *program)).unwrap_or(0);
            if let Some(dir) = words[at + 1..].iter().find(|w| !w.starts_with('-')) {
                add(dir);
            }
        }
        for (i, word) in words.iter().enumerate() {
            if OPTIONS.contains(&word.as_str()) {
                if let Some(dir) = words.get(i + 1) {
                    add(dir);
                }
            }
            for option in OPTIONS.iter().filter(|o| o.starts_with("--")) {
                if let Some(dir) = word.strip_prefix(option).and_then(|r| r.strip_prefix('=')) {
                    add(dir);
                }
            }
            if let Some(dir) = word.strip_prefix("-C").filter(|d| !d.is_empty()) {
                add(dir);
            }
            for var in ["PYTHONPATH=", "NODE_PATH="] {
                if let Some(dirs) = word.strip_prefix(var) {
                    dirs.split(':').for_each(&mut add);
                }
            }
        }
    }
    folders.truncate(MAX_FOLDERS);
    folders
}

/// [`candidate_words`] of one simple command's `words`, added to `out`; `runs_text`: the line
/// runs text it makes; `known`: the variables whose values are known.
fn one_commands_words(
    words: &[String],
    runs_text: bool,
    known: &dyn Fn(&str) -> Option<String>,
    project: &Path,
    out: &mut Vec<(String, bool, bool)>,
) {
    let mut push = |word: String, named_to_run: bool, program: bool| {
        if !word.is_empty() && word.len() <= 4096 {
            out.push((word, named_to_run, program));
        }
    };
    let run = run_words(words);
    let name = run.first().map(|p| file_name(p));
    // Whether the files this command's arguments name may be what runs. A wrapper in front
    // (`nohup`, `setsid`, `stdbuf -o0`, `command`, `env --`, `make -f`), an option with a
    // value before the script (`bash -o pipefail g`) or a script given in a string
    // (`python3 -c "exec(open('g').read())"`) are too many to list, so every program's
    // arguments may run — but those of the programs that only read or write the data they
    // name, unless the line runs text it makes (`cat setup | sh`), when only the writers'
    // are data.
    let writer = name.is_some_and(|n| WRITERS.contains(&n));
    let reader = name.is_some_and(|n| READERS.contains(&n));
    let args_may_run = !writer && (runs_text || !reader);
    if args_may_run {
        // `NAME=value`, `--rcfile=value`, `if=value`: the value may name the file too
        // (`BASH_ENV=g bash -c true`, `f=g; bash $f`).
        for word in words {
            if let Some((_, value)) = word.split_once('=').filter(|(name, _)| !name.is_empty()) {
                push(expand_placeholders(value, known), true, false);
            }
        }
        // Code in a string (`-c`, `-e`, `env -S`): each distinct name in it, however many (a cap
        // would let the file that runs stand past it: red-team pass 11).
        let mut seen = std::collections::HashSet::new();
        for word in words.iter().filter(|w| w.contains(|c: char| !is_name_char(c))) {
            let word = expand_placeholders(word, known);
            for token in word.split(|c: char| !is_name_char(c)) {
                if token != word
                    && token.chars().any(|c| c.is_alphanumeric())
                    && seen.insert(token.to_string())
                {
                    push(token.to_string(), true, false);
                }
            }
        }
    }
    // A task runner runs the tasks of the file it finds where it runs (`make lint` runs the
    // Makefile's): that file is named to run.
    for file in name.map(implicit_files).unwrap_or_default() {
        push((*file).to_string(), true, false);
    }
    // `python3 -m package.module` runs `package/module.py` (or its `__main__.py`), found
    // from the folder the hook runs in: named to run.
    for module in python_module(words) {
        push(module, true, false);
    }
    for word in words {
        let program = run.first().is_some_and(|p| std::ptr::eq(*p, word));
        let option = word.starts_with('-');
        let named_to_run =
            run.iter().any(|w| std::ptr::eq(*w, word)) || (args_may_run && !program && !option);
        if !named_to_run && option {
            continue;
        }
        let word_text = expand_placeholders(word, known);
        // A glob or a variable not known here where a file is run (`bash ./gu?rd.sh`, `bash
        // */guard.sh`, `for f in guard; do bash $f.sh; done`), or in a line that runs text it
        // makes (`bash $(ls *.sh)`): every project file it can be. (Not elsewhere: a
        // formatter's `--write "src/*.ts"` names the files it changes, not what runs.)
        let may_glob = run.iter().any(|w| std::ptr::eq(*w, word)) || (runs_text && !option);
        if may_glob && word_text.contains(['*', '?', '[', '$']) {
            for path in matching_files(project, &word_text) {
                push(path, named_to_run, program);
            }
            continue;
        }
        push(word_text, named_to_run, program);
    }
}

/// Whether `name` is a shell variable's name.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// At most this many files are taken from one glob.
const MAX_GLOB_MATCHES: usize = 64;

/// The files `word` can name, read as a glob from the project root (a relative word) with each
/// variable still in it (`$f`, `${f}`) as `*`: none for a word that names nothing in particular
/// (no letter or digit besides its wildcards: `*`, `$x`) or that holds a special parameter
/// (`$?`, `$1`: not a file's name).
fn matching_files(project: &Path, word: &str) -> Vec<String> {
    let mut pattern = String::with_capacity(word.len());
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            pattern.push(c);
            continue;
        }
        match chars.peek() {
            Some('{') => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
            }
            Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
                while chars
                    .next_if(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .is_some()
                {}
            }
            _ => return Vec::new(),
        }
        pattern.push('*');
    }
    if !pattern.chars().any(char::is_alphanumeric) {
        return Vec::new();
    }
    let pattern = if pattern.starts_with('/') {
        pattern
    } else {
        format!("{}/{pattern}", glob::Pattern::escape(&project.to_string_lossy()))
    };
    let options = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: true,
    };
    glob::glob_with(&pattern, options)
        .map(|paths| {
            paths
                .filter_map(Result::ok)
                .take(MAX_GLOB_MATCHES)
                .map(|p| p.to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `c` may stand in a file name as commands write them; any other character ends a name
/// inside a string of code.
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || "._/~+-@%,:$".contains(c)
}

/// The file a task runner takes its tasks from where it runs (`make` → `Makefile`): it runs what
/// that file says, so the file is named to run.
fn implicit_files(program: &str) -> &'static [&'static str] {
    match program {
        "make" | "gmake" => &["Makefile", "makefile", "GNUmakefile"],
        "npm" | "pnpm" | "yarn" | "bun" => &["package.json"],
        "just" => &["justfile", "Justfile", ".justfile"],
        "task" => &["Taskfile.yml", "Taskfile.yaml"],
        "rake" => &["Rakefile", "rakefile"],
        "deno" => &["deno.json", "deno.jsonc"],
        _ => &[],
    }
}

/// The simple commands of a shell line: one, or each of a line with operators
/// ([`loose_commands`]).
fn shell_line(line: &str, lookup: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Vec<Vec<String>> {
    match crate::shell_words::simple_command(line, lookup) {
        // The assignments stay words: a value may name what runs (`BASH_ENV=g bash -c true`).
        Ok(simple) => vec![[simple.assignments, simple.words].concat()],
        Err(_) => loose_commands(line),
    }
}

/// At most this many simple commands are read from one hook's command (its `-c` strings
/// included).
const MAX_COMMANDS: usize = 64;

/// The string a shell is given to run (`sh -c '…'`, `bash -ec '…'`), if `words` is such a call.
fn shell_string(words: &[String]) -> Option<String> {
    let run = run_words(words);
    let program = run.first()?;
    let name = file_name(program);
    if !["sh", "bash", "dash", "zsh", "ksh"].contains(&name) {
        return None;
    }
    let at = words.iter().position(|w| std::ptr::eq(w, *program))?;
    let mut args = words[at + 1..].iter();
    while let Some(arg) = args.next() {
        let short = arg.strip_prefix('-').filter(|f| !f.starts_with('-'));
        match short {
            Some(flags) if flags.contains('c') => return args.next().cloned(),
            Some(_) => continue,
            None => return None,
        }
    }
    None
}

/// For `python… -m module`: the files that module may be, relative (`a/b.py`, `a/b/__main__.py`
/// for `a.b`).
fn python_module(words: &[String]) -> Vec<String> {
    let run = run_words(words);
    let Some(program) = run.first() else {
        return Vec::new();
    };
    let name = file_name(program);
    if !name.starts_with("python") && !name.starts_with("pypy") {
        return Vec::new();
    }
    let Some(at) = words.iter().position(|w| std::ptr::eq(w, *program)) else {
        return Vec::new();
    };
    let args = &words[at + 1..];
    let Some(module) = args.iter().position(|a| a == "-m").and_then(|m| args.get(m + 1)) else {
        return Vec::new();
    };
    if module.is_empty()
        || !module
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return Vec::new();
    }
    let path = module.replace('.', "/");
    vec![format!("{path}.py"), format!("{path}/__main__.py")]
}

/// Whether `path` is a file the command runs: any file for a word named to run, a file that is
/// code ([`looks_like_code`]) for another word. One `stat`: most words name no file (a program
/// found on PATH, an argument), and resolving a path component by component costs a system call
/// per component (with a thousand plugins, most of a run's time went to resolving paths that do
/// not exist).
fn names_code(path: &Path, named_to_run: bool) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file() && (named_to_run || looks_like_code(path, &meta)))
}

/// Whether a file a command names, not as its program or an interpreter's script, is code all
/// the same: executable, or named as a script is.
fn looks_like_code(path: &Path, meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 != 0 {
            return true;
        }
    }
    #[cfg(not(unix))]
    let _ = meta;
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SCRIPT_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// The extensions of the files the interpreters below run (and `jq -f`, `awk -f` filters).
const SCRIPT_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "ksh", "fish", "py", "pyw", "js", "mjs", "cjs", "ts", "mts", "cts", "rb", "pl",
    "pm", "php", "lua", "ps1", "r", "tcl", "awk", "sed", "jq",
];

/// Programs that only write the files they name: in a line that runs text it makes
/// ([`runs_made_text`]), the files every other program names are pinned.
const WRITERS: &[&str] = &["tee", "touch", "mkdir", "rm", "rmdir", "truncate"];

/// Programs that only read the files they name, as data (neither runs nor hands on what it reads,
/// unless the line runs text it makes: [`runs_made_text`]): their arguments are not pinned unless
/// they are code. `sed` and `awk` are not among them (`sed e`, `awk '{system($0)}'` run the lines
/// they read).
const READERS: &[&str] = &[
    "cat",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "wc",
    "jq",
    "sort",
    "uniq",
    "diff",
    "cmp",
    "cut",
    "ls",
    "stat",
    "file",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "test",
    "[",
    "echo",
    "printf",
];

/// Whether a shell line runs text it makes rather than files it names: a command substitution or
/// process substitution, `eval`, `xargs`, or a shell or interpreter that reads its program on
/// stdin (no script named, or `-`).
fn runs_made_text(line: &str, commands: &[Vec<String>]) -> bool {
    line.contains("$(")
        || line.contains('`')
        || line.contains("<(")
        || commands.iter().any(|words| {
            let run = run_words(words);
            let Some(program) = run.first() else {
                return false;
            };
            let name = file_name(program);
            let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
            let interpreter = INTERPRETERS.contains(&name) || INTERPRETERS.contains(&base);
            ["eval", "xargs"].contains(&name)
                || (interpreter && run.get(1).is_none_or(|script| script.as_str() == "-"))
        })
}

/// The file name of a program word (`/usr/bin/cat` → `cat`; `.`, which has none, is itself).
fn file_name(word: &str) -> &str {
    match word {
        "." => ".",
        _ => Path::new(word).file_name().and_then(|n| n.to_str()).unwrap_or(""),
    }
}

/// Programs that run the file they are given: their first argument that is not an option is the
/// script.
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "fish",
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "tsx",
    "ts-node",
    "ruby",
    "perl",
    "php",
    "pwsh",
    "powershell",
    "lua",
    "Rscript",
    "osascript",
    // The shell's own: they run the file's text in the shell that reads them.
    ".",
    "source",
];

/// Programs whose `-f FILE` is the program they run (a filter script): that file is named to run.
const FILTERS: &[&str] = &["awk", "gawk", "mawk", "nawk", "sed", "gsed", "jq"];

/// Of one simple command's words: the program, and when the program is an interpreter (by its
/// file name, `python3.11` and `env python3` included), its script.
fn run_words(words: &[String]) -> Vec<&String> {
    let mut out = Vec::new();
    let mut rest = words;
    // `env [NAME=value…] program …`, leading assignments, and the shell's words before a command
    // (`do bash g`, `then ./g`, `! ./g`).
    while let Some((first, tail)) = rest.split_first() {
        let name = file_name(first);
        let assignment = first.contains('=') && !first.starts_with('=') && !first.contains('/');
        let keyword = [
            "if", "then", "else", "elif", "do", "while", "until", "!", "{", "time",
        ]
        .contains(&first.as_str());
        if name == "env" || assignment || keyword {
            rest = tail;
            continue;
        }
        break;
    }
    let Some((program, args)) = rest.split_first() else {
        return out;
    };
    out.push(program);
    let name = file_name(program);
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if INTERPRETERS.contains(&name) || INTERPRETERS.contains(&base) {
        if let Some(script) = args.iter().find(|a| !a.starts_with('-')) {
            out.push(script);
        }
    }
    if FILTERS.contains(&name) {
        out.extend(args.windows(2).filter(|w| w[0] == "-f").map(|w| &w[1]));
    }
    out
}

/// A line that is more than one simple command (`a.sh && b.sh`, pipes), split into its simple
/// commands' words, quotes removed and output redirections (with their targets) dropped. An
/// input redirection's target stays a word: a shell or an interpreter reads its script from
/// there (`bash < g.sh`), and it is pinned when it is code (an input of data, `< in.json`, is not).
fn loose_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    for segment in line.split(|c: char| ";|&\n()`".contains(c)) {
        let mut words = Vec::new();
        let mut tokens = segment.split_whitespace();
        while let Some(token) = tokens.next() {
            // Quotes removed wherever they stand (`set""up` is `setup` to the shell).
            let token: String = token.chars().filter(|c| *c != '"' && *c != '\'').collect();
            let token = token.as_str();
            let bare = token.trim_start_matches(|c: char| c.is_ascii_digit());
            if bare.starts_with('>') {
                // `> file`, `>> file`, `2> file`: the target is written, not run.
                if bare.trim_start_matches('>').is_empty() {
                    tokens.next();
                }
                continue;
            }
            if let Some(target) = bare.strip_prefix('<') {
                // `< file`, `<file`: read on stdin; `<<` and `<<<` are inline text.
                if target.starts_with('<') {
                    if target.trim_start_matches('<').is_empty() {
                        tokens.next(); // the delimiter or the text, apart
                    }
                    continue;
                }
                let target = match target.trim_matches(|c| c == '"' || c == '\'') {
                    "" => tokens.next().map(|t| t.trim_matches(|c| c == '"' || c == '\'')),
                    named => Some(named),
                };
                words.extend(target.filter(|t| !t.is_empty()).map(str::to_string));
                continue;
            }
            if !token.is_empty() {
                words.push(token.to_string());
            }
        }
        if !words.is_empty() {
            commands.push(words);
        }
    }
    commands
}

/// `$NAME` and `${NAME}` replaced where `placeholder` knows the name; other text as it is.
fn expand_placeholders(word: &str, placeholder: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = match after.strip_prefix('{') {
            Some(braced) => match braced.find('}') {
                // `${name:-word}`, `${name-word}`, `${name:=word}`: the word where the name is
                // not known here (red-team pass 11: `bash ${GUARD:-guard.sh}`).
                Some(end) => match braced[..end]
                    .split_once('-')
                    .or_else(|| braced[..end].split_once('='))
                {
                    Some((name, default)) if is_identifier(name.trim_end_matches(':')) => {
                        let value = placeholder(name.trim_end_matches(':'))
                            .unwrap_or_else(|| expand_placeholders(default, placeholder));
                        out.push_str(&value);
                        rest = &braced[end + 1..];
                        continue;
                    }
                    _ => (&braced[..end], &braced[end + 1..]),
                },
                None => ("", after),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        match (!name.is_empty()).then(|| placeholder(name)).flatten() {
            Some(value) => {
                out.push_str(&value);
                rest = tail;
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The entries of the project's `.mcp.json` that `names` call, each by digest.
fn project_servers(
    project: &Path,
    names: &[String],
    named: &mut std::collections::BTreeSet<PathBuf>,
) -> Vec<PinnedServer> {
    if names.is_empty() {
        return Vec::new();
    }
    let path = project.join(".mcp.json");
    let Ok(text) = crate::config::read_bounded(&path, crate::config::MAX_CONFIG_BYTES) else {
        return Vec::new();
    };
    let Ok(value) = serde_json::from_str::<Value>(&text) else {
        // Unreadable: pinned as such, so that it becoming readable is a change.
        return vec![PinnedServer {
            name: ".mcp.json".into(),
            digest: sha256_hex(text.as_bytes()),
        }];
    };
    let Some(servers) = value.get("mcpServers").and_then(Value::as_object) else {
        return Vec::new();
    };
    let root = canonical_project(project);
    let mut pinned: Vec<PinnedServer> = names
        .iter()
        .filter_map(|name| {
            let entry = servers.get(name)?;
            named.extend(server_files(entry, project, &root));
            Some(PinnedServer {
                name: name.clone(),
                digest: sha256_json(entry),
            })
        })
        .collect();
    pinned.sort_by(|a, b| a.name.cmp(&b.name));
    pinned
}

/// The files named inside the project that a stdio server's entry (`{"command", "args"}`) runs:
/// its program and the script an interpreter is given, and any other argument that names code, as
/// for a hook's exec form ([`files_named`]).
fn server_files(entry: &Value, project: &Path, root: &Path) -> Vec<PathBuf> {
    let Some(command) = entry.get("command").and_then(Value::as_str) else {
        return Vec::new();
    };
    let words: Vec<String> = std::iter::once(command.to_string())
        .chain(
            entry
                .get("args")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|a| a.as_str().map(str::to_string)),
        )
        .collect();
    let run = run_words(&words);
    let words = words.iter().filter_map(|word| {
        let named_to_run = run.iter().any(|w| std::ptr::eq(*w, word));
        (named_to_run || !word.starts_with('-')).then(|| (word.clone(), named_to_run))
    });
    files_named(words, project, root)
}

/// `(device, inode, size, mtime ns, ctime ns)` of `path`.
pub(crate) fn stat_key(path: &Path) -> Option<[u64; 5]> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ns = |secs: i64, nsec: i64| {
            (secs as u64)
                .wrapping_mul(1_000_000_000)
                .wrapping_add(nsec as u64)
        };
        Some([
            meta.dev(),
            meta.ino(),
            meta.size(),
            ns(meta.mtime(), meta.mtime_nsec()),
            ns(meta.ctime(), meta.ctime_nsec()),
        ])
    }
    #[cfg(not(unix))]
    {
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64);
        Some([0, 0, meta.len(), modified, 0])
    }
}

/// SHA-256 (hex) of a regular file's content (at most 64 MiB is read: a larger script is pinned
/// by its first 64 MiB and its size).
/// Not inlined, and its buffer on the heap: `run` checks the pins on every event but hashes a file
/// only when its `stat` changed, and a 64 KiB buffer in the caller's stack frame would be probed
/// (touched page by page: 16 page faults, about 60 µs of every `run`) even when nothing is hashed.
#[inline(never)]
fn hash_file(path: &Path) -> Option<String> {
    use std::io::Read;
    const MAX: u64 = 64 << 20;
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut hasher = Sha256::new();
    let mut reader = file.take(MAX);
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buffer[..n]),
            Err(_) => return None,
        }
    }
    hasher.update(meta.len().to_le_bytes());
    Some(format!("{:x}", hasher.finalize()))
}

/// [`sha256_hex`] of `value`'s compact JSON text, hashed as it is written (no copy of the text).
fn sha256_json(value: &Value) -> String {
    let mut hasher = Sha256::new();
    // Writing into a hasher cannot fail, and a `Value`'s keys are always strings.
    serde_json::to_writer(&mut hasher, value).expect("a JSON value serializes into a hasher");
    format!("{:x}", hasher.finalize())
}

/// The SHA-256 of `bytes`, in lowercase hex: the one digest of trust pins and the audit chain.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

#[cfg(test)]
mod hex_tests {
    use super::{sha256_hex, sha256_json};

    #[test]
    fn a_value_hashed_as_written_is_the_digest_of_its_text() {
        // Pins written when the text was built first must still match.
        let value =
            serde_json::json!({"command": "echo \"é\" \u{1}\n", "timeout": 1.5, "list": [null, true, -3]});
        assert_eq!(sha256_json(&value), sha256_hex(value.to_string().as_bytes()));
    }

    #[test]
    fn the_digest_is_the_standard_sha256_in_lowercase_hex() {
        // FIPS 180-2's vectors: a trust pin or an audit chain written before must still match.
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

#[cfg(test)]
mod run_words_tests {
    use super::run_words;

    /// The file a shell's `.`/`source` or a filter's `-f` runs is named to run: pinned whatever it
    /// looks like (red-team pass 8: `. ./setup` ran an edited `setup` with no review).
    #[test]
    fn the_file_a_dot_source_or_filter_runs_is_named_to_run() {
        let words = |line: &[&str]| -> Vec<String> { line.iter().map(|w| w.to_string()).collect() };
        for (line, script) in [
            (&[".", "./setup"][..], "./setup"),
            (&["source", "setup", "arg"][..], "setup"),
            (&["awk", "-f", "filt", "data"][..], "filt"),
            (&["jq", "-r", "-f", "prog", "in.json"][..], "prog"),
        ] {
            let line = words(line);
            let run: Vec<&String> = run_words(&line);
            assert!(run.iter().any(|w| w.as_str() == script), "{line:?}: {run:?}");
        }
        let data = words(&["awk", "{print}", "data"]);
        assert_eq!(run_words(&data).len(), 1, "a filter's data is not its program");
    }

    /// Which of a project's files a hook's command pins (red-team pass 9): a task runner's file,
    /// any file a wrapper's or a string of code's words name; not the data a reader or a writer
    /// names.
    #[test]
    fn what_a_command_line_pins() {
        use crate::config::{discover, DiscoveryOptions};
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path();
        for file in [
            "Makefile",
            "package.json",
            "g",
            "notes.md",
            "audit.log",
            "lint.sh",
        ] {
            std::fs::write(project.join(file), "x").unwrap();
        }
        let pinned = |command: &str| -> Vec<String> {
            let hooks = project.join(".amplifier/hooks");
            std::fs::create_dir_all(&hooks).unwrap();
            let file = serde_json::json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}});
            std::fs::write(hooks.join("hooks.json"), file.to_string()).unwrap();
            let set = discover(&DiscoveryOptions::new(project, None));
            super::current_pins(&set, project, None)
                .scripts
                .into_iter()
                .map(|s| s.path)
                .collect()
        };
        assert_eq!(pinned("make -s guard"), ["Makefile"]);
        assert_eq!(pinned("npm run --silent guard"), ["package.json"]);
        assert_eq!(pinned("nohup bash g"), ["g"]);
        assert_eq!(pinned("perl -e 'do \"g\"'"), ["g"]);
        assert_eq!(pinned("G=g sh -c true"), ["g"]);
        assert_eq!(pinned("cat notes.md; tee -a audit.log"), Vec::<String>::new());
        assert_eq!(pinned("cat notes.md | sh"), ["notes.md"]);
        assert_eq!(pinned("cat lint.sh"), ["lint.sh"], "a reader's file that is code");
        let padded: String = (0..200).map(|i| format!("a{i}=1;")).collect();
        assert_eq!(
            pinned(&format!("python3 -c \"{padded}exec(open('g').read())\"")),
            ["g"]
        );
        std::fs::create_dir_all(project.join("tools")).unwrap();
        std::fs::write(project.join("tools/Makefile"), "x").unwrap();
        assert_eq!(pinned("make -C tools lint"), ["Makefile", "tools/Makefile"]);
        assert_eq!(pinned("npm --prefix=tools run x"), ["package.json"]);
        // A glob, `${PWD}`, a variable the line sets or a loop's where a file runs (pass 10); not
        // a formatter's glob of the files it changes, nor a word that is only a variable.
        std::fs::create_dir_all(project.join("sub")).unwrap();
        std::fs::write(project.join("sub/guard"), "x").unwrap();
        std::fs::write(project.join("guard"), "x").unwrap();
        std::fs::write(project.join("app.ts"), "x").unwrap();
        std::fs::write(project.join("sub/mod.py"), "x").unwrap();
        for (command, expected) in [
            ("bash ./gu?rd", &["guard"][..]),
            ("bash ./gu[a]rd", &["guard"]),
            ("bash */guard", &["sub/guard"]),
            ("bash ${PWD}/guard", &["guard"]),
            ("x=uard; bash g$x", &["guard"]),
            ("for f in lint; do bash $f.sh; done", &["lint.sh"]),
            ("bash $(ls gu*)", &["guard"]),
            ("prettier --write '*.ts'", &[]),
            ("bash $X", &[]),
            ("true; s=$?; exit $s", &[]),
            // A folder the line moves to or searches, a default value, a long string (pass 11).
            ("cd sub && ./guard", &["guard", "sub/guard"]),
            (
                "cd \"$CLAUDE_PROJECT_DIR/sub\" && bash guard",
                &["guard", "sub/guard"],
            ),
            ("env -C sub bash guard", &["guard", "sub/guard"]),
            ("PYTHONPATH=sub python3 -m mod", &["sub/mod.py"]),
            ("bash ${G:-guard}", &["guard"]),
        ] {
            assert_eq!(pinned(command), expected, "{command}");
        }
    }
}
