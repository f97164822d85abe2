//! The process runner against real, misbehaving hook processes: ones that time out and ignore
//! SIGTERM, leave grandchildren holding their pipes, flood their output, never read a large
//! payload, die by a signal, or cannot be spawned at all.
//!
//! The shaping decision: assert on statuses, flags, outputs and on which processes are still
//! alive (read from `/proc`), and bound time only with generous sanity limits. The machine is
//! shared with other builds, so a tight timing assertion would test the machine, not the runner.

#![cfg(target_os = "linux")]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookbridge_runner::process::{
    run_all, run_process, Canceller, Flow, ProcessSpec, ProcessStatus, Program, SandboxPlan, SpawnFailureKind,
};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// Generous upper bound for anything that should take milliseconds.
const SANE: Duration = Duration::from_secs(10);

fn shell(command: &str) -> ProcessSpec {
    let mut spec = ProcessSpec::new(Program::shell(command));
    spec.timeout = Duration::from_secs(60);
    spec
}

/// `spec` in a default sandbox (no network, writes beneath the system's temporary folder only):
/// a sandboxed hook's process is started by hookbridge's own clone rather than `posix_spawn`, and
/// must start exactly as every other hook does.
fn sandboxed(mut spec: ProcessSpec) -> ProcessSpec {
    let plan = SandboxPlan::new(
        &hookbridge_core::config::Sandbox::default(),
        Some(&std::env::temp_dir()),
        None,
        &[],
        None,
    );
    spec.sandbox = Some(Box::new(plan));
    spec
}

