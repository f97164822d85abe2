#!/usr/bin/env bash
# Build the release `hookbridge` binary the way it is shipped, and print its path (last line of stdout).
#
#   bash scripts/build-release.sh [--example NAME ...]
#
# On Linux with glibc the binary is linked statically and as a fixed-address (non-PIE) executable:
# `hookbridge run` is started once per agent event, and without the dynamic loader's work (loading
# libc, libm and libgcc_s, resolving symbols, relocating a position-independent binary) it starts
# in about half the time (docs/benchmarks.md). That needs an explicit `--target`, so that the
# flags reach only what is built for the target and not the build scripts and proc-macros, which
# must stay dynamic; the binary therefore lands in target/<host triple>/release/. Elsewhere it is a
# plain `cargo build --release` (target/release/).
#
# The functions a `run` executes are placed together at the start of the code
# (scripts/hot-symbols.txt, made by scripts/hot-symbols.sh): a fresh process then maps about half as
# many 64 KiB windows of the binary (about 60 page faults instead of 90), which is most of what a
# nothing-to-run event costs above exec'ing a binary at all. The list names functions; their symbols
# in this build are looked up after a first link (scripts/hot-symbols.py), written to an ordering
# file that hookbridge-cli's build script gives the linker (`--symbol-ordering-file`), and the binary
# is linked again when that file changed (once after a clean build or a code change). That needs
# LLD, Rust's default linker on x86_64-unknown-linux-gnu (since 1.90); on any other target, or if the
# ordered link fails, the build goes on without it and says so.
#
# `--example NAME` also builds that example of hookbridge-runner with the same flags (the
# benchmark's floor programs must be built exactly like the binary they are compared with); their
# paths are printed before the binary's, one per line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac

examples=()
while [ $# -gt 0 ]; do
    case "$1" in
        --example) examples+=("$2"); shift 2 ;;
        *) echo "build-release.sh: unknown argument '$1'" >&2; exit 64 ;;
    esac
done

host="$(rustc -vV | sed -n 's/^host: //p')"
packages=(-p hookbridge-cli --bin hookbridge)
if [ ${#examples[@]} -gt 0 ]; then
    packages+=(-p hookbridge-runner)
    for e in "${examples[@]}"; do packages+=(--example "$e"); done
fi

# $1: the ordering file for the linker, or nothing.
static_build() {
    HOOKBRIDGE_SYMBOL_ORDER="$1" \
        RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
        cargo build --release --target "$host" "${packages[@]}" >&2
}
# The static build, its hot functions placed together where the linker can (see above).
ordered_build() {
    local order="$TARGET_DIR/$host/hot-symbols.order"
    if [ "$host" != x86_64-unknown-linux-gnu ] || ! command -v python3 >/dev/null || ! command -v nm >/dev/null; then
        static_build ""
        return
    fi
    mkdir -p "$(dirname "$order")"
    [ -e "$order" ] || : > "$order"
    if ! static_build "$order"; then
        echo "build-release.sh: the link with an ordering file failed (is the linker LLD?); linking without it" >&2
        static_build ""
        return
    fi
    local changed=0
    python3 "$ROOT/scripts/hot-symbols.py" order "$TARGET_DIR/$host/release/hookbridge" "$order" || changed=$?
    case "$changed" in
        0) ;;
        3) static_build "$order" ;;
        *) echo "build-release.sh: could not order the hot functions; the binary is linked without it" >&2 ;;
    esac
}
case "$host" in
    *-linux-gnu*)
        if ordered_build; then
            out="$TARGET_DIR/$host/release"
        else
            # Linking statically needs the C library's static archive (libc.a, in libc6-dev /
            # glibc-static). Without it, the default dynamic build still works, only slower to start.
            echo "build-release.sh: the static build failed; building the default (dynamic) binary instead" >&2
            cargo build --release "${packages[@]}" >&2
            out="$TARGET_DIR/release"
        fi
        ;;
    *)
        cargo build --release "${packages[@]}" >&2
        out="$TARGET_DIR/release"
        ;;
esac
for e in "${examples[@]}"; do echo "$out/examples/$e"; done
echo "$out/hookbridge"
