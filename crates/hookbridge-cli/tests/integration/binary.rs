//! What the `hookbridge` binary is, as cargo builds it: how it is linked decides what every
//! `hookbridge run` pays before its first line of code (docs/performance.md).

use crate::common::hookbridge_bin;

/// ELF's `e_type` for a position-dependent executable (`ET_EXEC`); a PIE is `ET_DYN` (3).
const ET_EXEC: u16 = 2;

/// On Linux with glibc the binary is linked position-dependent in every build (`build.rs`), so the
/// dynamic loader applies no relative relocations to it at each start.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_is_a_position_dependent_executable() {
    use std::io::Read as _;
    let bin = hookbridge_bin();
    // The ELF header's first 18 bytes: identification, then e_type (not the whole binary).
    let mut header = [0u8; 18];
    std::fs::File::open(&bin)
        .and_then(|mut f| f.read_exact(&mut header))
        .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    assert_eq!(&header[..4], b"\x7fELF", "{} is not an ELF file", bin.display());
    // e_type: two bytes at offset 16, in the file's byte order (EI_DATA at offset 5: 1 = little).
    let e_type = match header[5] {
        1 => u16::from_le_bytes([header[16], header[17]]),
        _ => u16::from_be_bytes([header[16], header[17]]),
    };
    assert_eq!(
        e_type,
        ET_EXEC,
        "{} is a position-independent executable (e_type {e_type}): build.rs did not link it with -no-pie",
        bin.display()
    );
}
