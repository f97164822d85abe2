//! The `hookbridge` command: a thin shell over the library.
//!
//! It owns argument parsing, exit codes and rendering, nothing else. `hookbridge run` can be Claude
//! Code's only hook, so its exit code and output are an answer Claude Code reads: usage errors exit
//! with 64 (never 2, which Claude Code would take as a block), internal failures exit 1 (a
//! non-blocking error: the agent carries on, as it does when a hook fails), and diagnostics never go
//! to stdout or stderr — they go to the diagnostics log and, with `--verbose`, to the terminal.
//!
//! Nothing may reach the host as a crash. The release build aborts on panic (`panic = "abort"`), so
//! unwinding cannot be caught; instead a panic hook, installed first thing, logs the panic and exits
//! 1 — the documented internal error — in every build profile alike, before the abort could happen.
//!
//! The entry point is a C `main` (`entry.rs`) where the standard library still reads the
//! arguments without its own start-up (glibc Linux, macOS): that start-up is a measurable share of
//! a one-hook `run` (`hookbridge_runner::start_up` keeps what of it hookbridge relies on). It is
//! the one item here allowed unsafe code (`no_mangle`); everything else forbids it.

#![deny(unsafe_code)]
#![cfg_attr(
    all(
        not(test),
        any(all(target_os = "linux", target_env = "gnu"), target_os = "macos")
    ),
    no_main
)]

mod agents;
mod audit;
mod diagnostics_log;
mod docs;
mod dry_run;
#[cfg(all(
    not(test),
    any(all(target_os = "linux", target_env = "gnu"), target_os = "macos")
))]
mod entry;
mod files;
mod hosts;
mod inspect;
mod install_into;
mod manage;
mod migrate;
mod preflight;
mod run;
mod serve;
mod shown;
mod trust;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit code for a command line hookbridge cannot understand (BSD `EX_USAGE`).
pub const EXIT_USAGE: u8 = 64;
/// Exit code for an internal error, a panic included: a non-blocking error to Claude Code.
pub const EXIT_INTERNAL: u8 = 1;

/// A command line (or path in it) that cannot be used: exits [`EXIT_USAGE`] with the message.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Write a line to stderr, ignoring failure: stderr that cannot be written (`2>/dev/full`, a closed
/// pipe) must not turn a message into a panic, which `eprintln!` would.
pub fn say(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "hookbridge: {line}");
}

#[derive(Parser, Debug)]
#[command(
    name = "hookbridge",
    version,
    about = "Run Claude Code hooks for any agent host"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where to find hooks.
#[derive(clap::Args, Debug, Clone)]
pub struct ProjectArgs {
    /// The project whose `.amplifier/hooks/` to use. Default: $AMPLIFIER_PROJECT_DIR, else
    /// $CLAUDE_PROJECT_DIR, else the current directory.
    #[arg(long, value_name = "DIR")]
    pub project_dir: Option<PathBuf>,
    /// Do not load `~/.amplifier/hooks/`.
    #[arg(long)]
    pub no_user_hooks: bool,
    /// Do not load `<project>/.amplifier/hooks/`.
    #[arg(long)]
    pub no_project_hooks: bool,
}

