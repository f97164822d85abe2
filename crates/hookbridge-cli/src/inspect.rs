//! `hookbridge list` and `hookbridge validate`: what is configured, and what is wrong with it.
//!
//! Output goes through `writeln!` on a locked, buffered stdout, never `println!`: a reader that
//! leaves early (`hookbridge list | head -1`) makes the write fail with a broken pipe, which `main`
//! turns into a quiet exit instead of a panic.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::Args;
use hookbridge_core::config::managed::{effective_sandbox, SandboxFloor};
use hookbridge_core::config::{HookKind, HookSet, HookSpec, MatcherGroup, OnFailure};
use hookbridge_core::diagnostics::{Diagnostic, Position, Severity};
use hookbridge_core::event::EventName;
use hookbridge_runner::hook_kinds::readiness;
use hookbridge_runner::process::warm::WarmMode;
use serde::Serialize;

use crate::{say, shown, ProjectArgs};

#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    project: ProjectArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct ValidateArgs {
    #[command(flatten)]
    project: ProjectArgs,
    /// Print the counts and every problem as JSON on stdout instead of text on stderr.
    #[arg(long)]
    json: bool,
    /// Colour the problems: `auto` on a terminal unless NO_COLOR is set, `always`, `never`.
    #[arg(long, value_enum, default_value_t = Color::Auto, value_name = "WHEN")]
    color: Color,
    /// How each problem is shown: `full` (the source line, a caret and a `help:` line, as rustc
    /// shows them) or `short` (one `path:line:col: severity: message` line, for editors and grep).
    #[arg(long, value_enum, default_value_t = ProblemFormat::Full, value_name = "FORMAT")]
    format: ProblemFormat,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemFormat {
    Full,
    Short,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// Discover the hooks `args` name, and the project they are for; warnings about where the project
/// came from go to stderr.
fn load_with_trust(args: &ProjectArgs) -> anyhow::Result<(crate::Loaded, std::path::PathBuf)> {
    let project = args.resolve_for_people()?;
    for warning in &project.warnings {
        say(format_args!("warning: {warning}"));
    }
    Ok((args.load(&project.dir), project.dir))
}

/// What policy holds back: the managed policy's rules in force (and how many hooks they hold),
/// the floor the user's own settings put under hooks' sandboxes, then how many of the project's
/// hooks trust holds, with the command that reviews them.
fn held_lines(loaded: &crate::Loaded, project: &std::path::Path) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(rules) = &loaded.set.managed {
        let held_by_policy = loaded
            .set
            .hooks()
            .filter(|(_, _, h)| {
                matches!(
                    h.held,
                    Some(
                        hookbridge_core::trust::Held::ManagedHooksOnly
                            | hookbridge_core::trust::Held::ProjectHooksNotAllowed
                    )
                )
            })
            .count();
        let rules_text = rules.in_force();
        lines.push(format!(
            "managed policy {}: {}{}",
            rules.path.display(),
            if rules_text.is_empty() {
                "no rule beyond its own hooks".to_string()
            } else {
                rules_text.join("; ")
            },
            if held_by_policy > 0 {
                format!(" ({held_by_policy} hook(s) held by it)")
            } else {
                String::new()
            }
        ));
    }
    let user_floor = loaded.set.user_sandbox.in_force();
    if !user_floor.is_empty() {
        let files: Vec<String> = loaded
            .set
            .user_sandbox_files
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        lines.push(format!(
            "your settings {}: {}",
            files.join(", "),
            user_floor.join("; ")
        ));
    }
    if loaded.trust.held > 0 {
        let line = hookbridge_core::trust::held_notice(loaded.trust.held, &loaded.trust.state, project);
        lines.push(line.trim_start_matches("hookbridge: ").to_string());
    }
    lines
}

/// The floor under the sandboxes of `set`'s hooks: the managed policy's, the user's settings' and
/// the project's trust's (`trust --sandboxed`), the strictest of them.
pub(crate) fn sandbox_floor(
    set: &hookbridge_core::config::HookSet,
    trust: &hookbridge_core::trust::Applied,
) -> SandboxFloor {
    set.sandbox_floor().stricter(trust.sandbox_floor())
}

