//! Links the `hookbridge` binary with its hot functions placed together when asked to.
//!
//! `scripts/build-release.sh` sets `HOOKBRIDGE_SYMBOL_ORDER` to an ordering file it makes from
//! `scripts/hot-symbols.txt` (the functions a `hookbridge run` executes) and the binary's own symbol
//! names; this passes it to the linker (LLD's `--symbol-ordering-file`). A link argument given here
//! reaches only this binary and, unlike one in `RUSTFLAGS`, leaves every crate's symbol names as they
//! are, so the file made from one link names the functions of the next. Unset (a plain `cargo
//! build`, `cargo install`), nothing changes: the option needs LLD, which not every linker is.

fn main() {
    println!("cargo:rerun-if-env-changed=HOOKBRIDGE_SYMBOL_ORDER");
    let Some(order) = std::env::var_os("HOOKBRIDGE_SYMBOL_ORDER").filter(|v| !v.is_empty()) else {
        return;
    };
    let order = std::path::PathBuf::from(order);
    // A new ordering (written by build-release.sh between two builds) relinks the binary.
    println!("cargo:rerun-if-changed={}", order.display());
    println!(
        "cargo:rustc-link-arg-bin=hookbridge=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    println!("cargo:rustc-link-arg-bin=hookbridge=-Wl,--no-warn-symbol-ordering");
}