/// A project's hooks as loaded, and what trust did to them.
pub struct Loaded {
    pub set: hookbridge_core::config::HookSet,
    pub trust: hookbridge_core::trust::Applied,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Dispatch one event: read its JSON payload on stdin, run the hooks it reaches, answer as a
    /// Claude Code hook would (exit code, stdout, stderr).
    Run(run::RunArgs),
    /// List every configured hook, where it comes from, and every problem found loading them.
    List(inspect::ListArgs),
    /// Check hook configs; exits 1 if any hook or file cannot be used.
    Validate(inspect::ValidateArgs),
    /// Try one event against the real hooks (they run) and trace it: which hooks run and why the
    /// others do not, what each printed and returned, and the answer `run` would give.
    Test(dry_run::TestArgs),
    /// Register `hookbridge run` as the agent's hook for every event (`install-into claude`, `gemini`, `codex`), or
    /// remove it (`--remove`).
    ///
    /// Writes: one settings file, the one `--scope` names (Claude Code: `<project>/.claude/settings.json`,
    /// `<project>/.claude/settings.local.json` or `~/.claude/settings.json`; Gemini CLI: `.gemini/settings.json`;
    /// Codex CLI: `.codex/hooks.json`, in the project or in `~`), and in it only the hooks that run `hookbridge
    /// run`; it is replaced atomically, with its mode and owner, and only when something changed (if the agent
    /// writes it meanwhile, the edit is made again on the new content). Beside it, once:
    /// `<file>.hookbridge-backup`, the file as it was before hookbridge first changed it, with the file's mode and
    /// owner, never overwritten by a later run.
    ///
    /// Never touches: the file's other keys, their order and indentation, its other hooks, or any other file. A
    /// project or local settings file that leads outside the project (a symlink) is refused; a user-level one is
    /// written through its symlink (dotfiles).
    InstallInto(install_into::InstallIntoArgs),
    /// Install a plugin (a folder, a git URL or PLUGIN@MARKETPLACE) into the hooks directory.
    ///
    /// Writes: one folder, `<hooks dir>/<name>/` (the project's `.amplifier/hooks/`, or with `--user`
    /// `~/.amplifier/hooks/`): a copy of the plugin's regular files, folders and the symlinks that stay inside it
    /// (anything else, a FIFO or a link out, is left out and named), assembled in a hidden `.installing-*` folder
    /// there (a git source is cloned into it) and renamed into place; a plugin of the same name is replaced only
    /// with `--force`.
    ///
    /// Never touches: the source, the other plugins, or the hooks directory's own files (no plugin may be named
    /// `hooks.json`, `hooks.yaml`, `hooks.yml` or `hookbridge-state.json`). In a project, nothing outside it: a
    /// hooks directory that leads outside the project (a symlink) is refused.
    Install(manage::plugins::InstallArgs),
    /// Remove an installed plugin.
    Uninstall(manage::plugins::UninstallArgs),
    /// Switch a plugin or one hook (`EVENT:LABEL`) back on.
    Enable(manage::toggle::ToggleArgs),
    /// Switch a plugin or one hook (`EVENT:LABEL`) off; it stays listed, marked DISABLED.
    Disable(manage::toggle::ToggleArgs),
    /// Plugin catalogs in Claude Code's marketplace format: add, list, remove.
    Marketplace(manage::marketplace::MarketplaceArgs),
    /// Import another agent's hooks (Claude Code, Gemini CLI, Codex, Cursor, GitHub Copilot) into
    /// `<hooks dir>/from-<agent>/hooks.json`, listing what cannot be carried over.
    ///
    /// Reads: the agent's own hook configuration, the project's (with `--user`, the user-level files under `~`).
    ///
    /// Writes: one file, `<hooks dir>/from-<agent>/hooks.json` (the project's `.amplifier/hooks/`, or with `--user`
    /// `~/.amplifier/hooks/`), and its folder; an earlier migration's file is replaced only with `--force`.
    ///
    /// Never touches: the agent's files (its hooks keep running there until you remove them), or the other hooks
    /// and plugins of the hooks directory. In a project, nothing outside it: a `from-<agent>` folder or hooks
    /// directory that leads outside the project (a symlink, to `~/.amplifier/hooks` say) is refused.
    Migrate(migrate::MigrateArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(docs::CompletionsArgs),
    /// Print the man page (roff): `hookbridge man > hookbridge.1`.
    Man,
    /// Print a JSON Schema, for editors: of a hooks file (`hooks.json`, the default) or of a
    /// hook's JSON answer (`hook-output`).
    Schema(docs::SchemaArgs),
    /// This user's warm Python services (HOOKBRIDGE_WARM): show them (`--status`), stop them
    /// (`--stop`), or start one ahead of time.
    Serve(serve::ServeArgs),
    /// Review a project's hooks and trust them: until then they are held (user hooks always run).
    /// Trust is pinned to what was shown: a changed hook, script or MCP server holds them again.
    Trust(trust::TrustArgs),
    /// Read the audit log, where every hook run and every event's outcome is recorded (on by
    /// default: `~/.amplifier/hookbridge/audit.jsonl`; `HOOKBRIDGE_AUDIT_LOG` names another file, or
    /// `off`); `--verify` checks its hash chain.
    Log(audit::LogArgs),
    /// Per hook, from the audit log: runs, blocks, failures, timeouts, never launched, p50/p95/max
    /// duration, time added per tool call; the costliest first.
    Stats(audit::stats::StatsArgs),
    /// One session of the audit log as one self-contained HTML page: a timeline of its events
    /// and hooks (blocks and failures marked), each hook's latency distribution, the `stats` table.
    Report(audit::report::ReportArgs),
    /// (Internal) Post the OTLP export requests `run` spooled for the endpoint the `OTEL_*`
    /// variables name, until none has come for a moment: `run` answers and exits without waiting.
    #[command(name = "otel-export", hide = true)]
    OtelExport,
}

/// `hookbridge run` alone. The agent starts `run` once per event, so its start-up time is hook
/// latency: parsing only `run`'s own arguments (not the whole command tree) is measurably faster
/// cold (docs/benchmarks.md). Same arguments, help and errors as the `run` subcommand of [`Cli`].
#[derive(Parser, Debug)]
#[command(
    name = "hookbridge run",
    bin_name = "hookbridge run",
    about = "Dispatch one event: read its JSON payload on stdin, run the hooks it reaches, answer as a Claude Code hook would (exit code, stdout, stderr)."
)]
struct RunCli {
    #[command(flatten)]
    args: run::RunArgs,
}

