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

static_build() {
    RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
        cargo build --release --target "$host" "${packages[@]}" >&2
}
case "$host" in
    *-linux-gnu*)
        if static_build; then
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
