//! `hookbridge completions <shell>` and `hookbridge man`: generated from the command line's one
//! definition, so they name every subcommand, and a completion script is valid for its shell.

use crate::common;

use std::process::Command;

fn hookbridge(args: &[&str]) -> std::process::Output {
    Command::new(common::hookbridge_bin())
        .args(args)
        .output()
        .unwrap()
}

const SUBCOMMANDS: &[&str] = &[
    "run",
    "list",
    "validate",
    "test",
    "install-into",
    "install",
    "uninstall",
    "enable",
    "disable",
    "marketplace",
    "migrate",
    "completions",
    "man",
    "schema",
];

#[test]
fn bash_completions_are_valid_bash_and_know_every_subcommand() {
    let out = hookbridge(&["completions", "bash"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let script = String::from_utf8(out.stdout).unwrap();
    for sub in SUBCOMMANDS {
        assert!(script.contains(sub), "no `{sub}` in the bash completions");
    }
    assert!(script.contains("--project-dir"));
    let bash = common::require_program("bash");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hookbridge.bash");
    std::fs::write(&path, &script).unwrap();
    let checked = Command::new(bash).arg("-n").arg(&path).output().unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = hookbridge(&["completions", shell]);
        assert!(out.status.success() && !out.stdout.is_empty(), "{shell}");
    }
    assert_eq!(hookbridge(&["completions", "tcsh"]).status.code(), Some(64));
}

#[test]
fn the_man_page_is_roff_for_every_subcommand() {
    let out = hookbridge(&["man"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH hookbridge 1"), "{page}");
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!("hookbridge\\-{}(1)", sub.replace('-', "\\-"))),
            "no `{sub}` in the man page"
        );
    }
}

#[test]
fn the_schema_is_json_with_every_event() {
    let out = hookbridge(&["schema"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    for event in ["PreToolUse", "SessionStart", "PostToolBatch"] {
        assert!(
            schema["properties"]["hooks"]["properties"].get(event).is_some(),
            "{event}"
        );
    }
}