/// The ordinary Rust entry point, where the C one (`entry.rs`) is not used.
#[cfg(not(all(
    not(test),
    any(all(target_os = "linux", target_env = "gnu"), target_os = "macos")
)))]
fn main() -> ExitCode {
    hookbridge()
}

/// The command: its arguments parsed, run, and its exit code (see `entry.rs` for how it is called).
fn hookbridge() -> ExitCode {
    install_panic_hook();
    let mut argv = std::env::args_os();
    let program = argv.next().unwrap_or_else(|| "hookbridge".into());
    let rest: Vec<std::ffi::OsString> = argv.collect();
    let parsed = if rest.first().is_some_and(|a| a == "run") {
        match run::RunArgs::parse_fast(rest[1..].iter().cloned()) {
            Some(args) => Ok(Command::Run(args)),
            None => RunCli::try_parse_from(
                std::iter::once("hookbridge run".into()).chain(rest.into_iter().skip(1)),
            )
            .map(|cli| Command::Run(cli.args)),
        }
    } else {
        Cli::try_parse_from(std::iter::once(program).chain(rest)).map(|cli| cli.command)
    };
    let command = match parsed {
        Ok(command) => command,
        Err(err) => {
            let code = match err.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => 0,
                _ => EXIT_USAGE,
            };
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    match command {
        Command::Run(args) => run::run(args).unwrap_or_else(|err| {
            // The host sees exit 64 or 1 and (if it can be written) one line on stderr; the log
            // keeps the line whatever happens to stderr.
            diagnostics_log::append("run", &[format!("{err:#}")]);
            failure(&err)
        }),
        Command::List(args) => inspect::list(args).unwrap_or_else(|err| quiet_on_broken_pipe(&err)),
        Command::Validate(args) => inspect::validate(args).unwrap_or_else(|err| quiet_on_broken_pipe(&err)),
        Command::Test(args) => dry_run::test(args).unwrap_or_else(|err| failure(&err)),
        Command::InstallInto(args) => install_into::install_into(args).unwrap_or_else(|err| failure(&err)),
        Command::Install(args) => manage::plugins::install(args).unwrap_or_else(|err| failure(&err)),
        Command::Uninstall(args) => manage::plugins::uninstall(args).unwrap_or_else(|err| failure(&err)),
        Command::Enable(args) => manage::toggle::enable(args).unwrap_or_else(|err| failure(&err)),
        Command::Disable(args) => manage::toggle::disable(args).unwrap_or_else(|err| failure(&err)),
        Command::Marketplace(args) => {
            manage::marketplace::marketplace(args).unwrap_or_else(|err| failure(&err))
        }
        Command::Migrate(args) => migrate::migrate(args).unwrap_or_else(|err| failure(&err)),
        Command::Completions(args) => docs::completions(args, <Cli as clap::CommandFactory>::command())
            .unwrap_or_else(|err| failure(&err)),
        Command::Schema(args) => docs::schema(args).unwrap_or_else(|err| failure(&err)),
        Command::Serve(args) => serve::serve(args).unwrap_or_else(|err| failure(&err)),
        Command::Trust(args) => trust::trust(args).unwrap_or_else(|err| failure(&err)),
        Command::Log(args) => audit::log(args).unwrap_or_else(|err| failure(&err)),
        Command::Stats(args) => audit::stats::stats(args).unwrap_or_else(|err| failure(&err)),
        Command::Report(args) => audit::report::report(args).unwrap_or_else(|err| failure(&err)),
        Command::OtelExport => run::otel_export(),
        Command::Man => {
            docs::man(<Cli as clap::CommandFactory>::command()).unwrap_or_else(|err| failure(&err))
        }
    }
}

/// The exit code of a failed command, its message on stderr.
fn failure(err: &anyhow::Error) -> ExitCode {
    say(format_args!("{err:#}"));
    if err.downcast_ref::<UsageError>().is_some() {
        ExitCode::from(EXIT_USAGE)
    } else {
        ExitCode::from(EXIT_INTERNAL)
    }
}

/// `hookbridge list | head -1`: the reader left, so there is nobody to tell; end quietly, as
/// `cat` or ripgrep do.
fn quiet_on_broken_pipe(err: &anyhow::Error) -> ExitCode {
    let broken_pipe = err
        .chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
    if broken_pipe {
        ExitCode::SUCCESS
    } else {
        failure(err)
    }
}

/// Log a panic and exit [`EXIT_INTERNAL`] from the hook itself, before the release profile's abort
/// (exit 134) or the unwinding of a debug build (exit 101) could reach the host.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| info.payload().downcast_ref::<String>().map(String::as_str))
            .unwrap_or("(no message)");
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let command: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        diagnostics_log::append(
            "hookbridge",
            &[format!(
                "internal error (panic{place}) in `{}`: {message}",
                command.join(" ")
            )],
        );
        say(format_args!("internal error (panic{place}): {message}"));
        std::process::exit(i32::from(EXIT_INTERNAL));
    }));
}