/// `sandbox` in the words `list` and `test` use, and, where this machine cannot enforce it, what
/// happens to the hook instead under `floor`'s `sandboxUnavailable`.
pub(crate) fn sandbox_said(sandbox: &hookbridge_core::config::Sandbox, floor: &SandboxFloor) -> String {
    use hookbridge_core::config::managed::SandboxUnavailable;
    let Some(why) = hookbridge_runner::process::unenforceable(&sandbox.network) else {
        return sandbox.to_string();
    };
    let said = floor.where_unavailable();
    let instead = match said {
        SandboxUnavailable::Refuse => "the hook is not run",
        SandboxUnavailable::RunUnsandboxed => "the hook runs WITHOUT it",
    };
    format!(
        "{sandbox}, which this machine cannot enforce ({why}), so {instead} (sandboxUnavailable: {})",
        said.word()
    )
}

/// A sandbox for `list --json` and `test --json`: where the hook may write, whether it reaches the
/// network, what it may not read, which variables named as secrets it is given all the same (`env`), all of it in the words `list` uses (`said`), and, where this
/// machine cannot enforce it, why (`unenforceable`) and what happens instead (`whereUnavailable`:
/// `refuse` or `runUnsandboxed`).
pub(crate) fn sandbox_json(
    sandbox: &hookbridge_core::config::Sandbox,
    floor: &SandboxFloor,
) -> serde_json::Value {
    let write: Vec<String> = ["<project>", "<its temporary folder>"]
        .into_iter()
        .map(String::from)
        .chain(sandbox.write.iter().cloned())
        .collect();
    let unreadable: Vec<String> = hookbridge_runner::process::CREDENTIALS
        .iter()
        .map(|c| format!("~/{c}"))
        .collect();
    serde_json::json!({"write": write, "network": sandbox.network.to_json(), "unreadable": unreadable,
        "env": sandbox.env,
        "said": sandbox_said(sandbox, floor),
        "unenforceable": hookbridge_runner::process::unenforceable(&sandbox.network),
        "whereUnavailable": floor.where_unavailable().word()})
}

/// `on_failure` as the seed spells it (`warn` is Claude Code's fail-open default).
fn on_failure_word(on_failure: OnFailure) -> &'static str {
    match on_failure {
        OnFailure::Continue => "warn",
        OnFailure::Block => "block",
        OnFailure::Ignore => "ignore",
    }
}

/// Whether a command hook would run warm (`HOOKBRIDGE_WARM`), and if not why: `None` for other
/// hooks.
fn warm_of(
    hook: &hookbridge_core::config::HookSpec,
    floor: SandboxFloor,
    event: &hookbridge_core::event::EventName,
    project: &std::path::Path,
    mode: WarmMode,
) -> Option<Result<String, String>> {
    let mut options = hookbridge_runner::DispatchOptions::new(project);
    options.sandbox_floor = floor;
    hookbridge_runner::warm_plan(hook, event, &options, project, mode).map(|plan| {
        plan.map(|p| p.run.interpreter.display().to_string())
            .map_err(|why| why.to_string())
    })
}

/// A command hook whose text names Python (`python…`, a `.py` script).
fn names_python(hook: &hookbridge_core::config::HookSpec) -> bool {
    matches!(&hook.kind, HookKind::Command(c) if c.command.contains("python") || c.command.contains(".py"))
}

pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let (loaded, project) = load_with_trust(&args.project)?;
    let held = held_lines(&loaded, &project);
    let floor = sandbox_floor(&loaded.set, &loaded.trust);
    let set = loaded.set;
    // Managed policy's `warm: false` turns warm runs off whatever HOOKBRIDGE_WARM says.
    let warm_mode = match &set.managed {
        Some(rules) if !rules.warm => WarmMode::Off,
        _ => WarmMode::from_env(),
    };
    let listing = Listing {
        set: &set,
        project: &project,
        floor,
        warm_mode,
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    if args.json {
        let json = ListJson {
            hooks: set.hooks().map(|(e, g, h)| listing.hook_json(e, g, h)).collect(),
            disabled_by: set.disabled_by.as_deref(),
            held: &held,
            diagnostics: set.diagnostics.iter().map(ToString::to_string).collect(),
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(by) = &set.disabled_by {
        writeln!(
            out,
            "ALL HOOKS DISABLED by {} (disableAllHooks: true)\n",
            by.display()
        )?;
    }
    for line in &held {
        writeln!(out, "{}", shown::lines(line))?;
    }
    if !held.is_empty() {
        writeln!(out)?;
    }
    let mut current = None;
    for (event, group, hook) in set.hooks() {
        if current != Some(event) {
            writeln!(out, "{}", shown::field(event.as_str()))?;
            current = Some(event);
        }
        let matcher = group
            .matcher_text
            .as_deref()
            .filter(|m| !m.is_empty())
            .unwrap_or("*");
        let notes = listing.notes(event, group, hook);
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  [{}]", notes.join(", "))
        };
        writeln!(
            out,
            "  {:<16} {:<8} {}{}\n  {:<16} {:<8} ↳ {}:{}:{} ({})",
            shown::field(matcher),
            shown::field(hook.kind.type_name()),
            shown::field(hook.kind.label()),
            shown::lines(&notes),
            "",
            "",
            shown::field(&hook.source.path.to_string_lossy()),
            hook.position.line,
            hook.position.column,
            hook.source.scope.as_str()
        )?;
    }
    if set.hooks().next().is_none() {
        writeln!(out, "no hooks found")?;
    }
    if !set.diagnostics.is_empty() {
        writeln!(out, "\nproblems:")?;
        for d in &set.diagnostics {
            writeln!(out, "  {}", shown::lines(&d.to_string()))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// What `list` says of each hook, in words and as JSON.
struct Listing<'a> {
    set: &'a HookSet,
    project: &'a Path,
    floor: SandboxFloor,
    warm_mode: WarmMode,
}

/// `list --json`.
#[derive(Serialize)]
struct ListJson<'a> {
    hooks: Vec<ListedHook<'a>>,
    disabled_by: Option<&'a Path>,
    held: &'a [String],
    diagnostics: Vec<String>,
}

/// One hook in `list --json`.
#[derive(Serialize)]
struct ListedHook<'a> {
    event: &'a str,
    matcher: Option<&'a str>,
    matcher_error: Option<String>,
    #[serde(rename = "type")]
    type_name: &'static str,
    label: &'a str,
    #[serde(rename = "if")]
    condition: Option<&'a str>,
    args: Option<&'a [String]>,
    resolved_command: Option<&'a str>,
    timeout_s: Option<f64>,
    #[serde(rename = "async")]
    run_async: bool,
    warm: Option<WarmListing>,
    on_failure: &'static str,
    sandbox: Option<serde_json::Value>,
    written_as: Option<&'a str>,
    dialect: &'static str,
    disabled: Option<String>,
    held: Option<String>,
    runnable: bool,
    not_runnable_because: Option<String>,
    source: &'a Path,
    scope: &'static str,
    plugin: Option<&'a str>,
    line: usize,
    column: usize,
}

/// Whether a hook runs warm: `{"runs_warm": true, "interpreter": …}` or `{"runs_warm": false,
/// "why_not": …}`.
#[derive(Serialize)]
#[serde(untagged)]
enum WarmListing {
    Warm { runs_warm: bool, interpreter: String },
    NotWarm { runs_warm: bool, why_not: String },
}

impl Listing<'_> {
    fn warm(&self, hook: &HookSpec, event: &EventName) -> Option<Result<String, String>> {
        warm_of(hook, self.floor, event, self.project, self.warm_mode)
    }

    fn hook_json<'h>(
        &self,
        event: &'h EventName,
        group: &'h MatcherGroup,
        hook: &'h HookSpec,
    ) -> ListedHook<'h> {
        let command = match &hook.kind {
            HookKind::Command(c) => Some(c),
            _ => None,
        };
        let not_runnable_because = readiness(hook, &self.set.http_policy)
            .err()
            .map(|why| why.to_string());
        ListedHook {
            event: event.as_str(),
            matcher: group.matcher_text.as_deref(),
            matcher_error: group.matcher.as_ref().err().map(ToString::to_string),
            type_name: hook.kind.type_name(),
            label: hook.kind.label(),
            condition: hook.condition.as_ref().map(|c| c.text.as_str()),
            args: command.and_then(|c| c.args.as_deref()),
            resolved_command: command
                .filter(|c| c.resolved_command != c.command)
                .map(|c| c.resolved_command.as_str()),
            timeout_s: hook.timeout.map(|t| t.as_secs_f64()),
            run_async: command.is_some_and(|c| c.run_async),
            warm: self.warm(hook, event).map(|w| match w {
                Ok(interpreter) => WarmListing::Warm {
                    runs_warm: true,
                    interpreter,
                },
                Err(why_not) => WarmListing::NotWarm {
                    runs_warm: false,
                    why_not,
                },
            }),
            on_failure: on_failure_word(hook.on_failure),
            sandbox: effective_sandbox(hook, &self.floor)
                .as_deref()
                .map(|sandbox| sandbox_json(sandbox, &self.floor)),
            written_as: hook.seed_event.as_deref(),
            dialect: if hook.seed_event.is_some() {
                "seed"
            } else {
                "claude-code"
            },
            disabled: hook.disabled.as_ref().map(ToString::to_string),
            held: hook.held.as_ref().map(ToString::to_string),
            runnable: not_runnable_because.is_none(),
            not_runnable_because,
            source: &hook.source.path,
            scope: hook.source.scope.as_str(),
            plugin: hook.source.plugin.as_ref().map(|p| p.name.as_str()),
            line: hook.position.line,
            column: hook.position.column,
        }
    }

    /// The notes after a hook's line in `list`: why it does not run, how it runs.
    fn notes(&self, event: &EventName, group: &MatcherGroup, hook: &HookSpec) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(held) = &hook.held {
            let text = held.to_string();
            notes.push(format!("HELD{}", text.strip_prefix("held").unwrap_or(&text)));
        }
        if let Some(disabled) = &hook.disabled {
            notes.push(format!("DISABLED: {disabled}"));
        }
        if let Err(e) = &group.matcher {
            notes.push(format!("NEVER RUNS: {e}"));
        }
        if let Err(why) = readiness(hook, &self.set.http_policy) {
            notes.push(format!("SKIPPED: {why}"));
        }
        if let HookKind::Command(c) = &hook.kind {
            if c.run_async {
                notes.push("async".into());
            }
        }
        // Why a hook does not run warm is said only of commands that name Python: every shell
        // hook would say so otherwise (`list --json` has it for all).
        if self.warm_mode != WarmMode::Off {
            match self.warm(hook, event) {
                Some(Ok(interpreter)) => notes.push(format!("warm ({interpreter})")),
                Some(Err(why)) if names_python(hook) => notes.push(format!("not warm: {why}")),
                _ => {}
            }
        }
        if let Some(sandbox) = effective_sandbox(hook, &self.floor) {
            notes.push(sandbox_said(&sandbox, &self.floor));
        }
        if let Some(t) = hook.timeout.map(|t| t.as_secs_f64()) {
            notes.push(format!("timeout {t}s"));
        }
        if hook.on_failure != OnFailure::Continue {
            notes.push(format!("on_failure {}", on_failure_word(hook.on_failure)));
        }
        if let Some(written) = hook.seed_event.as_deref().filter(|w| *w != event.as_str()) {
            notes.push(format!("written as {written}"));
        }
        if let Some(p) = &hook.source.plugin {
            notes.push(format!("plugin {}", p.name));
        }
        notes
    }
}

