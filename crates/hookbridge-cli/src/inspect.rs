//! `hookbridge list` and `hookbridge validate`: what is configured, and what is wrong with it.
//!
//! Output goes through `writeln!` on a locked, buffered stdout, never `println!`: a reader that
//! leaves early (`hookbridge list | head -1`) makes the write fail with a broken pipe, which `main`
//! turns into a quiet exit instead of a panic.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use clap::Args;
use hookbridge_core::config::{discover, HookKind};
use hookbridge_core::diagnostics::Severity;
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
}

/// Discover the hooks `args` name; warnings about where the project came from go to stderr.
fn load(args: &ProjectArgs) -> anyhow::Result<hookbridge_core::config::HookSet> {
    let project = args.resolve()?;
    for warning in &project.warnings {
        say(format_args!("warning: {warning}"));
    }
    Ok(discover(&args.discovery(&project.dir)))
}

pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let set = load(&args.project)?;
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
    let set = load(&args.project)?;
    // Problems go to stderr; one that cannot be written is not a reason to fail differently.
    let mut err = BufWriter::new(std::io::stderr().lock());
    let mut errors = set
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    for d in &set.diagnostics {
        let _ = writeln!(err, "{d}");
    }
    let project = args.project.resolve()?.dir;
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    let mut warnings = 0;
    for (_, _, hook) in set.hooks() {
        let HookKind::Command(c) = &hook.kind else {
            continue;
        };
        let mut vars: Vec<(&str, &std::path::Path)> = vec![
            ("CLAUDE_PROJECT_DIR", &project),
            ("AMPLIFIER_PROJECT_DIR", &project),
            ("AMPLIFIER_HOOKS_DIR", &hook.source.hooks_dir),
            ("HOME", &home),
        ];
        if let Some(p) = &hook.source.plugin {
            vars.push(("CLAUDE_PLUGIN_ROOT", &p.root));
            vars.push(("CLAUDE_PLUGIN_DATA", &p.data_dir));
        }
        let problems = match &c.args {
            Some(args) => crate::preflight::check_exec(&c.resolved_command, args, &project),
            None => crate::preflight::check(&c.resolved_command, &vars, &project),
        };
        for problem in problems {
            let severity = match problem {
                crate::preflight::Problem::Missing(_) => {
                    errors += 1;
                    "error"
                }
                crate::preflight::Problem::NotOnPath(_) => {
                    warnings += 1;
                    "warning"
                }
            };
            let _ = writeln!(
                err,
                "{}:{}:{}: {severity}: `{}`: {problem}",
                hook.source.path.display(),
                hook.position.line,
                hook.position.column,
                hook.key
            );
        }
    }
    for (event, _, hook) in set.hooks() {
        if let Err(why) = readiness(hook, &set.http_policy) {
            errors += 1;
            let _ = writeln!(
                err,
                "{}:{}:{}: error: `{}`: this {event} hook will be skipped: {why}",
                hook.source.path.display(),
                hook.position.line,
                hook.position.column,
                hook.key,
            );
        }
    }
    let _ = err.flush();
    drop(err);
    let files = set.sources.len();
    let hooks = set.hooks().count();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{files} file(s), {hooks} hook(s), {errors} error(s), {} warning(s)",
        warnings + set.diagnostics.len()
            - set
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count()
    )
    .and_then(|()| out.flush())
    .or_else(|e| match e.kind() {
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