/// The project directory as resolved for one command, absolute.
pub struct Project {
    pub dir: PathBuf,
    /// Problems with where it came from that do not stop the command (an environment variable
    /// naming a folder that does not exist).
    pub warnings: Vec<String>,
}

impl ProjectArgs {
    /// The project directory, resolved as documented and made absolute: hooks run in the payload's
    /// `cwd`, so a relative path handed to them (`CLAUDE_PROJECT_DIR`, `${CLAUDE_PLUGIN_ROOT}`, …)
    /// would name another folder there. An explicit `--project-dir` that is not a directory is a
    /// [`UsageError`]; one from the environment is a warning (the user's hooks still run).
    pub fn resolve(&self) -> anyhow::Result<Project> {
        if let Some(dir) = &self.project_dir {
            let usage = |why: &str| UsageError(format!("--project-dir {}: {why}", dir.display()));
            let abs = std::path::absolute(dir).map_err(|e| usage(&e.to_string()))?;
            if let Some(why) = not_a_directory(&abs) {
                return Err(usage(&why).into());
            }
            return Ok(Project {
                dir: abs,
                warnings: Vec::new(),
            });
        }
        // Claude Code's variable first: it sets it for every hook over whatever the environment
        // held, while `AMPLIFIER_PROJECT_DIR` there may come from a project's settings. Either
        // counts only as an absolute folder path without `..`, outside `/proc` and `/dev`, and not
        // `/` (the project is what a sandboxed hook may write, and what guards compare paths
        // with: `..` or `/` would have made it the home or everything).
        let mut warnings = Vec::new();
        for var in ["CLAUDE_PROJECT_DIR", "AMPLIFIER_PROJECT_DIR"] {
            if let Some(dir) = std::env::var_os(var).filter(|v| !v.is_empty()) {
                let dir = PathBuf::from(dir);
                if !hookbridge_core::env_paths::usable_env_folder(&dir) || dir.parent().is_none() {
                    warnings.push(format!(
                        "{var}=`{}` ignored: not an absolute path without `..` outside /proc and /dev, nor / \
                         (a project's settings can set it)",
                        dir.display()
                    ));
                    continue;
                }
                warnings.extend(
                    not_a_directory(&dir)
                        .map(|why| format!("{var}={} {why}; no project hooks were loaded", dir.display())),
                );
                return Ok(Project { dir, warnings });
            }
        }
        Ok(Project {
            dir: std::env::current_dir()?,
            warnings,
        })
    }

