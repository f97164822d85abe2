//! `hookbridge trust`: review a project's hooks and trust them, pinned to what was shown.
//!
//! A project's own hooks (`.amplifier/hooks/`) are held until its user trusts it (see
//! `hookbridge_core::trust`). This command shows what would run — each hook's event, matcher,
//! kind, command, URL or server and `file:line`, each script it pins and each MCP server — or,
//! once trusted, what changed since; and records trust after a yes on a terminal, or with `--yes`.
//! It reads files only: nothing of the project runs while it is reviewed.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use hookbridge_core::config::{HookSet, Scope};
use hookbridge_core::trust::{self, PinnedHook, ProjectPins, TrustRecord, TrustState, TrustStore};

use crate::{shown, ProjectArgs, UsageError};

#[derive(clap::Args, Debug)]
pub struct TrustArgs {
    /// The project to review (default: as for `list`: --project-dir, $AMPLIFIER_PROJECT_DIR,
    /// $CLAUDE_PROJECT_DIR, the nearest folder with `.amplifier/`, the current directory).
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Trust without asking (what is trusted is still printed).
    #[arg(long, short = 'y')]
    yes: bool,
    /// Trust the hooks' configuration only: the scripts they run are not pinned, so editing them
    /// does not hold the project again. For a user who edits their own hook scripts all day; it
    /// gives up noticing a changed script (a `git pull` that rewrites `guard.sh` runs at once).
    #[arg(long)]
    config_only: bool,
    /// Trust the project's hooks to run sandboxed: each of its command hooks runs in the default
    /// sandbox where it asks for none (the book, docs/sandbox.md). At the question, `s` says the same.
    /// It stays on every later trust of the project; `--revoke` and a new trust lift it.
    #[arg(long)]
    sandboxed: bool,
    /// List the projects this user trusts.
    #[arg(long, conflicts_with_all = ["yes", "config_only", "sandboxed", "revoke"])]
    list: bool,
    /// Take back the trust in the project: its hooks are held again.
    #[arg(long, conflicts_with_all = ["yes", "config_only", "sandboxed"])]
    revoke: bool,
    #[command(flatten)]
    project: ProjectArgs,
}

