//! How the `hookbridge` binary is linked: position-dependent on Linux with glibc (see
//! `link_without_pie`), and with its hot functions placed together when asked to.
//!
//! `scripts/build-release.sh` sets `HOOKBRIDGE_SYMBOL_ORDER` to an ordering file it makes from
//! `scripts/hot-symbols.txt` (the functions a `hookbridge run` executes) and the binary's own symbol
//! names; this passes it to the linker (LLD's `--symbol-ordering-file`). A link argument given here
//! reaches only this binary and, unlike one in `RUSTFLAGS`, leaves every crate's symbol names as they
//! are, so the file made from one link names the functions of the next. Unset (a plain `cargo
//! build`, `cargo install`), no order is given: the option needs LLD, which not every linker is.

fn main() {
    println!("cargo:rerun-if-env-changed=HOOKBRIDGE_SYMBOL_ORDER");
    link_without_pie();
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

/// On Linux with glibc, the binary is linked as a position-dependent executable (`-no-pie`), in
/// every build, as `scripts/build-release.sh` links the shipped one: `hookbridge run` starts once
/// per agent event, and a position-independent `hookbridge` makes the dynamic loader apply about
/// 13,000 relocations at every start, writing (and so copying) each of the ~55 pages of
/// `.data.rel.ro` they land in (docs/performance.md, the default build's rows). The code stays
/// position-independent; only the executable's own image loses its random address (shared
/// libraries, heap and stacks keep theirs), as the shipped static binary's does.
fn link_without_pie() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bin=hookbridge=-no-pie");
    }
}
