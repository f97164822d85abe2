//! The process's entry point.
//!
//! Where the standard library can read the process's arguments without its start-up (glibc Linux
//! hands them to its initializers, macOS keeps them), the entry is a C `main` that skips that
//! start-up: on Linux it reads `/proc/self/maps`, maps an alternate signal stack and installs the
//! stack-overflow handlers before `main`, a measurable share of a one-hook `run` (commit 2a1c6ba,
//! docs/performance.md).
//! [`hookbridge_runner::start_up::prepare_process`] keeps what of it hookbridge relies on (the
//! standard descriptors open, `SIGPIPE` ignored). Elsewhere, and in the unit tests' build, the entry
//! is the ordinary Rust `main` in `main.rs`.

use std::process::ExitCode;

/// The C entry point: the process made ready, the command run, and its exit code given to
/// `exit` (which flushes stdout, as returning from a Rust `main` does).
#[allow(unsafe_code)] // `no_mangle`: this is the symbol the C runtime calls; nothing else is unsafe.
#[unsafe(no_mangle)]
extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    hookbridge_runner::start_up::prepare_process();
    exit_with(crate::hookbridge())
}

/// Ends the process with `code`, stdout flushed (`std::process::exit` does, as returning from a
/// Rust `main` does). `ExitCode` says its number only to its own `exit_process`, not yet stable:
/// it is found among the 256 it can be.
fn exit_with(code: ExitCode) -> ! {
    let number = (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .unwrap_or(crate::EXIT_INTERNAL);
    std::process::exit(i32::from(number))
}