pub fn trust(args: TrustArgs) -> anyhow::Result<ExitCode> {
    let store = TrustStore::open_default().context("finding the trust records")?;
    if args.list {
        return list(&store);
    }
    let project = project_of(&args)?;
    if args.revoke {
        return revoke(&store, &project);
    }
    // Every hook, the project's unheld: what would run once trusted.
    let set = hookbridge_core::config::discover(&args.project.discovery(&project));
    let record = match store.record_for(&project) {
        Ok(record) => record,
        Err(e) => {
            println!("warning: {e}");
            None
        }
    };
    let pins = trust::current_pins(&set, &project, None);
    let review = Review {
        project: &project,
        state: trust::check(record.as_ref(), &pins),
        // Sandboxed once, sandboxed on every trust after (a review after a `git pull` keeps it);
        // lifting it is a revoke and a new trust.
        was_sandboxed: record.as_ref().is_some_and(|r| r.sandboxed),
        record: record.as_ref(),
        pins: &pins,
    };
    let sandboxed = args.sandboxed || review.was_sandboxed;
    let mut out = std::io::stdout().lock();
    for d in set
        .diagnostics
        .iter()
        .filter(|d| d.severity == hookbridge_core::diagnostics::Severity::Error)
    {
        writeln!(out, "problem: {d}")?;
    }
    if review.show(&mut out, &args, sandboxed)? == Shown::NothingToDo {
        return Ok(ExitCode::SUCCESS);
    }
    review.show_notes(&mut out, &set, &args)?;
    out.flush()?;
    drop(out);
    if review.was_sandboxed && !args.sandboxed {
        println!(
            "Its hooks stay sandboxed, as you trusted it before (to lift that: hookbridge trust --revoke, then trust it again)."
        );
    }
    let sandboxed = match args.yes {
        true => sandboxed,
        false => match confirm(&format!("Trust {}?", project.display()), sandboxed)? {
            Answer::No => {
                println!("Not trusted: the project's hooks stay held.");
                return Ok(ExitCode::from(1));
            }
            Answer::Yes => sandboxed,
            Answer::Sandboxed => true,
        },
    };
    // What is recorded is what was shown (the files are not read again after the question).
    let mut record = TrustRecord::new(&project, pins, args.config_only);
    record.sandboxed = sandboxed;
    let path = store.save(&project, &record)?;
    println!(
        "Trusted {}{}{} (recorded in {}).",
        project.display(),
        if args.config_only {
            ", its configuration only"
        } else {
            ""
        },
        if sandboxed { ", its hooks sandboxed" } else { "" },
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The project `trust` is about: `DIR`, or the project of the current directory; canonical.
fn project_of(args: &TrustArgs) -> anyhow::Result<PathBuf> {
    let dir = match &args.dir {
        Some(dir) => {
            let abs = std::path::absolute(dir).with_context(|| format!("{}", dir.display()))?;
            if !abs.is_dir() {
                return Err(UsageError(format!("{} is not a directory", dir.display())).into());
            }
            abs
        }
        None => args.project.resolve_for_people()?.dir,
    };
    Ok(std::fs::canonicalize(&dir).unwrap_or(dir))
}

/// What the user is shown before the trust question: the project's state against its record.
struct Review<'a> {
    project: &'a Path,
    state: TrustState,
    record: Option<&'a TrustRecord>,
    pins: &'a ProjectPins,
    was_sandboxed: bool,
}

/// Whether there is a question to ask after the review.
#[derive(PartialEq, Eq)]
enum Shown {
    /// Nothing to trust, or trusted as asked and unchanged: said so, nothing asked.
    NothingToDo,
    AskToTrust,
}

impl Review<'_> {
    /// The project's state and what would run once trusted (or what changed).
    fn show(&self, out: &mut impl Write, args: &TrustArgs, sandboxed: bool) -> std::io::Result<Shown> {
        let project = self.project.display();
        let config_only = self.record.is_some_and(|r| r.config_only);
        let trusted_when = || self.record.map(|r| when(r.trusted_at)).unwrap_or_default();
        match &self.state {
            TrustState::NothingToTrust => {
                writeln!(
                    out,
                    "{project} has no hooks of its own (.amplifier/hooks/): nothing to trust."
                )?;
                return Ok(Shown::NothingToDo);
            }
            TrustState::Trusted if sandboxed && !self.was_sandboxed => {
                writeln!(
                    out,
                    "{project} is trusted; trusting it with its hooks sandboxed now:"
                )?;
                show_all(out, self.pins)?;
            }
            TrustState::Trusted if !args.config_only && config_only => {
                writeln!(
                    out,
                    "{project} is trusted for its configuration only; trusting its scripts too:"
                )?;
                show_all(out, self.pins)?;
            }
            TrustState::Trusted => {
                writeln!(
                    out,
                    "{project} is trusted ({}), and nothing its hooks run has changed since: {} hook(s){}{}.",
                    trusted_when(),
                    self.pins.hooks.len(),
                    if config_only { ", configuration only" } else { "" },
                    if self.was_sandboxed {
                        ", its hooks sandboxed"
                    } else {
                        ""
                    }
                )?;
                return Ok(Shown::NothingToDo);
            }
            TrustState::Untrusted => {
                writeln!(
                    out,
                    "{project} is not trusted. Once trusted, these hooks of the project run:"
                )?;
                show_all(out, self.pins)?;
            }
            TrustState::Changed(diff) => {
                writeln!(
                    out,
                    "{project} was trusted ({}); since then what its hooks run has changed, so they are held:",
                    trusted_when()
                )?;
                show_diff(out, diff)?;
            }
        }
        Ok(Shown::AskToTrust)
    }

    /// What the decision does not cover: the user's own hooks, and what is not pinned.
    fn show_notes(&self, out: &mut impl Write, set: &HookSet, args: &TrustArgs) -> std::io::Result<()> {
        let user_hooks = set
            .hooks()
            .filter(|(_, _, h)| h.source.scope != Scope::Project)
            .count();
        if user_hooks > 0 {
            writeln!(
                out,
                "({user_hooks} hook(s) of your own, from ~/.amplifier/hooks, run whatever you decide.)"
            )?;
        }
        if args.config_only {
            writeln!(
                out,
                "--config-only: the scripts above are not pinned; editing them will not hold the project again."
            )?;
        } else if !self.pins.scripts.is_empty() || !self.pins.hooks.is_empty() {
            writeln!(
                out,
                "Not pinned: what these scripts import or read (other modules, node_modules, data files)."
            )?;
        }
        Ok(())
    }
}

/// The answer to the trust question.
enum Answer {
    No,
    Yes,
    /// Yes, with the project's hooks sandboxed.
    Sandboxed,
}