    /// [`ProjectArgs::resolve`] for the commands people type (`list`, `validate`, `test`,
    /// `install-into`, the management commands): with neither `--project-dir` nor a variable, the
    /// project is the nearest folder from the current one up that holds `.amplifier/`, as cargo
    /// and git find theirs, stopping at the repository root (a folder with `.git`) and below the
    /// home directory (whose `.amplifier/` holds the user's hooks). Which one was used is said on
    /// stderr when it is not the current folder.
    pub fn resolve_for_people(&self) -> anyhow::Result<Project> {
        let explicit = self.project_dir.is_some()
            || ["CLAUDE_PROJECT_DIR", "AMPLIFIER_PROJECT_DIR"]
                .iter()
                .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
        let mut project = self.resolve()?;
        if !explicit {
            let home = manage::home();
            if let Some(found) = nearest_project(&project.dir, home.as_deref()) {
                if found != project.dir {
                    say(format_args!(
                        "using the project {} (it has .amplifier/)",
                        found.display()
                    ));
                    project.dir = found;
                }
            }
        }
        Ok(project)
    }

    /// The hooks of `project_dir`, with trust applied: the project's own are held until the user
    /// trusts the project as it is now (see `hookbridge_core::trust`). A trust record that cannot
    /// be believed is reported in the set's diagnostics.
    pub fn load(&self, project_dir: &Path) -> Loaded {
        let options = self.discovery(project_dir);
        let mut set = hookbridge_core::config::discover(&options);
        // Claude Code's own settings limit http hooks too (only narrowing what hookbridge's files
        // allow, level by level); read only where there is an http hook to limit.
        let has_http = set
            .hooks()
            .any(|(_, _, h)| matches!(h.kind, hookbridge_core::config::HookKind::Http(_)));
        if has_http {
            let home = options
                .user_hooks_dir
                .as_deref()
                .and_then(|d| d.parent()?.parent());
            for (level, file) in hookbridge_core::config::claude_code_settings_files(project_dir, home) {
                if let Some(limits) = hookbridge_core::config::limits_of_settings_file(&file) {
                    set.http_policy.absorb(level, limits);
                }
            }
        }
        let store = hookbridge_core::trust::TrustStore::open_default();
        let trust = hookbridge_core::trust::apply(&mut set, project_dir, store.as_ref());
        if let Some(problem) = &trust.problem {
            set.diagnostics
                .push(hookbridge_core::diagnostics::Diagnostic::warning(problem.clone()));
        }
        Loaded { set, trust }
    }

    /// Where to look for hooks of `project_dir` (from [`ProjectArgs::resolve`]); your folder is in
    /// your home ([`hookbridge_runner::home::user_home`]: a relative `HOME` is not yours).
    pub fn discovery(&self, project_dir: &Path) -> hookbridge_core::config::DiscoveryOptions {
        let home = manage::home();
        let mut options = hookbridge_core::config::DiscoveryOptions::new(project_dir, home.as_deref());
        options.include_user = !self.no_user_hooks;
        options.include_project = !self.no_project_hooks;
        options
    }
}

/// The nearest of `start` and its ancestors that holds `.amplifier/`, searching no further than
/// the repository root (the first folder with `.git`) and never reaching `home` or above it.
fn nearest_project(start: &Path, home: Option<&Path>) -> Option<PathBuf> {
    for dir in start.ancestors() {
        if home.is_some_and(|h| dir == h || h.starts_with(dir)) {
            return None;
        }
        if dir.join(".amplifier").is_dir() {
            return Some(dir.to_path_buf());
        }
        if dir.join(".git").exists() {
            return None;
        }
    }
    None
}