/// `spec` as it is, and sandboxed.
fn both_ways(spec: impl Fn() -> ProcessSpec) -> [(&'static str, ProcessSpec); 2] {
    [("plain", spec()), ("sandboxed", sandboxed(spec()))]
}

fn payload(len: usize) -> Arc<[u8]> {
    (0..len).map(|i| b"0123456789abcdef\n"[i % 17]).collect()
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// Single-quotes a path for `/bin/sh`.
fn sh_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// SIGKILLs, by pid, processes a test deliberately left running — also when the test fails.
struct KillOnDrop(Vec<i32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for &pid in &self.0 {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

/// `/proc/<pid>/stat` fields after the command name: state, ppid, pgrp, ...
fn stat_fields(pid: i32) -> Option<Vec<String>> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_comm = &stat[stat.rfind(')')? + 1..];
    Some(after_comm.split_whitespace().map(str::to_owned).collect())
}

/// Running or sleeping; a zombie waiting for its parent to reap it counts as dead.
fn is_alive(pid: i32) -> bool {
    stat_fields(pid).is_some_and(|fields| !matches!(fields[0].as_str(), "Z" | "X" | "x"))
}

/// Live processes whose process group is `pgid`.
/// The live members of a process group, once the group has had up to `SANE` to empty: a member
/// sent SIGKILL a moment ago may still be on its way out (the signal is delivered, the process has
/// not yet been scheduled to die), so an empty answer is waited for, not expected at once.
fn live_members_of_group(pgid: i32) -> Vec<i32> {
    let deadline = std::time::Instant::now() + SANE;
    loop {
        let alive = live_members_now(pgid);
        if alive.is_empty() || std::time::Instant::now() >= deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn live_members_now(pgid: i32) -> Vec<i32> {
    fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| stat_fields(pid).is_some_and(|fields| fields[2] == pgid.to_string()) && is_alive(pid))
        .collect()
}

/// Waits until none of `pids` is alive; returns the survivors after `SANE`.
fn survivors(pids: &[i32]) -> Vec<i32> {
    let deadline = std::time::Instant::now() + SANE;
    loop {
        let alive: Vec<i32> = pids.iter().copied().filter(|&pid| is_alive(pid)).collect();
        if alive.is_empty() || std::time::Instant::now() >= deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_pids(path: &Path) -> Vec<i32> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

/// Waits until `path` lists `count` pids.
fn wait_for_pids(path: &Path, count: usize) -> Vec<i32> {
    let deadline = std::time::Instant::now() + SANE;
    loop {
        let pids = read_pids(path);
        if pids.len() >= count {
            return pids;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} lists only {pids:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---- exit codes, signals, output --------------------------------------------------------------

#[test]
fn exit_codes_are_reported_with_both_streams() {
    for code in [0, 1, 2, 42, 255] {
        for (how, spec) in both_ways(|| shell(&format!("echo out; echo err >&2; exit {code}"))) {
            let outcome = run_process(spec);
            assert_eq!(outcome.status, ProcessStatus::Exited(code), "{how}");
            assert_eq!(outcome.stdout.bytes, b"out\n", "{how}: exit {code}");
            assert_eq!(outcome.stderr.bytes, b"err\n", "{how}: exit {code}");
            assert!(
                !outcome.leaked && !outcome.stdin_unread,
                "{how}: exit {code}: {outcome:?}"
            );
        }
    }
}

#[test]
fn death_by_signal_is_signaled() {
    for (command, signal) in [("kill -KILL $$", 9), ("kill -TERM $$", 15), ("kill -ABRT $$", 6)] {
        let outcome = run_process(shell(command));
        assert_eq!(outcome.status, ProcessStatus::Signaled(signal), "{command}");
    }
}

#[test]
fn shell_form_runs_under_bin_sh() {
    let outcome = run_process(shell(r#"echo "$0""#));
    assert_eq!(outcome.stdout.bytes, b"/bin/sh\n");
}

#[test]
fn exec_form_passes_arguments_verbatim() {
    let spec = ProcessSpec::new(Program::exec("printf", ["%s|", "a", "b c", "$HOME", "*"]));
    let outcome = run_process(spec);
    assert_eq!(outcome.status, ProcessStatus::Exited(0));
    assert_eq!(outcome.stdout.bytes, b"a|b c|$HOME|*|");
}

#[test]
fn non_utf8_output_is_kept_as_bytes() {
    let outcome = run_process(shell(r"printf '\377\376ok\n'; printf '\200' >&2"));
    assert_eq!(outcome.stdout.bytes, b"\xff\xfeok\n");
    assert_eq!(outcome.stderr.bytes, b"\x80");
    assert_eq!(outcome.stdout.to_string_lossy(), "\u{fffd}\u{fffd}ok\n");
}

#[test]
fn env_is_layered_on_the_inherited_one_and_cwd_is_applied() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = shell(r#"pwd -P; echo "$HB_TEST_VAR"; echo "$HOME"; echo "$PATH""#);
    spec.cwd = Some(dir.path().to_owned());
    spec.env = vec![
        ("HB_TEST_VAR".into(), "x y".into()),
        ("HOME".into(), "/hb-home".into()),
    ];
    let outcome = run_process(spec);
    let expected = format!(
        "{}\nx y\n/hb-home\n{}\n",
        dir.path().canonicalize().unwrap().display(),
        std::env::var("PATH").unwrap()
    );
    assert_eq!(outcome.stdout.to_string_lossy(), expected);
}

#[test]
fn a_variable_the_hook_sets_replaces_the_inherited_one_and_the_last_value_wins() {
    // HOME is inherited; the child must see exactly one HOME, with the hook's value, and for a name
    // given twice, the later value (as the standard library's `Command::env` does).
    let mut spec = shell(r#"env | grep -c '^HOME='; env | grep -c '^HB_TWICE='; echo "$HOME $HB_TWICE""#);
    spec.env = vec![
        ("HB_TWICE".into(), "first".into()),
        ("HOME".into(), "/hb-home".into()),
        ("HB_TWICE".into(), "second".into()),
    ];
    let outcome = run_process(spec);
    assert_eq!(
        outcome.stdout.to_string_lossy(),
        "1\n1\n/hb-home second\n",
        "{outcome:?}"
    );
}

#[test]
fn a_bare_program_name_is_looked_up_in_the_path_the_hook_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("hb-only-here");
    fs::write(&script, "#!/bin/sh\necho found \"$1\"\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let mut spec = ProcessSpec::new(Program::exec("hb-only-here", ["arg"]));
    spec.env = vec![(
        "PATH".into(),
        format!("/nonexistent-hb-dir:{}:/usr/bin:/bin", dir.path().display()).into(),
    )];
    let outcome = run_process(spec);
    assert_eq!(outcome.status, ProcessStatus::Exited(0), "{outcome:?}");
    assert_eq!(outcome.stdout.bytes, b"found arg\n");

    // Without that PATH the name is not found.
    let outcome = run_process(ProcessSpec::new(Program::exec("hb-only-here", ["arg"])));
    match outcome.status {
        ProcessStatus::SpawnFailed(failure) => assert_eq!(failure.kind, SpawnFailureKind::NotFound),
        other => panic!("expected a spawn failure, got {other:?}"),
    }
}

#[test]
fn a_relative_path_entry_is_searched_from_the_hooks_working_directory() {
    // As execvp does in the child: `bin` in PATH means `<hook cwd>/bin`, not `<our cwd>/bin`.
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("bin")).unwrap();
    let script = dir.path().join("bin/hb-relative-tool");
    fs::write(&script, "#!/bin/sh\npwd -P\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let mut spec = ProcessSpec::new(Program::exec("hb-relative-tool", Vec::<String>::new()));
    spec.cwd = Some(dir.path().to_owned());
    spec.env = vec![("PATH".into(), "bin:/usr/bin:/bin".into())];
    let outcome = run_process(spec);
    assert_eq!(outcome.status, ProcessStatus::Exited(0), "{outcome:?}");
    assert_eq!(
        outcome.stdout.to_string_lossy(),
        format!("{}\n", dir.path().canonicalize().unwrap().display())
    );
}

#[test]
fn a_host_with_its_standard_streams_closed_still_gives_the_hook_its_own_pipes() {
    // With 0, 1 and 2 closed in the host, new pipes get those numbers; the child's ends must not
    // be overwritten while being put in place. Run in a child process of this test binary (this
    // very test, in the mode the environment variable selects), since it closes our own streams.
    const REPORT: &str = "HB_TEST_CLOSED_STDIO_REPORT";
    if let Some(report) = std::env::var_os(REPORT) {
        // SAFETY: closing the standard descriptors of this throwaway process; nothing else here
        // uses them (the report goes to a file).
        unsafe {
            libc::close(0);
            libc::close(1);
            libc::close(2);
        }
        let mut spec = shell("cat; echo to-stderr >&2; exit 3");
        spec.stdin = Arc::from(&b"the payload\n"[..]);
        let outcome = run_process(spec);
        let line = format!(
            "{:?}|{}|{}",
            outcome.status,
            outcome.stdout.to_string_lossy(),
            outcome.stderr.to_string_lossy()
        );
        fs::write(report, line).unwrap();
        std::process::exit(0);
    }
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "a_host_with_its_standard_streams_closed_still_gives_the_hook_its_own_pipes",
            "--exact",
            "--test-threads=1",
        ])
        .env(REPORT, &report)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "the closed-stdio run failed: {status}");
    assert_eq!(
        fs::read_to_string(&report).unwrap(),
        "Exited(3)|the payload\n|to-stderr\n"
    );
}

#[test]
fn a_nul_byte_in_the_command_or_environment_is_a_spawn_failure_that_says_so() {
    let mut with_nul_value = shell("true");
    with_nul_value.env = vec![("HB_BAD".into(), "a\0b".into())];
    for spec in [shell("echo a\0b"), with_nul_value] {
        match run_process(spec).status {
            ProcessStatus::SpawnFailed(failure) => {
                assert_eq!(failure.kind, SpawnFailureKind::Other);
                assert!(failure.message.contains("NUL byte"), "{}", failure.message);
            }
            other => panic!("expected a spawn failure, got {other:?}"),
        }
    }
}

#[test]
fn the_hook_starts_with_no_blocked_signals_and_sigpipe_at_its_default() {
    // This test process ignores SIGPIPE (the Rust runtime does, and so does Python); a hook must
    // not inherit that, or `yes | head -1` in a hook would never end. Signal 13 is bit 12. Nor
    // does it keep the signals a sandboxed spawn blocks while it starts the child.
    // Read by `grep` itself: a shell clears its signal mask when it starts.
    for (how, spec) in both_ways(|| {
        ProcessSpec::new(Program::exec(
            "grep",
            ["-E", "^Sig(Blk|Ign):", "/proc/self/status"],
        ))
    }) {
        let outcome = run_process(spec);
        let text = outcome.stdout.to_string_lossy().into_owned();
        let mask = |name: &str| {
            let line = text
                .lines()
                .find(|l| l.starts_with(name))
                .unwrap_or_else(|| panic!("{how}: {text}"));
            u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
        };
        assert_eq!(mask("SigBlk:"), 0, "{how}: {text}");
        assert_eq!(
            mask("SigIgn:") & (1 << 12),
            0,
            "{how}: SIGPIPE ignored in the hook: {text}"
        );
    }
    for (how, spec) in both_ways(|| shell("yes | head -n 1")) {
        let outcome = run_process(spec);
        assert_eq!(outcome.status, ProcessStatus::Exited(0), "{how}");
        assert_eq!(outcome.stdout.bytes, b"y\n", "{how}");
    }
}

#[test]
fn the_hook_leads_its_own_process_group_and_holds_no_other_end_of_its_pipes() {
    // The group: field 5 of /proc/PID/stat is the process group id.
    for (how, spec) in
        both_ways(|| shell("echo $(( $(cut -d' ' -f5 /proc/$$/stat) == $$ )); ls -l /proc/$$/fd"))
    {
        let outcome = run_process(spec);
        let text = outcome.stdout.to_string_lossy().into_owned();
        check_group_and_descriptors(&text).unwrap_or_else(|e| panic!("{how}: {e}: {text}"));
    }
}

/// Checks the output of `echo <group leader>; ls -l /proc/$$/fd`: what is wrong, if anything.
fn check_group_and_descriptors(text: &str) -> Result<(), String> {
    let mut lines = text.lines();
    if lines.next() != Some("1") {
        return Err("not a group leader".into());
    }
    // Every descriptor of ours is close-on-exec: no pipe of the hook reaches it twice (a second
    // write end of its stdout would keep it from ever seeing EOF, and so on). Descriptors the
    // test process itself inherited without close-on-exec may show up, as with any spawn.
    let links: Vec<(&str, &str)> = lines
        .filter_map(|l| {
            l.split_once(" -> ")
                .map(|(left, target)| (left.rsplit(' ').next().unwrap(), target))
        })
        .collect();
    let standard: Vec<&str> = ["0", "1", "2"]
        .iter()
        .map(|fd| {
            links
                .iter()
                .find(|(n, _)| n == fd)
                .map(|link| link.1)
                .ok_or(format!("no fd {fd}"))
        })
        .collect::<Result<_, _>>()?;
    if !standard.iter().all(|t| t.starts_with("socket:")) {
        return Err("a standard stream is not a socket".into());
    }
    let reaching = links
        .iter()
        .filter(|(_, target)| standard.contains(target))
        .count();
    match reaching {
        3 => Ok(()),
        n => Err(format!("{n} descriptors reach the three streams")),
    }
}

/// Claude Code (Node, libuv) gives a hook Unix socketpairs for stdin, stdout and stderr, and a
/// hook can tell (`[ -p /dev/stdin ]`, shared conformance case 87): hookbridge gives the same.
#[test]
fn the_hooks_standard_streams_are_sockets_as_under_claude_code() {
    let kinds = "for f in /dev/stdin /dev/stdout /dev/stderr; do \
        if [ -S $f ]; then printf 'socket '; elif [ -p $f ]; then printf 'fifo '; else printf 'other '; fi; done";
    let outcome = run_process(shell(kinds));
    assert_eq!(outcome.status, ProcessStatus::Exited(0), "{outcome:?}");
    assert_eq!(outcome.stdout.to_string_lossy(), "socket socket socket ");
    // Through a socket the payload still arrives whole and then EOF, and both streams are read.
    let mut spec = shell("wc -c; echo err >&2");
    spec.stdin = payload(300_000);
    let outcome = run_process(spec);
    assert_eq!(outcome.stdout.to_string_lossy().trim(), "300000");
    assert_eq!(outcome.stderr.to_string_lossy(), "err\n");
    assert!(!outcome.stdin_unread);
}

#[test]
fn closing_stdout_early_is_not_the_end_of_the_run() {
    // Completion is the child's exit, not EOF: output written after stdout is closed still counts.
    let outcome = run_process(shell("echo first; exec >&-; sleep 0.3; echo late >&2; exit 4"));
    assert_eq!(outcome.status, ProcessStatus::Exited(4));
    assert_eq!(outcome.stdout.bytes, b"first\n");
    assert_eq!(outcome.stderr.bytes, b"late\n");
    assert!(!outcome.leaked);
}

// ---- bounded output -----------------------------------------------------------------------------

/// Set in the copy of this test binary that the flood test below starts: it runs the flood there.
const FLOOD_CHILD: &str = "HOOKBRIDGE_TEST_FLOOD_CHILD";
const FLOOD_PEAK: &str = "flood child VmHWM kB: ";

/// 100 MB on each stream is counted but not kept, and memory stays far below one buffered stream.
/// The peak is read in a process that runs this test alone: the test starts its own binary again,
/// filtered to itself, and that child prints its `VmHWM`. Under plain `cargo test` every test of a
/// binary shares one process, so this process's own peak would be the peak of all of them.
#[test]
fn a_100_mb_flood_on_both_streams_is_counted_but_not_kept() {
    if std::env::var_os(FLOOD_CHILD).is_some() {
        flood_100_mb_and_print_peak();
        return;
    }
    let name = "a_100_mb_flood_on_both_streams_is_counted_but_not_kept";
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(FLOOD_CHILD, "1")
        .output()
        .expect("starting this test binary again");
    let stdout = String::from_utf8_lossy(&child.stdout);
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(
        child.status.success(),
        "the flood run failed:\n{stdout}\n{stderr}"
    );
    let peak_kib: u64 = stdout
        .lines()
        .find_map(|line| line.split_once(FLOOD_PEAK).map(|(_, kib)| kib))
        .unwrap_or_else(|| panic!("the flood run printed no peak (did the filter match no test?):\n{stdout}"))
        .trim()
        .parse()
        .unwrap();
    assert!(peak_kib < 64 * 1024, "peak RSS of the flood run {peak_kib} KiB");
}

fn flood_100_mb_and_print_peak() {
    const FLOOD: u64 = 100_000_000;
    let mut spec = shell("head -c 100000000 /dev/zero >&2 & head -c 100000000 /dev/zero; wait");
    spec.output_cap = 100_000;
    let outcome = run_process(spec);
    assert_eq!(outcome.status, ProcessStatus::Exited(0));
    for (name, stream) in [("stdout", &outcome.stdout), ("stderr", &outcome.stderr)] {
        assert_eq!(stream.total_len, FLOOD, "{name}");
        assert!(stream.truncated, "{name}");
        assert_eq!(stream.bytes.len(), 100_000, "{name}");
        assert!(stream.bytes.iter().all(|&b| b == 0), "{name}");
    }
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let peak = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .expect("no VmHWM in /proc/self/status");
    println!("{FLOOD_PEAK}{}", peak.trim().trim_end_matches("kB").trim());
}

// ---- stdin --------------------------------------------------------------------------------------

#[test]
fn payload_is_written_then_stdin_closed() {
    let mut spec = shell("cat");
    spec.stdin = Arc::from(&br#"{"hook_event_name":"PreToolUse"}"#[..]);
    let outcome = run_process(spec);
    assert_eq!(outcome.status, ProcessStatus::Exited(0));
    assert_eq!(outcome.stdout.bytes, br#"{"hook_event_name":"PreToolUse"}"#);
    assert!(!outcome.stdin_unread);
}

#[test]
fn a_10_mb_payload_echoed_back_is_written_and_drained_concurrently() {
    let mut spec = shell("cat");
    spec.stdin = payload(10_000_000);
    spec.output_cap = 1 << 20;
    let outcome = run_process(spec.clone());
    assert_eq!(outcome.status, ProcessStatus::Exited(0));
    assert_eq!(outcome.stdout.total_len, 10_000_000);
    assert!(outcome.stdout.truncated);
    assert_eq!(outcome.stdout.bytes, spec.stdin[..1 << 20]);
    assert!(!outcome.stdin_unread);
}

#[test]
fn a_10_mb_payload_nobody_reads_does_not_deadlock() {
    // (command, stdout length): exiting at once; running on with stdin full and unread; closing
    // stdin while running on; and flooding stdout (past the pipe buffer) without ever reading
    // stdin, which deadlocks unless writing, draining and waiting all run together.
    let cases = [
        ("exit 0", 0),
        ("echo started; sleep 0.5; echo done", 13),
        ("exec 0<&-; sleep 0.5; echo closed stdin", 13),
        ("head -c 1000000 /dev/zero; sleep 0.2", 1_000_000),
    ];
    for (command, stdout_len) in cases {
        let mut spec = shell(command);
        spec.stdin = payload(10_000_000);
        let outcome = run_process(spec);
        assert_eq!(outcome.status, ProcessStatus::Exited(0), "{command}");
        assert_eq!(outcome.stdout.total_len, stdout_len, "{command}");
        assert!(outcome.stdin_unread, "{command}");
        assert!(outcome.duration < SANE, "{command}: {:?}", outcome.duration);
    }
}

#[test]
fn a_partly_read_payload_is_stdin_unread() {
    let mut spec = shell("head -c 100 >/dev/null; echo read");
    spec.stdin = payload(10_000_000);
    let outcome = run_process(spec);
    assert_eq!(outcome.status, ProcessStatus::Exited(0));
    assert_eq!(outcome.stdout.bytes, b"read\n");
    assert!(outcome.stdin_unread);
}

// ---- spawn failures -----------------------------------------------------------------------------

#[test]
fn a_missing_program_is_spawn_failed_not_found() {
    for program in [
        "/nonexistent/hookbridge-missing",
        "hookbridge-missing-program-7f3a",
    ] {
        for (how, spec) in both_ways(|| ProcessSpec::new(Program::exec(program, ["x"]))) {
            let outcome = run_process(spec);
            let ProcessStatus::SpawnFailed(failure) = &outcome.status else {
                panic!("{how} {program}: {outcome:?}");
            };
            assert_eq!(failure.kind, SpawnFailureKind::NotFound, "{how} {program}");
            assert!(failure.message.contains(program), "{how}: {}", failure.message);
        }
    }
}

#[test]
fn a_non_executable_file_is_spawn_failed_permission_denied() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("hook.sh");
    fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o644)).unwrap();
    let outcome = run_process(ProcessSpec::new(Program::exec(
        script.display().to_string(),
        [""; 0],
    )));
    let ProcessStatus::SpawnFailed(failure) = &outcome.status else {
        panic!("{outcome:?}");
    };
    assert_eq!(failure.kind, SpawnFailureKind::PermissionDenied);
}

/// On a kernel that refuses to restrict the hook (here: `landlock_restrict_self` answered with
/// ENOSYS by a seccomp filter on this test's own process, which the hook's child inherits), a
/// sandboxed hook fails to start, says why, and runs nothing: never a run with fewer
/// restrictions. The child that was to become the hook reports the failure before its exec.
#[test]
fn a_sandbox_the_kernel_refuses_is_a_spawn_failure_that_says_so_and_runs_nothing() {
    const INSIDE: &str = "HOOKBRIDGE_TEST_LANDLOCK_REFUSED";
    let name = "a_sandbox_the_kernel_refuses_is_a_spawn_failure_that_says_so_and_runs_nothing";
    if std::env::var_os(INSIDE).is_none() {
        // The filter stays on a process for good: this test runs again in a process of its own.
        let run = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(INSIDE, "1")
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{said}");
        assert!(said.contains("1 passed"), "the test did not run inside: {said}");
        return;
    }
    use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};
    let filter = SeccompFilter::new(
        [(libc::SYS_landlock_restrict_self, Vec::new())]
            .into_iter()
            .collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        TargetArch::try_from(std::env::consts::ARCH).unwrap(),
    )
    .unwrap();
    seccompiler::apply_filter(&BpfProgram::try_from(filter).unwrap()).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let outcome = run_process(sandboxed(shell(&format!("touch {}", sh_quote(&marker)))));
    let ProcessStatus::SpawnFailed(failure) = &outcome.status else {
        panic!("{outcome:?}");
    };
    assert_eq!(failure.kind, SpawnFailureKind::Other);
    assert!(
        failure.message.contains("this kernel cannot enforce it")
            && failure.message.contains("the hook was not run"),
        "{}",
        failure.message
    );
    assert!(!marker.exists(), "the hook ran");
    // Unsandboxed, the same hook runs: the filter refuses only the sandbox.
    assert_eq!(
        run_process(shell(&format!("touch {}", sh_quote(&marker)))).status,
        ProcessStatus::Exited(0)
    );
    assert!(marker.exists());
}

#[test]
fn a_missing_working_directory_is_named() {
    for (how, spec) in both_ways(|| {
        let mut spec = ProcessSpec::new(Program::exec("true", [""; 0]));
        spec.cwd = Some(PathBuf::from("/nonexistent/hookbridge-cwd"));
        spec
    }) {
        let outcome = run_process(spec);
        let ProcessStatus::SpawnFailed(failure) = &outcome.status else {
            panic!("{how}: {outcome:?}");
        };
        assert_eq!(failure.kind, SpawnFailureKind::NotFound, "{how}");
        assert!(
            failure.message.contains("/nonexistent/hookbridge-cwd"),
            "{how}: {}",
            failure.message
        );
    }
}

#[test]
fn a_missing_command_in_shell_form_exits_127() {
    // What Claude Code sees too: sh itself starts, then reports the missing command.
    let outcome = run_process(shell("hookbridge-missing-command-7f3a --flag"));
    assert_eq!(outcome.status, ProcessStatus::Exited(127));
    assert!(
        outcome.stderr.to_string_lossy().contains("not found"),
        "{outcome:?}"
    );
}

// ---- timeouts and the process tree ------------------------------------------------------------

/// Runs `tree.sh` into a timeout and checks that no process of its tree survives.
fn assert_timeout_kills_tree(leader_mode: &str, kill_grace: Duration) {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let mut spec = ProcessSpec::new(Program::exec(
        "/bin/sh",
        [
            fixture("tree.sh"),
            pid_file.display().to_string(),
            leader_mode.to_owned(),
        ],
    ));
    spec.timeout = Duration::from_secs(2);
    spec.kill_grace = kill_grace;
    // Generous so that slow teardown on a loaded machine is not mistaken for a leak.
    spec.leak_grace = Duration::from_secs(2);
    let outcome = run_process(spec);

    let pids = read_pids(&pid_file);
    let _cleanup = KillOnDrop(pids.clone());
    assert_eq!(outcome.status, ProcessStatus::TimedOut, "{outcome:?}");
    assert_eq!(
        pids.len(),
        4,
        "the hook did not record its tree before the timeout: {pids:?}"
    );
    assert_eq!(
        outcome.stdout.bytes, b"ready\n",
        "output before the timeout is kept"
    );
    assert!(!outcome.leaked);
    assert!(outcome.duration < SANE, "{:?}", outcome.duration);
    assert_eq!(survivors(&pids), Vec::<i32>::new(), "recorded pids {pids:?}");
    let leader = *pids.last().unwrap();
    assert_eq!(live_members_of_group(leader), Vec::<i32>::new(), "group {leader}");
}

#[test]
fn timeout_kills_the_tree_when_the_leader_obeys_term_but_children_ignore_it() {
    assert_timeout_kills_tree("obey-term", Duration::from_millis(300));
}

#[test]
fn timeout_kills_the_tree_when_everything_ignores_term() {
    assert_timeout_kills_tree("ignore-term", Duration::from_millis(300));
}

#[test]
fn timeout_with_zero_grace_kills_at_once() {
    assert_timeout_kills_tree("ignore-term", Duration::ZERO);
}

#[test]
fn on_timeout_a_term_handler_runs_and_its_output_is_kept() {
    // The handler reaps the TERM-killed `sleep` itself, so the group is empty once the shell exits
    // (a zombie handed to a slow init would otherwise keep the group alive until it is reaped).
    let mut spec = shell("trap 'wait; echo cleanup; exit 3' TERM; echo started; sleep 1000 & wait");
    spec.timeout = Duration::from_secs(1);
    spec.kill_grace = Duration::from_secs(5);
    let outcome = run_process(spec);
    assert_eq!(outcome.status, ProcessStatus::TimedOut);
    assert_eq!(outcome.stdout.bytes, b"started\ncleanup\n");
    // The group emptied after SIGTERM, so the run did not sit out the whole 5 s grace.
    assert!(
        outcome.duration < Duration::from_secs(6),
        "{:?}",
        outcome.duration
    );
}

#[test]
fn cancelling_the_run_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let spec = ProcessSpec::new(Program::exec(
        "/bin/sh",
        [
            fixture("tree.sh"),
            pid_file.display().to_string(),
            "ignore-term".to_owned(),
        ],
    ));
    let canceller = Canceller::new().unwrap();
    let run = {
        let canceller = canceller.clone();
        std::thread::spawn(move || {
            let mut finished = None;
            run_all(vec![spec], Some(&canceller), |_, outcome| {
                finished = Some(outcome);
                Flow::Continue
            });
            finished
        })
    };
    let pids = wait_for_pids(&pid_file, 4);
    assert!(!canceller.is_cancelled());
    canceller.cancel();
    assert!(canceller.is_cancelled(), "and stays so for the next run");
    let finished = run.join().unwrap();
    assert!(
        finished.is_none(),
        "the hook cannot finish on its own: {finished:?}"
    );
    let _cleanup = KillOnDrop(pids.clone());
    assert_eq!(survivors(&pids), Vec::<i32>::new(), "recorded pids {pids:?}");
    let leader = *pids.last().unwrap();
    assert_eq!(live_members_of_group(leader), Vec::<i32>::new(), "group {leader}");
}

// ---- leaks --------------------------------------------------------------------------------------

#[test]
fn a_grandchild_holding_stdout_is_a_leak_and_is_left_running() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let command = format!("(sleep 30 & echo $! >{}); echo ok", sh_quote(&pid_file));
    let outcome = run_process(shell(&command));
    let pids = wait_for_pids(&pid_file, 1);
    let _cleanup = KillOnDrop(pids.clone());

    assert_eq!(outcome.status, ProcessStatus::Exited(0));
    assert_eq!(outcome.stdout.bytes, b"ok\n");
    assert!(outcome.leaked);
    assert!(outcome.duration < SANE, "{:?}", outcome.duration);
    assert!(is_alive(pids[0]), "the background sleep must not be killed");
}

#[test]
fn a_daemon_in_its_own_session_holding_stderr_is_a_leak_and_is_left_running() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let command = format!(
        "setsid sh -c 'echo $$ >{}; exec sleep 30' >/dev/null & echo ok",
        sh_quote(&pid_file)
    );
    let outcome = run_process(shell(&command));
    let pids = wait_for_pids(&pid_file, 1);
    let _cleanup = KillOnDrop(pids.clone());

    assert_eq!(outcome.status, ProcessStatus::Exited(0));
    assert_eq!(outcome.stdout.bytes, b"ok\n");
    assert!(outcome.leaked);
    assert!(outcome.duration < SANE, "{:?}", outcome.duration);
    assert!(is_alive(pids[0]), "the daemon must not be killed");
}

#[test]
fn a_background_process_without_our_pipes_is_neither_a_leak_nor_killed() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let command = format!(
        "sleep 30 </dev/null >/dev/null 2>&1 & echo $! >{}; echo ok",
        sh_quote(&pid_file)
    );
    let outcome = run_process(shell(&command));
    let pids = wait_for_pids(&pid_file, 1);
    let _cleanup = KillOnDrop(pids.clone());

    assert_eq!(outcome.status, ProcessStatus::Exited(0));
    assert!(!outcome.leaked);
    assert!(
        is_alive(pids[0]),
        "a normal exit must leave background processes alone"
    );
}

// ---- concurrency --------------------------------------------------------------------------------

#[test]
fn eight_hooks_run_together_in_one_loop() {
    // Each payload is larger than a pipe buffer and echoed back, so no hook can finish unless the
    // loop writes and drains all of them at once.
    let specs: Vec<ProcessSpec> = (0..8)
        .map(|index| {
            let mut spec = shell(r#"cat; echo "$HB_INDEX" >&2; sleep 0.2"#);
            spec.stdin = format!("payload {index}\n").repeat(20_000).into_bytes().into();
            spec.env = vec![("HB_INDEX".into(), index.to_string().into())];
            spec
        })
        .collect();
    let payloads: Vec<Arc<[u8]>> = specs.iter().map(|s| s.stdin.clone()).collect();
    let mut seen = Vec::new();
    run_all(specs, None, |index, outcome| {
        assert_eq!(outcome.status, ProcessStatus::Exited(0), "hook {index}");
        assert_eq!(outcome.stdout.bytes, &payloads[index][..], "hook {index}");
        assert_eq!(
            outcome.stderr.bytes,
            format!("{index}\n").as_bytes(),
            "hook {index}"
        );
        assert!(!outcome.stdin_unread && !outcome.leaked, "hook {index}");
        seen.push(index);
        Flow::Continue
    });
    seen.sort();
    assert_eq!(seen, (0..8).collect::<Vec<_>>());
}

#[test]
fn stopping_the_rest_kills_their_process_groups_and_reports_only_the_finished() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let slow = ProcessSpec::new(Program::exec(
        "/bin/sh",
        [
            fixture("tree.sh"),
            pid_file.display().to_string(),
            "ignore-term".to_owned(),
        ],
    ));
    // The quick hook waits until the slow one has started its whole tree.
    let quick = shell(&format!(
        "while [ $(wc -l < {0} 2>/dev/null || echo 0) -lt 4 ]; do sleep 0.02; done; echo decided",
        sh_quote(&pid_file)
    ));
    let mut reported = Vec::new();
    run_all(vec![slow, quick], None, |index, outcome| {
        reported.push((index, outcome.status.clone(), outcome.stdout.bytes.clone()));
        Flow::StopTheRest
    });
    assert_eq!(
        reported,
        vec![(1, ProcessStatus::Exited(0), b"decided\n".to_vec())]
    );
    let pids = read_pids(&pid_file);
    let _cleanup = KillOnDrop(pids.clone());
    assert_eq!(pids.len(), 4, "{pids:?}");
    assert_eq!(survivors(&pids), Vec::<i32>::new(), "recorded pids {pids:?}");
    let leader = *pids.last().unwrap();
    assert_eq!(live_members_of_group(leader), Vec::<i32>::new(), "group {leader}");
}

/// A JSON answer larger than the cap is read whole (the part past the cap waits on disk), so a
/// deny is never cut into invalid JSON; plain-text floods stay cut at the cap.
#[test]
fn stdout_past_the_cap_is_kept_whole_only_when_it_is_a_json_answer() {
    let big_json =
        "python3 -c \"import sys; sys.stdout.write('  {\\\"reason\\\": \\\"' + 'r' * 300000 + '\\\"}')\"";
    let mut spec = shell(big_json);
    spec.output_cap = 100_000;
    let outcome = run_process(spec);
    assert_eq!(outcome.stdout.bytes.len(), 300_000 + 16, "{:?}", outcome.status);
    assert!(!outcome.stdout.truncated);
    assert!(outcome.stdout.to_string_lossy().ends_with("rrr\"}"));

    let mut spec = shell("head -c 300000 /dev/zero | tr '\\0' x");
    spec.output_cap = 100_000;
    let outcome = run_process(spec);
    assert_eq!(outcome.stdout.bytes.len(), 100_000);
    assert!(outcome.stdout.truncated);
    assert_eq!(outcome.stdout.total_len, 300_000);

    let mut spec = shell(big_json);
    spec.output_cap = 100_000;
    spec.stdout_spill_limit = 50_000;
    let outcome = run_process(spec);
    assert_eq!(outcome.stdout.bytes.len(), 150_000, "the spill limit bounds it");
    assert!(outcome.stdout.truncated);
}
