//! Golden conformance, one test per case: hookbridge registered as Claude Code's only hook must
//! make Claude Code behave as it did, measured, with the case's hooks registered directly.
//!
//! Cases come from `tests/conformance/golden/` (the shared catalog's scenarios; see its README) and
//! from `tests/conformance/cases/` (new measured cases), each checked against its recording with
//! the pinned Claude Code (2.1.332: `golden-2.1.332/` beside `golden/`, and each measured case's
//! own folder). Every folder with an `expected.json` is a test of its own (datatest-stable), named
//! `golden::<case>/expected.json` or `measured::<case>/expected.json`, so a runner lists, filters,
//! retries and times each case:
//! `cargo nextest run -p hookbridge-cli --test conformance -E 'test(/148-/)'`. The harness is
//! `integration/common/golden.rs`, the reading of an answer with Claude Code's rules
//! `integration/common/claude_view.rs`; the checks of the harness itself (its tables name cases
//! that exist, it reports wrong answers, the golden copy is the shared catalog) are in the
//! integration binary's `conformance` module.
//!
//! Order-sensitive cases give the fast hook a margin of a `sleep 2` over the slow one, so the cases
//! run with nothing beside them: `.config/nextest.toml` makes each one exclusive in the default
//! profile, and `scripts/test.sh` runs this binary alone, four cases at a time (most of a case's
//! time is hooks sleeping), with the `conformance` profile.

#[path = "integration/common/mod.rs"]
mod common;

use std::path::Path;

use common::golden::{load_case, run_case, Case};

datatest_stable::harness! {
    { test = golden, root = "../../tests/conformance/golden", pattern = r"^[^/]+/expected\.json$" },
    { test = measured, root = "../../tests/conformance/cases", pattern = r"^[^/]+/expected\.json$" },
}

/// A case of the project's own golden copy of the shared catalog.
fn golden(expected: &Path) -> datatest_stable::Result<()> {
    check_case(expected, "golden")
}

/// A case newly measured by the conformance work.
fn measured(expected: &Path) -> datatest_stable::Result<()> {
    check_case(expected, "measured")
}

/// Why a case cannot be replayed here, if it cannot: the oracle's recorder wraps command hooks
/// only, so the calls of an `http` hook are not in `expected.json` (its server, started by the
/// case's own SessionStart hook, answers only the real run). Such cases are checked through the
/// real Claude Code by the differential of `scripts/test.sh` (mux stage), which fails if they
/// differ; here their test says so.
fn not_replayable(case: &Case) -> Option<&'static str> {
    let hooks = case
        .spec
        .get("settings")
        .and_then(|s| s.get("hooks"))?
        .to_string();
    hooks
        .contains(r#""type":"http""#)
        .then_some("http hooks are not recorded by the oracle's recorder; the Claude Code differential (mux stage) checks this case")
}

/// The test's failure: its details printed (the harness shows a failure's message quoted, on one
/// line), its message short.
fn failure(message: String, details: &str) -> datatest_stable::Result<()> {
    println!("{details}");
    Err(message.into())
}

/// Run the case whose `expected.json` this is; print what it showed; fail with every difference.
fn check_case(expected: &Path, origin: &'static str) -> datatest_stable::Result<()> {
    common::require_program("python3"); // case 70's hook is a python3 one-liner
    let dir = expected
        .parent()
        .expect("a case's expected.json is in its folder");
    let case = load_case(dir.to_path_buf(), origin)?;
    if let Some(why) = not_replayable(&case) {
        println!("NOT REPLAYED {origin} {}: {why}", case.name);
        return Ok(());
    }
    if let Some(m) = &case.harness.mux_false {
        println!("mux:false {}: {}", case.name, m.why);
    }
    let outcome = run_case(&case);
    for note in &outcome.notes {
        println!("note: {note}");
    }
    if let Some(gap) = &case.harness.known_gap {
        if outcome.failures.is_empty() {
            return Err(format!(
                "the known gap {} now passes: take known_gap out of its harness.json",
                case.name
            )
            .into());
        }
        let unexpected = gap.unexpected(&outcome.failures);
        if !unexpected.is_empty() {
            let details = format!(
                "{}\n--- every difference ---\n{}",
                unexpected.join("\n"),
                outcome.failures.join("\n")
            );
            let message = format!(
                "the known gap {} differs otherwise than pinned (printed above)",
                case.name
            );
            return failure(message, &details);
        }
        println!(
            "KNOWN GAP {origin} {}: {} ({} difference(s), as pinned)",
            case.name,
            gap.why,
            outcome.failures.len()
        );
        return Ok(());
    }
    println!(
        "{origin} {}: {} invocation(s), {} hook run(s), {} difference(s)",
        case.name,
        outcome.invocations,
        outcome.hooks,
        outcome.failures.len()
    );
    if outcome.failures.is_empty() {
        Ok(())
    } else {
        let message = format!(
            "{} differs from Claude Code (the differences are printed above)",
            case.name
        );
        failure(message, &outcome.failures.join("\n"))
    }
}