pub fn validate(args: ValidateArgs) -> anyhow::Result<ExitCode> {
    let (loaded, project) = load_with_trust(&args.project)?;
    let held = held_lines(&loaded, &project);
    let project_servers = loaded.trust.project_servers_allowed();
    let set = loaded.set;
    let problems = problems(&set, &project, project_servers);
    let errors = problems.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = problems.len() - errors;
    let files = set.sources.len();
    let hooks = set.hooks().count();
    let written = if args.json {
        let listed: Vec<_> = problems
            .iter()
            .map(|d| {
                serde_json::json!({
                    "severity": d.severity.to_string(),
                    "file": d.file,
                    "line": d.position.map(|p| p.line),
                    "column": d.position.map(|p| p.column),
                    "key": d.key,
                    "message": d.message,
                })
            })
            .collect();
        let json = serde_json::json!({
            "files": files,
            "hooks": hooks,
            "errors": errors,
            "warnings": warnings,
            "held": held,
            "problems": listed,
        });
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?).and_then(|()| out.flush())
    } else {
        // Problems go to stderr; one that cannot be written is not a reason to fail differently.
        let choice = match args.color {
            Color::Auto => anstream::ColorChoice::Auto,
            Color::Always => anstream::ColorChoice::Always,
            Color::Never => anstream::ColorChoice::Never,
        };
        let mut err = BufWriter::new(anstream::AutoStream::new(std::io::stderr().lock(), choice));
        let mut sources = Sources::default();
        for d in &problems {
            let _ = write_problem(&mut err, d, &mut sources, args.format);
        }
        let _ = err.flush();
        drop(err);
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "{files} file(s), {hooks} hook(s), {errors} error(s), {warnings} warning(s)"
        )
        .and_then(|()| held.iter().try_for_each(|line| writeln!(out, "{line}")))
        .and_then(|()| out.flush())
    };
    written.or_else(|e| match e.kind() {
        // The reader left: the exit code still says whether the hooks are usable.
        std::io::ErrorKind::BrokenPipe => Ok(()),
        _ => Err(e),
    })?;
    Ok(if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Everything `validate` reports: what loading found, then what each enabled command hook would
/// start (a missing script is an error, a program not on PATH a warning) and whether each
/// `mcp_tool` hook's server is configured, then the hooks that cannot run here.
fn problems(
    set: &hookbridge_core::config::HookSet,
    project: &std::path::Path,
    project_servers: bool,
) -> Vec<Diagnostic> {
    let mut problems = set.diagnostics.clone();
    let home = hookbridge_runner::home::user_home().unwrap_or_default();
    let at = |d: Diagnostic, hook: &hookbridge_core::config::HookSpec| {
        let mut d = d.in_file(&hook.source.path);
        d.position = Some(hook.position);
        d.key = Some(hook.key.clone());
        d
    };
    let enabled = || set.hooks().filter(|(_, _, hook)| hook.disabled.is_none());
    for (_, _, hook) in enabled() {
        if let HookKind::McpTool(m) = &hook.kind {
            let home = (!home.as_os_str().is_empty()).then_some(home.as_path());
            if let Some(shadow) = hookbridge_runner::hook_kinds::mcp::shadowed_by_user(m, project, home) {
                problems.push(at(Diagnostic::warning(shadow), hook));
            }
            if let Some(why) =
                hookbridge_runner::hook_kinds::mcp::server_problem(hook, m, project, home, project_servers)
            {
                problems.push(at(
                    Diagnostic::error(format!("{why}: the hook fails every time")),
                    hook,
                ));
            }
            continue;
        }
        let HookKind::Command(c) = &hook.kind else {
            continue;
        };
        let mut vars: Vec<(&str, &std::path::Path)> = vec![
            ("CLAUDE_PROJECT_DIR", project),
            ("AMPLIFIER_PROJECT_DIR", project),
            ("AMPLIFIER_HOOKS_DIR", &hook.source.hooks_dir),
            ("HOME", &home),
        ];
        if let Some(p) = &hook.source.plugin {
            vars.push(("CLAUDE_PLUGIN_ROOT", &p.root));
            vars.push(("CLAUDE_PLUGIN_DATA", &p.data_dir));
        }
        let found = match &c.args {
            Some(args) => crate::preflight::check_exec(&c.resolved_command, args, project),
            None => crate::preflight::check(&c.resolved_command, &vars, project),
        };
        for problem in found {
            let d = match problem {
                crate::preflight::Problem::Missing(_) => Diagnostic::error(problem.to_string()),
                crate::preflight::Problem::NotOnPath(_) => Diagnostic::warning(problem.to_string()),
            };
            problems.push(at(d, hook));
        }
    }
    for (event, _, hook) in enabled() {
        if let Err(why) = readiness(hook, &set.http_policy) {
            let d = Diagnostic::error(format!("this {event} hook will be skipped: {why}"));
            problems.push(at(d, hook));
        }
    }
    problems
}

/// One problem as `validate` prints it, in rustc's form (annotate-snippets renders it): the
/// severity and message, `--> path:line:col`, the source line with a caret under the key or value
/// at fault, and a "did you mean" as a `help:` line. Styled always; the stream drops the styles off
/// a terminal, under NO_COLOR or `--color never`.
fn write_problem(
    out: &mut impl Write,
    d: &Diagnostic,
    sources: &mut Sources,
    format: ProblemFormat,
) -> std::io::Result<()> {
    use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
    let (message, help) = split_help(&d.message);
    let key = d.key.as_ref().map(|k| format!("`{k}`: ")).unwrap_or_default();
    let title = format!("{key}{message}");
    let level = match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let mut group = Group::with_title(level.primary_title(title));
    let path = d.file.as_ref().map(|f| f.display().to_string());
    match (&d.file, &path, d.position) {
        (Some(file), Some(path), Some(at)) => match sources.locate(file, at) {
            Some((text, span)) => {
                group = group.element(
                    Snippet::source(text)
                        .path(path.as_str())
                        .annotation(AnnotationKind::Primary.span(span)),
                );
            }
            None => {
                let origin = Origin::path(path.as_str()).line(at.line).char_column(at.column);
                group = group.element(origin);
            }
        },
        (_, Some(path), None) => group = group.element(Origin::path(path.as_str())),
        _ => {}
    }
    if let Some(help) = &help {
        group = group.element(Level::HELP.message(help.as_str()));
    }
    match format {
        ProblemFormat::Full => writeln!(out, "{}\n", Renderer::styled().render(&[group])),
        ProblemFormat::Short => {
            let renderer = Renderer::styled().short_message(true);
            writeln!(out, "{}", renderer.render(&[group]))
        }
    }
}

/// A message without its "; did you mean `x`?", and that hint on its own.
fn split_help(message: &str) -> (String, Option<String>) {
    const HINT: &str = "; did you mean `";
    let Some(start) = message.find(HINT) else {
        return (message.to_string(), None);
    };
    let rest = &message[start + 2..];
    let Some(end) = rest.find("`?") else {
        return (message.to_string(), None);
    };
    let help = rest[..end + 2].to_string();
    let remainder = &rest[end + 2..];
    (format!("{}{remainder}", &message[..start]), Some(help))
}

/// The files `validate` quotes from, each read once.
#[derive(Default)]
struct Sources {
    texts: std::collections::HashMap<std::path::PathBuf, Option<String>>,
}

impl Sources {
    /// The text of `file` and the byte span `at` points to: a quoted string starting there (a key
    /// or a JSON string value) whole, else the one character; `None` when the file cannot be read
    /// or has no such line.
    fn locate(&mut self, file: &std::path::Path, at: Position) -> Option<(&str, std::ops::Range<usize>)> {
        let text = self
            .texts
            .entry(file.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(file).ok())
            .as_deref()?;
        let line_start = if at.line <= 1 {
            0
        } else {
            text.match_indices('\n').nth(at.line - 2)?.0 + 1
        };
        let line = text[line_start..].split('\n').next().unwrap_or_default();
        let column = line
            .char_indices()
            .nth(at.column.saturating_sub(1))
            .map_or(line.len(), |(i, _)| i);
        let rest = &line[column..];
        let length = match rest.chars().next() {
            Some('"') => quoted_length(rest),
            Some(c) => c.len_utf8(),
            None => 0,
        };
        let start = line_start + column;
        Some((text, start..start + length))
    }
}

/// The length in bytes of the double-quoted string `text` starts with, escapes included; the whole
/// text when it is never closed.
fn quoted_length(text: &str) -> usize {
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return i + 1,
            _ => {}
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_json_says_whether_a_hook_runs_warm_in_both_shapes() {
        let warm = WarmListing::Warm {
            runs_warm: true,
            interpreter: "/usr/bin/python3".into(),
        };
        let not_warm = WarmListing::NotWarm {
            runs_warm: false,
            why_not: "switched off".into(),
        };
        assert_eq!(
            serde_json::to_value(warm).unwrap(),
            serde_json::json!({"runs_warm": true, "interpreter": "/usr/bin/python3"})
        );
        assert_eq!(
            serde_json::to_value(not_warm).unwrap(),
            serde_json::json!({"runs_warm": false, "why_not": "switched off"})
        );
    }

    #[test]
    fn a_did_you_mean_becomes_a_help_line() {
        assert_eq!(
            split_help(
                "unknown hook type `comand`; did you mean `command`? (expected …); this hook is skipped"
            ),
            (
                "unknown hook type `comand` (expected …); this hook is skipped".to_string(),
                Some("did you mean `command`?".to_string())
            )
        );
        assert_eq!(
            split_help("unknown key `timout`; ignored; did you mean `timeout`?"),
            (
                "unknown key `timout`; ignored".to_string(),
                Some("did you mean `timeout`?".to_string())
            )
        );
        assert_eq!(split_help("plain"), ("plain".to_string(), None));
    }

    fn located(text: &str, line: usize, column: usize) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hooks.json");
        std::fs::write(&file, text).unwrap();
        let mut sources = Sources::default();
        sources
            .locate(&file, Position { line, column })
            .map(|(text, span)| text[span].to_string())
    }

    #[test]
    fn the_span_is_the_quoted_key_or_value_at_the_position_else_one_character() {
        let text = "{\n  \"hooks\": {\"PreToolUs\": []},\n  \"é\": \"a\\\"b\", \"n\": 12\n}";
        assert_eq!(located(text, 2, 13).as_deref(), Some("\"PreToolUs\""));
        assert_eq!(located(text, 2, 14).as_deref(), Some("P"));
        assert_eq!(
            located(text, 3, 8).as_deref(),
            Some("\"a\\\"b\""),
            "escapes, after a multibyte key"
        );
        assert_eq!(located(text, 3, 21).as_deref(), Some("1"));
        assert_eq!(
            located(text, 3, 99).as_deref(),
            Some(""),
            "past the end: the end of the line"
        );
        assert_eq!(located(text, 9, 1), None);
        assert_eq!(located("{\"open", 1, 2).as_deref(), Some("\"open"));
    }

    #[test]
    fn a_problem_is_rendered_with_its_place_source_caret_and_help() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hooks.json");
        std::fs::write(&file, "{\n  \"hooks\": {\"PreToolUs\": []}\n}\n").unwrap();
        let mut d = Diagnostic::error("unknown event `PreToolUs`; did you mean `PreToolUse`?; ignored")
            .in_file(&file);
        d.position = Some(Position { line: 2, column: 13 });
        d.key = Some("hooks.PreToolUs".into());
        let mut out = Vec::new();
        write_problem(&mut out, &d, &mut Sources::default(), ProblemFormat::Full).unwrap();
        let mut short = Vec::new();
        write_problem(&mut short, &d, &mut Sources::default(), ProblemFormat::Short).unwrap();
        let short = anstream::adapter::strip_str(std::str::from_utf8(&short).unwrap()).to_string();
        assert_eq!(
            short.replace(&file.display().to_string(), "FILE"),
            "FILE:2:13: error: `hooks.PreToolUs`: unknown event `PreToolUs`; ignored\n"
        );
        let shown = anstream::adapter::strip_str(std::str::from_utf8(&out).unwrap()).to_string();
        let shown = shown.replace(&file.display().to_string(), "FILE");
        assert_eq!(
            shown,
            "error: `hooks.PreToolUs`: unknown event `PreToolUs`; ignored\n \
             --> FILE:2:13\n  \
             |\n\
             2 |   \"hooks\": {\"PreToolUs\": []}\n  \
             |             ^^^^^^^^^^^\n  \
             |\n  \
             = help: did you mean `PreToolUse`?\n\n"
        );
    }
}
