//! `hookbridge list` and `hookbridge validate`: what is configured, and what is wrong with it.
//!
//! Output goes through `writeln!` on a locked, buffered stdout, never `println!`: a reader that
//! leaves early (`hookbridge list | head -1`) makes the write fail with a broken pipe, which `main`
//! turns into a quiet exit instead of a panic.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use clap::Args;
use hookbridge_core::config::{discover, HookKind, OnFailure};
use hookbridge_core::diagnostics::{Diagnostic, Severity};
use hookbridge_runner::hook_kinds::readiness;

use crate::{say, ProjectArgs};

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
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// Discover the hooks `args` name, and the project they are for; warnings about where the project
/// came from go to stderr.
fn load(args: &ProjectArgs) -> anyhow::Result<(hookbridge_core::config::HookSet, std::path::PathBuf)> {
    let project = args.resolve_for_people()?;
    for warning in &project.warnings {
        say(format_args!("warning: {warning}"));
    }
    Ok((discover(&args.discovery(&project.dir)), project.dir))
}

/// `on_failure` as the seed spells it (`warn` is Claude Code's fail-open default).
fn on_failure_word(on_failure: OnFailure) -> &'static str {
    match on_failure {
        OnFailure::Continue => "warn",
        OnFailure::Block => "block",
        OnFailure::Ignore => "ignore",
    }
}

pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let (set, _) = load(&args.project)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if args.json {
        let hooks: Vec<_> = set
            .hooks()
            .map(|(event, group, hook)| {
                serde_json::json!({
                    "event": event.as_str(),
                    "matcher": group.matcher_text,
                    "matcher_error": group.matcher.as_ref().err().map(ToString::to_string),
                    "type": hook.kind.type_name(),
                    "label": hook.kind.label(),
                    "if": hook.condition.as_ref().map(|c| c.text.clone()),
                    "args": match &hook.kind {
                        HookKind::Command(c) => c.args.clone(),
                        _ => None,
                    },
                    "resolved_command": match &hook.kind {
                        HookKind::Command(c) if c.resolved_command != c.command => Some(c.resolved_command.clone()),
                        _ => None,
                    },
                    "timeout_s": hook.timeout.map(|t| t.as_secs_f64()),
                    "async": matches!(&hook.kind, HookKind::Command(c) if c.run_async),
                    "on_failure": on_failure_word(hook.on_failure),
                    "written_as": hook.seed_event.as_deref(),
                    "dialect": if hook.seed_event.is_some() { "seed" } else { "claude-code" },
                    "disabled": hook.disabled.as_ref().map(ToString::to_string),
                    "runnable": readiness(hook, &set.http_policy).is_ok(),
                    "not_runnable_because": readiness(hook, &set.http_policy).err(),
                    "source": hook.source.path,
                    "scope": hook.source.scope.as_str(),
                    "plugin": hook.source.plugin.as_ref().map(|p| &p.name),
                    "line": hook.position.line,
                    "column": hook.position.column,
                })
            })
            .collect();
        let diagnostics: Vec<_> = set.diagnostics.iter().map(ToString::to_string).collect();
        let json = serde_json::json!({
            "hooks": hooks,
            "disabled_by": set.disabled_by,
            "diagnostics": diagnostics,
        });
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
    let mut current = None;
    for (event, group, hook) in set.hooks() {
        if current != Some(event) {
            writeln!(out, "{event}")?;
            current = Some(event);
        }
        let matcher = group
            .matcher_text
            .as_deref()
            .filter(|m| !m.is_empty())
            .unwrap_or("*");
        let mut notes = Vec::new();
        if let Some(disabled) = &hook.disabled {
            notes.push(format!("DISABLED: {disabled}"));
        }
        if let Err(e) = &group.matcher {
            notes.push(format!("NEVER RUNS: {e}"));
        }
        if let Err(why) = readiness(hook, &set.http_policy) {
            notes.push(format!("SKIPPED: {why}"));
        }
        if let HookKind::Command(c) = &hook.kind {
            if c.run_async {
                notes.push("async".into());
            }
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
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  [{}]", notes.join(", "))
        };
        writeln!(
            out,
            "  {matcher:<16} {:<8} {}{notes}\n  {:<16} {:<8} ↳ {}:{}:{} ({})",
            hook.kind.type_name(),
            hook.kind.label(),
            "",
            "",
            hook.source.path.display(),
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
            writeln!(out, "  {d}")?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn validate(args: ValidateArgs) -> anyhow::Result<ExitCode> {
    let (set, project) = load(&args.project)?;
    let problems = problems(&set, &project);
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
            let _ = write_problem(&mut err, d, &mut sources);
        }
        let _ = err.flush();
        drop(err);
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "{files} file(s), {hooks} hook(s), {errors} error(s), {warnings} warning(s)"
        )
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
fn problems(set: &hookbridge_core::config::HookSet, project: &std::path::Path) -> Vec<Diagnostic> {
    let mut problems = set.diagnostics.clone();
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
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
            if let Some(why) = hookbridge_runner::hook_kinds::mcp::server_problem(hook, m, project, home) {
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

/// One problem as `validate` prints it: `path:line:col: severity: key: message` (the severity
/// coloured when the stream keeps colours), the source line with a caret, and a "did you mean" as
/// a `help:` line of its own.
fn write_problem(out: &mut impl Write, d: &Diagnostic, sources: &mut Sources) -> std::io::Result<()> {
    let (message, help) = split_help(&d.message);
    let mut place = String::new();
    if let Some(file) = &d.file {
        place.push_str(&file.display().to_string());
        if let Some(p) = d.position {
            place.push_str(&format!(":{}:{}", p.line, p.column));
        }
        place.push_str(": ");
    }
    let style = match d.severity {
        Severity::Error => anstyle::AnsiColor::Red.on_default().bold(),
        Severity::Warning => anstyle::AnsiColor::Yellow.on_default().bold(),
    };
    let key = d.key.as_ref().map(|k| format!("`{k}`: ")).unwrap_or_default();
    writeln!(out, "{place}{style}{}{style:#}: {key}{message}", d.severity)?;
    if let (Some(file), Some(at)) = (&d.file, d.position) {
        write!(out, "{}", sources.snippet(file, at.line, at.column))?;
    }
    if let Some(help) = help {
        let style = anstyle::AnsiColor::Cyan.on_default().bold();
        writeln!(out, "  {style}help{style:#}: {help}")?;
    }
    Ok(())
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

/// Characters of a line shown on each side of the column in a long (minified) line.
const SNIPPET_HALF_WIDTH: usize = 60;

impl Sources {
    /// Line `line` of `file` and a caret under `column` (both 1-based), as rustc shows them; empty
    /// when the file or the line cannot be read. A long line is cut to a window around the column.
    fn snippet(&mut self, file: &std::path::Path, line: usize, column: usize) -> String {
        let text = self
            .texts
            .entry(file.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(file).ok());
        let Some(source) = text.as_deref().and_then(|t| t.lines().nth(line.checked_sub(1)?)) else {
            return String::new();
        };
        let chars: Vec<char> = source.chars().map(|c| if c == '\t' { ' ' } else { c }).collect();
        let column = column.clamp(1, chars.len() + 1);
        let (start, end) = if chars.len() <= 2 * SNIPPET_HALF_WIDTH {
            (0, chars.len())
        } else {
            let start = column.saturating_sub(1 + SNIPPET_HALF_WIDTH);
            (start, (start + 2 * SNIPPET_HALF_WIDTH).min(chars.len()))
        };
        let mut shown: String = chars[start..end].iter().collect();
        let mut caret_at = column - 1 - start;
        if start > 0 {
            shown.insert(0, '…');
            caret_at += 1;
        }
        if end < chars.len() {
            shown.push('…');
        }
        let gutter = line.to_string();
        let pad = " ".repeat(gutter.len());
        format!(
            "  {gutter} | {}\n  {pad} | {}^\n",
            shown.trim_end(),
            " ".repeat(caret_at)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_snippet_shows_the_line_and_a_caret_under_the_column() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hooks.json");
        let long = format!("{{\"x\": \"{}\", \"comand\": 1}}", "a".repeat(200));
        std::fs::write(
            &file,
            format!("{{\n  \"hooks\": {{\"PreToolUs\": []}}\n}}\n{long}\n"),
        )
        .unwrap();
        let mut sources = Sources::default();
        assert_eq!(
            sources.snippet(&file, 2, 14),
            "  2 |   \"hooks\": {\"PreToolUs\": []}\n    |              ^\n"
        );
        let cut = sources.snippet(&file, 4, 211);
        let lines: Vec<&str> = cut.lines().collect();
        assert!(
            lines[0].starts_with("  4 | …") && lines[0].contains("\"comand\""),
            "{cut}"
        );
        let caret = lines[1].chars().position(|c| c == '^').unwrap();
        assert_eq!(lines[0].chars().nth(caret), Some('"'), "{cut}");
        assert_eq!(
            lines[0].chars().skip(caret).take(8).collect::<String>(),
            "\"comand\"",
            "{cut}"
        );
        assert_eq!(sources.snippet(&file, 99, 1), "");
        assert_eq!(sources.snippet(&dir.path().join("gone.json"), 1, 1), "");
    }
}