/// Why `dir` cannot be a project directory, if it cannot (one `stat`).
fn not_a_directory(dir: &Path) -> Option<String> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => None,
        Ok(_) => Some("is not a directory".into()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("does not exist".into()),
        Err(e) => Some(format!("cannot be read: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_is_the_nearest_folder_with_amplifier_inside_the_repository_and_below_home() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let repo = home.join("code/repo");
        let deep = repo.join("src/module");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(home.join(".amplifier/hooks")).unwrap();
        assert_eq!(
            nearest_project(&deep, Some(&home)),
            None,
            "the user's folder is not a project"
        );
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(tmp.path().join("home/code/.amplifier")).unwrap();
        assert_eq!(
            nearest_project(&deep, Some(&home)),
            None,
            "not above the repository root"
        );
        std::fs::create_dir_all(repo.join(".amplifier")).unwrap();
        assert_eq!(nearest_project(&deep, Some(&home)), Some(repo.clone()));
        std::fs::create_dir_all(deep.join(".amplifier")).unwrap();
        assert_eq!(nearest_project(&deep, Some(&home)), Some(deep.clone()));
    }

    /// The fast `run` parser and the `run` subcommand of the full tree accept the same command
    /// lines, with the same result, and refuse the same ones.
    #[test]
    fn run_parser_matches_the_run_subcommand() {
        let lines: &[&[&str]] = &[
            &["--event", "PreToolUse"],
            &[
                "--event=Stop",
                "--project-dir",
                "/tmp/p",
                "--format",
                "report",
                "-v",
            ],
            &[
                "--event",
                "X",
                "--no-user-hooks",
                "--no-project-hooks",
                "--default-timeout",
                "2.5",
            ],
            &["--event", "X", "--max-timeout", "10", "--format", "amplifier"],
            &["--event", "X", "--async-rewake-hooks", "only"],
            &[
                "--event",
                "X",
                "--async-rewake-hooks",
                "skip",
                "--project-dir",
                "/p",
            ],
            &["--event", "X", "--async-rewake-hooks", "detach"],
            &["--event", "X", "--async-hooks", "only"],
            &[
                "--event",
                "X",
                "--async-hooks",
                "skip",
                "--async-rewake-hooks",
                "skip",
            ],
            &[
                "--event",
                "X",
                "--async-rewake-hooks",
                "only",
                "--async-hooks",
                "only",
            ],
            &["--event", "X", "--async-rewake-hooks", "later"],
            &[
                "--event",
                "X",
                "--async-rewake-hooks",
                "only",
                "--async-rewake-hooks",
                "skip",
            ],
            &[],
            &["--event"],
            &["--event", "X", "--format", "yaml"],
            &["--event", "X", "--bogus"],
            &["--event", "X", "extra"],
            &["--event", ""],
            &["--event="],
            &["--event", "X", "--event", "Y"],
            &["--event", "X", "-v", "-v"],
            &["--event", "X", "-vv"],
            &["--event", "X", "--verbose=yes"],
            &["--event", "-X"],
            &["--event", "X", "--project-dir", "-p"],
            &["--event", "X", "--project-dir="],
            &["--event", "X", "--default-timeout", "abc"],
            &["--event", "X", "--default-timeout", "-1"],
            &["--event", "X", "--max-timeout=inf"],
            &["--event", "X", "--max-timeout", "inf"],
            &["--event", "X", "--max-timeout", "1e20"],
            &["--event", "X", "--default-timeout", "nan"],
            &["--event", "X", "--default-timeout", "0"],
            &["--event", "X", "--default-timeout=-5"],
            &["--event", "X", "--default-timeout", "0.001"],
            &["--event", "X", "--format", "Claude"],
            &["--event", "X", "--format=report", "--format", "claude"],
            &["--event", "X", "--"],
            &["--event", "X", "--", "more"],
            &["--even", "X"],
            &["--help"],
            &["-h"],
            &["--version"],
            &["-e", "X"],
        ];
        for line in lines {
            let fast = RunCli::try_parse_from(std::iter::once("hookbridge run").chain(line.iter().copied()))
                .map(|c| format!("{:?}", c.args));
            let full = Cli::try_parse_from(["hookbridge", "run"].into_iter().chain(line.iter().copied()))
                .map(|c| match c.command {
                    Command::Run(args) => format!("{args:?}"),
                    other => panic!("parsed as {other:?}"),
                });
            match (&fast, &full) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{line:?}"),
                (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{line:?}"),
                (a, b) => panic!("{line:?}: run parser {a:?}, full parser {b:?}"),
            }
            // The clap-free path accepts a subset of what clap accepts, with the same result.
            let args = line.iter().map(std::ffi::OsString::from);
            match (run::RunArgs::parse_fast(args), &full) {
                (None, _) => {}
                (Some(quick), Ok(b)) => assert_eq!(&format!("{quick:?}"), b, "{line:?}"),
                (Some(quick), Err(e)) => {
                    panic!("{line:?}: clap refuses ({e}) but the fast path read {quick:?}")
                }
            }
            assert_eq!(
                run::RunArgs::parse_fast(line.iter().map(std::ffi::OsString::from)).is_some(),
                full.is_ok() && !line.iter().any(|a| a.is_empty() || a.ends_with('=')),
                "{line:?}: the fast path should take every plain line clap accepts"
            );
        }
    }
}
