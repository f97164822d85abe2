//! The fuzz corpus, replayed: every file of `fuzz/corpus/<target>/` through the very function its
//! cargo-fuzz target runs (`fuzz/targets.rs`, included here), in a plain test. This is the suite's
//! fuzz stage: it needs no libFuzzer build and no nightly flags and takes milliseconds, and an
//! input a fuzzing run found (added to the corpus) is checked on every run from then on. Real,
//! coverage-guided fuzzing is `scripts/fuzz.sh`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

#[allow(dead_code)]
#[path = "../../../fuzz/targets.rs"]
mod targets;

fn corpus(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target)
}

#[test]
fn every_corpus_file_of_every_target_runs_without_a_panic() {
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    for (name, run) in targets::TARGETS {
        let dir = corpus(name);
        assert!(
            dir.join(format!("../../fuzz_targets/{name}.rs")).is_file(),
            "fuzz/fuzz_targets/{name}.rs is missing: TARGETS names a target cargo-fuzz does not have"
        );
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        assert!(
            !files.is_empty(),
            "{}: the corpus of `{name}` is empty",
            dir.display()
        );
        for file in &files {
            let data = std::fs::read(file).unwrap();
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| run(&data))) {
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{name} {}: panicked: {msg}", file.display()));
            }
        }
        counts.push(format!("{name}: {}", files.len()));
    }
    println!("corpus files replayed: {}", counts.join(", "));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every cargo-fuzz target is replayed: a target added to `fuzz/fuzz_targets/` must be in
/// `targets::TARGETS` too.
#[test]
fn every_fuzz_target_is_replayed() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/fuzz_targets");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut replayed: Vec<String> = targets::TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    replayed.sort();
    assert_eq!(
        on_disk, replayed,
        "fuzz/fuzz_targets/ and fuzz/targets.rs's TARGETS differ"
    );
}
