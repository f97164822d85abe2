//! hookbridge as a library, the whole path a host takes for one event: find the hooks, hold the
//! project's own until its user trusted them, apply the settings' limits, run every hook the event
//! reaches, and answer as Claude Code would. The README's "Three ways to use it" quotes this file;
//! `crates/hookbridge-runner/tests/embed_example.rs` runs it on the bundled example project.
//!
//! ```text
//! cargo run -p hookbridge-runner --example embed -- <project> PreToolUse < payload.json
//! ```
//!
//! It prints the exit code, stdout and stderr Claude Code would read from the hooks, and exits
//! with that code.

use std::io::Read;
use std::path::{Path, PathBuf};

use hookbridge_core::config::{discover, DiscoveryOptions};
use hookbridge_core::decision::{render_claude, ClaudeAnswer};
use hookbridge_core::event::{EventName, EventPayload};
use hookbridge_core::trust::{self, TrustStore};
use hookbridge_runner::{dispatch, DispatchOptions};

/// One event through the hooks of `project` (and of the user whose home is `home`), answered as
/// Claude Code would read it; with it, a line per hook that was not run and why.
pub fn answer(
    project: &Path,
    home: Option<&Path>,
    event: EventName,
    input: &[u8],
) -> Result<(ClaudeAnswer, Vec<String>), String> {
    let payload = EventPayload::parse(event.clone(), input).map_err(|e| e.to_string())?;
    // 1. Every hooks file of the project, the user and the managed policy, parsed once.
    let mut set = discover(&DiscoveryOptions::new(project, home));
    // 2. The project's own hooks, held by `discover`, run once `hookbridge trust` recorded what its
    //    user saw (skip this and none of them runs).
    let applied = trust::apply(&mut set, project, TrustStore::for_home(home).as_ref());
    // 3. What the settings and the trust decide for every hook: limits, the sandbox floor.
    let mut options = DispatchOptions::new(project);
    options.apply_settings(&set);
    options.apply_trust(&applied);
    // 4. Every hook the event reaches, in parallel; one merged decision.
    let report = dispatch(&set, &payload, &options);
    // 5. That decision in Claude Code's terms: exit code, stdout, stderr.
    let answer = render_claude(&event, report.match_query.as_deref(), &report.decision, "embed");
    let not_run = report
        .skipped
        .iter()
        .map(|(hook, why)| format!("not run: {} ({why})", hook.label))
        .collect();
    Ok((answer, not_run))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(project), Some(event)) = (args.next(), args.next()) else {
        eprintln!("usage: embed <project> <event> < payload.json");
        std::process::exit(64);
    };
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut input = Vec::new();
    let result = std::fs::canonicalize(&project)
        .map_err(|e| format!("{project}: {e}"))
        .and_then(|project| {
            let event: EventName = event.parse().map_err(|e| format!("{e}"))?;
            std::io::stdin()
                .read_to_end(&mut input)
                .map_err(|e| format!("stdin: {e}"))?;
            answer(&project, home.as_deref(), event, &input)
        });
    match result {
        Ok((answer, not_run)) => {
            print!("{}", answer.stdout);
            eprint!("{}", answer.stderr);
            for line in not_run {
                eprintln!("{line}");
            }
            std::process::exit(answer.exit_code);
        }
        Err(message) => {
            eprintln!("embed: {message}");
            std::process::exit(1);
        }
    }
}
