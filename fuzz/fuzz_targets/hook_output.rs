//! A hook's output read with Claude Code's rules, merged and rendered: never a panic, and the
//! answer's exit code is one Claude Code reads.
//! The body is `targets::hook_output` (fuzz/targets.rs), which the test suite also runs on every corpus file.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../targets.rs"]
mod targets;

fuzz_target!(|data: &[u8]| targets::hook_output(data));
