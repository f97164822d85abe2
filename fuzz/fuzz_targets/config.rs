//! The hooks file readers (JSON and YAML): any text gives hooks and diagnostics, never a panic.
#![no_main]
use std::path::PathBuf;

use hookbridge_core::config::{parse_hooks_file, parse_hooks_yaml, ConfigSource, Scope};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let source = ConfigSource {
        path: PathBuf::from("/p/.amplifier/hooks/hooks.json"),
        scope: Scope::Project,
        hooks_dir: PathBuf::from("/p/.amplifier/hooks"),
        plugin: None,
        description: None,
    };
    let _ = parse_hooks_file(text, source.clone(), 0, "/p");
    let _ = parse_hooks_yaml(text, source, 0, "/p");
});