/// A yes (or `s`: yes, sandboxed) on a terminal; anything else, or no terminal, is a no. With
/// `sandboxed` (`--sandboxed`) a yes is already a sandboxed one.
fn confirm(question: &str, sandboxed: bool) -> anyhow::Result<Answer> {
    if !std::io::stdin().is_terminal() {
        println!("{question} (not asked: stdin is not a terminal; run with --yes to trust)");
        return Ok(Answer::No);
    }
    match sandboxed {
        true => print!("{question} (its hooks sandboxed) [y/N] "),
        false => print!("{question} [y/N, s: yes, with its hooks sandboxed] "),
    }
    std::io::stdout().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(match line.trim() {
        "y" | "Y" | "yes" | "Yes" | "YES" => Answer::Yes,
        "s" | "S" | "sandboxed" => Answer::Sandboxed,
        _ => Answer::No,
    })
}

/// One hook as the review shows it: every field a project wrote escaped ([`shown::field`]), so
/// that no control sequence in it can make the line read as another hook.
fn hook_line(h: &PinnedHook) -> String {
    let matcher = h
        .matcher
        .as_deref()
        .map(|m| format!(" [{}]", shown::field(m)))
        .unwrap_or_default();
    let sandbox = h
        .sandbox
        .as_deref()
        .map(|s| format!("\n      {}", shown::field(s)))
        .unwrap_or_default();
    format!(
        "{}{matcher}  {}  {}\n      at {}:{}:{}{sandbox}",
        shown::field(&h.event),
        shown::field(&h.kind),
        shown::field(&h.label),
        shown::field(&h.source),
        h.line,
        h.column
    )
}

fn show_all(out: &mut impl Write, pins: &ProjectPins) -> std::io::Result<()> {
    writeln!(out, "  hooks ({}):", pins.hooks.len())?;
    for h in &pins.hooks {
        writeln!(out, "    {}", hook_line(h))?;
    }
    if !pins.scripts.is_empty() {
        writeln!(
            out,
            "  scripts their commands name, pinned by content ({}):",
            pins.scripts.len()
        )?;
        for s in &pins.scripts {
            writeln!(out, "    {}  sha256:{}", shown::field(&s.path), &s.sha256[..16])?;
        }
    }
    if !pins.servers.is_empty() {
        writeln!(
            out,
            "  MCP servers that hooks call (the project's .mcp.json; plugin:…, a plugin's own):"
        )?;
        for s in &pins.servers {
            writeln!(out, "    {}  sha256:{}", shown::field(&s.name), &s.digest[..16])?;
        }
    }
    Ok(())
}

fn show_diff(out: &mut impl Write, diff: &trust::Diff) -> std::io::Result<()> {
    for h in &diff.hooks_added {
        writeln!(out, "  + added    {}", hook_line(h))?;
    }
    for (before, now) in &diff.hooks_changed {
        writeln!(out, "  ~ changed  {}", hook_line(now))?;
        writeln!(
            out,
            "      was    {}  {}",
            shown::field(&before.kind),
            shown::field(&before.label)
        )?;
    }
    for h in &diff.hooks_removed {
        writeln!(out, "  - removed  {}", hook_line(h))?;
    }
    for s in &diff.scripts_changed {
        writeln!(out, "  ~ script changed: {}", shown::field(s))?;
    }
    for s in &diff.scripts_added {
        writeln!(out, "  + script now named by a hook: {}", shown::field(s))?;
    }
    for s in &diff.scripts_removed {
        writeln!(out, "  - script no longer named: {}", shown::field(s))?;
    }
    for s in &diff.servers_changed {
        writeln!(out, "  ~ MCP server a hook calls: {}", shown::field(s))?;
    }
    Ok(())
}

fn when(unix: u64) -> String {
    humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_secs(unix))
        .to_string()
}

fn list(store: &TrustStore) -> anyhow::Result<ExitCode> {
    let records = store.list()?;
    if records.is_empty() {
        println!("No project is trusted (records in {}).", store.dir().display());
    }
    for record in records {
        match record {
            Ok(r) => println!(
                "{}  {} hook(s), {} script(s){}{}  trusted {}",
                r.project,
                r.pins.hooks.len(),
                r.pins.scripts.len(),
                if r.config_only { ", configuration only" } else { "" },
                if r.sandboxed { ", sandboxed" } else { "" },
                when(r.trusted_at)
            ),
            Err(e) => println!("ignored: {e}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn revoke(store: &TrustStore, project: &Path) -> anyhow::Result<ExitCode> {
    if store.revoke(project)? {
        println!("{} is no longer trusted: its hooks are held.", project.display());
    } else {
        println!("{} was not trusted.", project.display());
    }
    Ok(ExitCode::SUCCESS)
}
