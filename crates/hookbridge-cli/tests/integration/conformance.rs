//! The conformance harness itself: its tables name cases that exist, it reports wrong answers, its
//! reading of Claude Code's rules reproduces the recordings, and the golden copy is the shared
//! catalog. The cases run one test each in the `conformance` test binary (`tests/conformance.rs`).

use crate::common;

use std::path::PathBuf;

use common::claude_view::{claude_view, Answer};
use common::golden::{
    compare_effects, compare_shown, expected_view, invocations, load_cases, stray_harness_files, Case,
    ModelView,
};

fn repo_dir(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

const GOLDEN: &str = "tests/conformance/golden";
const MEASURED: &str = "tests/conformance/cases";

fn load(rel: &str, origin: &'static str) -> Vec<Case> {
    load_cases(&repo_dir(rel), origin).unwrap_or_else(|e| panic!("{e}"))
}

/// Every case's harness facts are readable (loading a case reads its `harness.json`, every key
/// known), every golden `harness.json` belongs to a case, and the golden copy is complete.
#[test]
fn harness_files_belong_to_cases() {
    let mut cases = load(GOLDEN, "golden");
    cases.extend(load(MEASURED, "measured"));
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    let stale = stray_harness_files(&repo_dir(GOLDEN), &names);
    assert!(stale.is_empty(), "{stale:#?}");
    let golden = load(GOLDEN, "golden");
    assert!(
        golden.len() >= 80,
        "the golden copy has {} cases; the shared catalog has 80",
        golden.len()
    );
    assert!(
        repo_dir(GOLDEN).join("README.md").is_file(),
        "tests/conformance/golden/README.md is missing"
    );
}

/// `claude_view` must agree with the recordings themselves: where every invocation of a case had
/// one hook whose output was recorded in full, reading that hook's own answer with `claude_view`
/// must give exactly the recorded model view. This validates the rules the golden test relies on,
/// independently of hookbridge.
#[test]
fn claude_view_reproduces_single_hook_recordings() {
    let mut cases = load(GOLDEN, "golden");
    cases.extend(load(MEASURED, "measured"));
    let mut checked = Vec::new();
    let mut failures = Vec::new();
    for case in &cases {
        // Prompt hooks are not recorded (no command to wrap): their answers are not in the case.
        if case.is_mux_false() || case.has_hooks_of_other_kinds() {
            continue;
        }
        let Ok(invs) = invocations(case) else { continue };
        let single = !invs.is_empty()
            && invs
                .iter()
                .all(|i| i.synthesized.is_none() && i.unrecorded.is_empty() && i.calls.len() == 1);
        let truncated = |s: &str| s.ends_with(" chars]") && s.contains("...[");
        if !single
            || invs
                .iter()
                .any(|i| truncated(&i.calls[0].stdout) || truncated(&i.calls[0].stderr))
        {
            continue;
        }
        let mask = case.mask();
        let mut shown = Vec::new();
        let mut effects = Vec::new();
        let mut errors = Vec::new();
        for (n, inv) in invs.iter().enumerate() {
            let c = &inv.calls[0];
            let answer = Answer {
                exit_code: c.exit_code as i32,
                stdout: c.stdout.clone(),
                stderr: c.stderr.clone(),
            };
            match claude_view(&inv.event, &inv.payload, &answer) {
                Ok(v) => {
                    shown.extend(v.shown.into_iter().map(|s| (inv.describe(n), s)));
                    effects.extend(v.effects.into_iter().map(|e| (inv.describe(n), e)));
                }
                Err(e) => errors.push(format!("{}: {e}", inv.describe(n))),
            }
        }
        let mut n = Vec::new();
        let mut diffs = compare_shown(
            &expected_view(case, &mask, &ModelView::Compare),
            &shown,
            &mask,
            &mut n,
        );
        diffs.extend(compare_effects(case, &invs, &effects, &mut n));
        diffs.extend(errors);
        if !diffs.is_empty() {
            failures.push(format!("=== {} ===\n{}", case.name, diffs.join("\n")));
        }
        checked.push(case.name.clone());
    }
    println!(
        "claude_view checked against {} single-hook recordings: {checked:?}",
        checked.len()
    );
    assert!(
        checked.len() >= 30,
        "too few single-hook recordings to validate claude_view: {checked:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The comparison is not vacuous: a wrong or missing answer is reported.
#[test]
fn harness_reports_wrong_answers() {
    let cases = load(GOLDEN, "golden");
    let case = cases
        .iter()
        .find(|c| c.name == "10-pre-exit2-stderr")
        .expect("case 10");
    let invs = invocations(case).unwrap();
    let mask = case.mask();
    let expected = expected_view(case, &mask, &ModelView::Compare);
    let view = |exit_code: i32, stdout: &str, stderr: &str| {
        let a = Answer {
            exit_code,
            stdout: stdout.into(),
            stderr: stderr.into(),
        };
        let v = claude_view("PreToolUse", &invs[0].payload, &a).unwrap();
        let mut n = Vec::new();
        let mut d = compare_shown(
            &expected,
            &v.shown
                .into_iter()
                .map(|s| ("t".to_string(), s))
                .collect::<Vec<_>>(),
            &mask,
            &mut n,
        );
        d.extend(compare_effects(
            case,
            &invs,
            &v.effects
                .into_iter()
                .map(|e| ("t".to_string(), e))
                .collect::<Vec<_>>(),
            &mut n,
        ));
        d
    };
    assert!(
        view(2, "", "nope\n").is_empty(),
        "the right answer must pass: {:?}",
        view(2, "", "nope\n")
    );
    assert!(!view(0, "", "").is_empty(), "a silent answer must be reported");
    assert!(
        !view(2, "", "other\n").is_empty(),
        "another stderr must be reported"
    );
    assert!(
        !view(1, "", "nope\n").is_empty(),
        "a non-blocking exit must be reported"
    );
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}"#;
    assert!(
        !view(0, deny, "").is_empty(),
        "a JSON deny shows another text than an exit-2 block"
    );
}

/// The golden copy is the shared catalog, byte for byte: every case folder and file of
/// `../shared/conformance/cases` is in `tests/conformance/golden` with the same bytes, and nothing
/// else is (but the copy's README). The shared folder is beside every checkout (developers' and
/// CI's); its absence is a failure, not a skip.
#[test]
fn golden_copy_equals_the_shared_catalog() {
    let shared = repo_dir("../shared/conformance/cases");
    assert!(
        shared.is_dir(),
        "{} is missing: the shared folder must be beside the repository (../shared)",
        shared.display()
    );
    let golden = repo_dir(GOLDEN);
    let shared_files = files_under(&shared);
    let mut golden_files = files_under(&golden);
    golden_files.retain(|f| f != std::path::Path::new("README.md"));
    let missing: Vec<_> = shared_files
        .iter()
        .filter(|f| !golden_files.contains(f))
        .collect();
    let extra: Vec<_> = golden_files
        .iter()
        .filter(|f| !shared_files.contains(f))
        .collect();
    let differing: Vec<_> = shared_files
        .iter()
        .filter(|f| golden_files.contains(f))
        .filter(|f| std::fs::read(shared.join(f)).unwrap() != std::fs::read(golden.join(f)).unwrap())
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty() && differing.is_empty(),
        "tests/conformance/golden is not a copy of the shared catalog (refresh it with \
         `cp -r ../shared/conformance/cases/. tests/conformance/golden/`):\n\
         missing: {missing:?}\nnot in the shared catalog: {extra:?}\ndiffering: {differing:?}"
    );
}

/// The recordings the cases are checked against are the pinned Claude Code's: the harness's
/// `REFERENCE_VERSION` is the version `tests/npm/claude-code/package.json` pins (moving the pin
/// without recording the cases again fails here), and `golden-<version>/` holds one
/// `expected.json` for each golden case and nothing else.
#[test]
fn the_recordings_are_the_pinned_claude_codes() {
    use common::golden::{golden_reference_dir, REFERENCE_VERSION};
    let package: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_dir("tests/npm/claude-code/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        package["dependencies"]["@anthropic-ai/claude-code"].as_str(),
        Some(REFERENCE_VERSION),
        "the pinned Claude Code is not the version the cases were recorded with: record them again \
         (tests/conformance/record_reference.py) and move REFERENCE_VERSION"
    );
    let golden = repo_dir(GOLDEN);
    let reference = golden_reference_dir(&golden);
    let mut wanted: Vec<PathBuf> = files_under(&golden)
        .into_iter()
        .filter(|f| f.file_name() == Some(std::ffi::OsStr::new("expected.json")))
        .collect();
    wanted.push(PathBuf::from("README.md"));
    wanted.sort();
    // Beside a recording, its case's harness facts (`harness.json`), where it has any.
    let mut there: Vec<PathBuf> = files_under(&reference)
        .into_iter()
        .filter(|f| f.file_name() != Some(std::ffi::OsStr::new("harness.json")))
        .collect();
    there.sort();
    assert_eq!(
        there,
        wanted,
        "{} must hold one expected.json per golden case (and a harness.json where one has harness facts), and its README",
        reference.display()
    );
}

/// Every file below `root`, as paths relative to it, sorted.
fn files_under(root: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}
