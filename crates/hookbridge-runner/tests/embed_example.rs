//! The library example the README quotes (`examples/embed.rs`), run on the bundled example project:
//! the project's guard is held while nobody trusted the project, blocks `rm -rf /` once its user
//! did, and lets a harmless command through.

#[path = "../examples/embed.rs"]
#[allow(dead_code)] // its `main` is the example's, not this test's
mod embed;

use std::path::{Path, PathBuf};

use hookbridge_core::config::{discover, DiscoveryOptions};
use hookbridge_core::event::EventName;
use hookbridge_core::trust::{self, TrustStore};

fn example_project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/project")
        .canonicalize()
        .expect("the bundled example project")
}

fn payload(name: &str) -> Vec<u8> {
    std::fs::read(example_project().join("payloads").join(name)).expect("an example payload")
}

#[test]
fn the_library_example_holds_an_untrusted_project_and_blocks_rm_rf_once_it_is_trusted() {
    let project = example_project();
    let home = tempfile::tempdir().expect("a scratch home");
    let rm_rf = payload("06-pre-tool-use-bash-rm-rf-root.json");

    let (answer, not_run) =
        embed::answer(&project, Some(home.path()), EventName::PreToolUse, &rm_rf).expect("an answer");
    assert_eq!(answer.exit_code, 0, "untrusted, nothing runs: {answer:?}");
    assert!(
        not_run
            .iter()
            .any(|l| l.contains("validate.sh") && l.contains("held: the project is not trusted")),
        "the guard is reported held: {not_run:?}"
    );

    // The user's one-time step (`hookbridge trust --yes`), through the same library.
    let set = discover(&DiscoveryOptions::new(&project, Some(home.path())));
    let store = TrustStore::for_home(Some(home.path())).expect("a trust store in the scratch home");
    trust::trust_now(&set, &project, &store, false).expect("trusting the example project");

    let (answer, not_run) =
        embed::answer(&project, Some(home.path()), EventName::PreToolUse, &rm_rf).expect("an answer");
    assert_eq!(answer.exit_code, 2, "trusted, the guard blocks: {answer:?}");
    assert!(
        answer.stderr.contains("Blocked by bash-validator") && answer.stderr.contains("rm -rf /"),
        "the block's reason reaches the agent: {answer:?}"
    );
    assert!(not_run.is_empty(), "nothing is held any more: {not_run:?}");

    let safe = payload("05-pre-tool-use-bash-safe.json");
    let (answer, _) =
        embed::answer(&project, Some(home.path()), EventName::PreToolUse, &safe).expect("an answer");
    assert_eq!(answer.exit_code, 0, "a harmless command passes: {answer:?}");
}

/// The README's Rust block is this example, line for line (its comments aside), so the front door
/// never shows code that no longer compiles.
#[test]
fn the_readme_quotes_the_library_example_as_it_is() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("the README");
    let example = std::fs::read_to_string(root.join("crates/hookbridge-runner/examples/embed.rs"))
        .expect("the example");
    let block = readme
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a ```rust block in the README");
    let code: Vec<&str> = block
        .lines()
        .map(|line| line.split(" // ").next().unwrap_or(line).trim())
        .filter(|line| !line.is_empty())
        .collect();
    assert!(code.len() >= 5, "the README's library example: {code:?}");
    for line in code {
        assert!(
            example.contains(line),
            "the README shows a line examples/embed.rs does not have: {line}"
        );
    }
}
