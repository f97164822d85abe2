//! The `hookbridge` command: a thin shell over the library.
//!
//! It owns argument parsing, exit codes and rendering, nothing else. `hookbridge run` can be Claude
//! Code's only hook, so its exit code and output are an answer Claude Code reads: usage errors exit
//! with 64 (never 2, which Claude Code would take as a block), internal failures exit 1 (a
//! non-blocking error: the agent carries on, as it does when a hook fails), and diagnostics never go
//! to stdout or stderr — they go to the diagnostics log and, with `--verbose`, to the terminal.

mod diagnostics_log;
mod inspect;
mod run;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit code for a command line hookbridge cannot understand (BSD `EX_USAGE`).
pub const EXIT_USAGE: u8 = 64;

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

#[derive(Subcommand, Debug)]
enum Command {
    /// Dispatch one event: read its JSON payload on stdin, run the hooks it reaches, answer as a
    /// Claude Code hook would (exit code, stdout, stderr).
    Run(run::RunArgs),
    /// List every configured hook, where it comes from, and every problem found loading them.
    List(inspect::ListArgs),
    /// Check hook configs; exits 1 if any hook or file cannot be used.
    Validate(inspect::ValidateArgs),
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

fn main() -> ExitCode {
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
    let result = match command {
        Command::Run(args) => run::run(args),
        Command::List(args) => inspect::list(args),
        Command::Validate(args) => inspect::validate(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("hookbridge: {err:#}");
            ExitCode::from(1)
        }
    }
}

impl ProjectArgs {
    /// The project directory, resolved as documented.
    pub fn project_dir(&self) -> anyhow::Result<PathBuf> {
        if let Some(dir) = &self.project_dir {
            return Ok(dir.clone());
        }
        for var in ["AMPLIFIER_PROJECT_DIR", "CLAUDE_PROJECT_DIR"] {
            if let Some(dir) = std::env::var_os(var).filter(|v| !v.is_empty()) {
                return Ok(PathBuf::from(dir));
            }
        }
        Ok(std::env::current_dir()?)
    }

    pub fn discovery(&self) -> anyhow::Result<hookbridge_core::config::DiscoveryOptions> {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let mut options =
            hookbridge_core::config::DiscoveryOptions::new(self.project_dir()?, home.as_deref());
        options.include_user = !self.no_user_hooks;
        options.include_project = !self.no_project_hooks;
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
