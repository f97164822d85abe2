//! The hooks file readers (JSON and YAML): any text gives hooks and diagnostics, never a panic.
//! The body is `targets::config` (fuzz/targets.rs), which the test suite also runs on every corpus file.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../targets.rs"]
mod targets;

fuzz_target!(|data: &[u8]| targets::config(data));
