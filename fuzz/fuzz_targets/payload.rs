//! The event payload parser (`hookbridge run`'s stdin): any bytes give a payload or an error, and
//! a payload's bytes for hooks are well-formed.
//! The body is `targets::payload` (fuzz/targets.rs), which the test suite also runs on every corpus file.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../targets.rs"]
mod targets;

fuzz_target!(|data: &[u8]| targets::payload(data));
