//! Library benchmarks for the issue's "Speed and memory" targets, measured side by side in one run.
//!
//! - `spawn_k{1,8}`: the cost of running K matching `true` hooks. `floor` is the raw cost of
//!   spawning the same commands with the standard library (piped stdin/stdout, payload written,
//!   stdout read to EOF, child waited for); `dispatch` is the whole library path. Two steps in
//!   between split any gap: `run_process` is the runner's own spawn (`posix_spawn` with the hook
//!   environment, own process group, working directory, three pipes) and supervising loop, without
//!   selection and merging; `std_command` builds that same child with the standard library's
//!   `Command` and drives it minimally — what the runner's spawn would cost with std, which copies
//!   this process's whole environment once a variable is added. Target: dispatch within 10 % of
//!   the floor per hook.
//!   On a shared machine, load drifts between two criterion benchmarks run one after the other,
//!   so the verdict comes from `spawn_paired`, which runs the four variants **interleaved** (a
//!   random order in every round) and takes the median of the per-round ratios to the floor. It
//!   also reports CPU time (this thread plus the children it reaped, from `getrusage`), which a
//!   busy machine disturbs far less than wall time.
//! - `no_match`: `HookSet::select` (and the whole `dispatch`) for an event that reaches no hook. Target: ≤ 1 µs per event.
//! - `load`: `discover` over 1,000 plugin folders, each with a `hooks.json`. Target: ≤ 20 ms.
//! - `rule_hook`: the seed dialect's in-process rules (`type: matcher`) — the whole `dispatch` of
//!   a PreToolUse that reaches the seed's two rules, for a call they block (`rm -rf /`) and one
//!   they let through (`ls -la src`). No process is started. Target: ≤ 10 µs per decision.
//!
//! Everything runs on real temp directories through the public API; nothing here is a test.
//! `scripts/bench.sh` runs this and puts the figures in `docs/benchmarks.md`.

use std::fs;
use std::hint::black_box;
use std::io::{self, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use hookbridge_core::config::{discover, DiscoveryOptions, HookSet, HOOKS_DIR_NAME};
use hookbridge_core::event::{EventName, EventPayload};
use hookbridge_runner::process::{run_all, Flow, ProcessSpec, Program};
use hookbridge_runner::{dispatch, DispatchOptions};

/// The hook counts the issue asks for.
const KS: [usize; 2] = [1, 8];

/// Plugin folders for the load benchmark (and the largest no-match project).
const MANY_PLUGINS: usize = 1_000;

/// Groups in the "many groups, none matches" no-match project.
const SOME_PLUGINS: usize = 64;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().expect("a file path has a parent")).expect("creating a bench folder");
    fs::write(path, text).expect("writing a bench file");
}

/// The commands of K distinct hooks that all just exit 0 (`true` ignores its arguments).
fn true_commands(k: usize) -> Vec<String> {
    if k == 1 {
        vec!["true".to_string()]
    } else {
        (0..k).map(|i| format!("true {i}")).collect()
    }
}

/// A PreToolUse payload as Claude Code sends it for a Bash call.
fn bash_payload(cwd: &Path) -> EventPayload {
    let json = serde_json::json!({
        "session_id": "9f1c2d7e-bench-4a1b-9c3d-5e6f7a8b9c0d",
        "transcript_path": "/tmp/bench/transcript.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la src", "description": "List the source folder"},
        "tool_use_id": "toolu_01BenchBenchBenchBench",
    });
    EventPayload::parse(EventName::PreToolUse, json.to_string().as_bytes()).expect("a valid payload")
}

/// A project whose root `hooks.json` has one `Bash` group with `commands` as hooks.
fn project_with(dir: &Path, commands: &[String]) {
    let hooks: Vec<_> = commands
        .iter()
        .map(|c| serde_json::json!({"type": "command", "command": c}))
        .collect();
    let config = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}});
    write(&dir.join(HOOKS_DIR_NAME).join("hooks.json"), &config.to_string());
}

/// A project with `n` plugin folders (Amplifier layout: `<name>/hooks.json`), each registering a
/// PreToolUse group and a PostToolUse group with the matcher shapes published hooks use: a tool
/// name, a name list, and a JavaScript regex. None of them matches the `Read` tool.
fn project_with_plugins(dir: &Path, n: usize) {
    for i in 0..n {
        let matcher = match i % 4 {
            0 => "Bash".to_string(),
            1 => "Write|Edit|MultiEdit".to_string(),
            2 => "WebFetch".to_string(),
            _ => format!("mcp__server{i}__.*"),
        };
        let config = serde_json::json!({
            "description": format!("bench plugin {i}"),
            "hooks": {
                "PreToolUse": [{"matcher": matcher, "hooks": [
                    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/check.sh", "timeout": 10}
                ]}],
                "PostToolUse": [{"matcher": "Write|Edit", "hooks": [
                    {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/lint.py"}
                ]}],
            }
        });
        write(
            &dir.join(HOOKS_DIR_NAME)
                .join(format!("plugin-{i:04}"))
                .join("hooks.json"),
            &config.to_string(),
        );
    }
}

fn load(project: &Path) -> HookSet {
    let mut set = discover(&DiscoveryOptions::new(project, None));
    // The benchmark's own generated projects: run without a trust record.
    hookbridge_core::trust::vouch_for_project_hooks(&mut set);
    assert!(
        set.diagnostics.is_empty(),
        "bench config has problems: {:?}",
        set.diagnostics
    );
    set
}

/// The floor: spawn every command at once with piped stdin/stdout, write the payload to each and
/// close its stdin, read its stdout to EOF, wait for it. Nothing else.
fn floor(commands: &[String], payload: &[u8]) {
    let mut children = Vec::with_capacity(commands.len());
    for command in commands {
        let child = Command::new("/bin/sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawning /bin/sh");
        children.push(child);
    }
    for mut child in children {
        let mut stdin = child.stdin.take().expect("piped stdin");
        let _ = stdin.write_all(payload); // EPIPE if the hook exited first: fine
        drop(stdin);
        let mut stdout = child.stdout.take().expect("piped stdout");
        io::copy(&mut stdout, &mut io::sink()).expect("reading stdout");
        child.wait().expect("waiting for the child");
    }
}

/// The runner's child built with the standard library instead: stderr piped and drained too, its
/// own process group, the hook environment Claude Code gives, the payload's `cwd`.
fn std_command(commands: &[String], payload: &[u8], env: &[(String, String)], cwd: &Path) {
    let mut children = Vec::with_capacity(commands.len());
    for command in commands {
        let child = Command::new("/bin/sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(cwd)
            .process_group(0)
            .spawn()
            .expect("spawning /bin/sh");
        children.push(child);
    }
    for mut child in children {
        let mut stdin = child.stdin.take().expect("piped stdin");
        let _ = stdin.write_all(payload);
        drop(stdin);
        // One after the other: `true` prints nothing, so neither pipe can fill up meanwhile.
        let mut sink = Vec::new();
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        stdout
            .read_to_end(&mut sink)
            .and(stderr.read_to_end(&mut sink))
            .expect("reading output");
        child.wait().expect("waiting for the child");
    }
}

/// The runner's spawn and supervising loop for all the commands at once, without selection,
/// environment building, interpretation or merging.
fn run_processes(commands: &[String], payload: &Arc<[u8]>, env: &[(String, String)], cwd: &Path) {
    let specs = commands
        .iter()
        .map(|command| {
            let mut spec = ProcessSpec::new(Program::shell(command.clone()));
            spec.stdin = payload.clone();
            spec.cwd = Some(cwd.to_path_buf());
            spec.env = env.iter().map(|(k, v)| (k.into(), v.into())).collect();
            spec
        })
        .collect();
    run_all(specs, None, |_, outcome| {
        assert_eq!(outcome.status.exit_code(), Some(0), "{outcome:?}");
        Flow::Continue
    });
}

/// The environment dispatch gives a non-plugin hook of a PreToolUse event with a session id.
fn hook_env(project: &Path) -> Vec<(String, String)> {
    let project = project.to_string_lossy().into_owned();
    let hooks_dir = format!("{project}/{HOOKS_DIR_NAME}");
    let session = "9f1c2d7e-bench-4a1b-9c3d-5e6f7a8b9c0d".to_string();
    vec![
        ("CLAUDE_PROJECT_DIR".into(), project.clone()),
        ("AMPLIFIER_PROJECT_DIR".into(), project),
        ("AMPLIFIER_HOOKS_DIR".into(), hooks_dir),
        ("AMPLIFIER_SESSION_ID".into(), session.clone()),
        ("CLAUDE_CODE_SESSION_ID".into(), session),
    ]
}

/// CPU time so far of this thread and of every child reaped, in ns. The runner works on the
/// calling thread, so this thread does all of its work.
fn cpu_ns() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    let ns = |who| {
        let usage = getrusage(who).expect("getrusage");
        let (u, s) = (usage.user_time(), usage.system_time());
        (u.tv_sec() + s.tv_sec()) as f64 * 1e9 + (u.tv_usec() + s.tv_usec()) as f64 * 1e3
    };
    ns(UsageWho::RUSAGE_THREAD) + ns(UsageWho::RUSAGE_CHILDREN)
}

/// One spawn fixture: K matching hooks in a temp project, and everything the variants need.
struct SpawnFixture {
    dir: tempfile::TempDir,
    commands: Vec<String>,
    set: HookSet,
    payload: EventPayload,
    stdin: Arc<[u8]>,
    env: Vec<(String, String)>,
    options: DispatchOptions,
}

impl SpawnFixture {
    fn new(k: usize) -> SpawnFixture {
        let dir = tempfile::tempdir().expect("a temp dir");
        let commands = true_commands(k);
        project_with(dir.path(), &commands);
        let set = load(dir.path());
        let payload = bash_payload(dir.path());
        assert_eq!(set.select(&payload).hooks.len(), k, "every hook must match");
        SpawnFixture {
            stdin: Arc::from(payload.to_stdin_bytes()),
            env: hook_env(dir.path()),
            options: DispatchOptions::new(dir.path()),
            commands,
            set,
            payload,
            dir,
        }
    }

    fn project(&self) -> &Path {
        self.dir.path()
    }

    /// Runs one variant once.
    fn run(&self, variant: Variant) {
        match variant {
            Variant::Floor => floor(&self.commands, &self.stdin),
            Variant::StdCommand => std_command(&self.commands, &self.stdin, &self.env, self.project()),
            Variant::RunProcess => run_processes(&self.commands, &self.stdin, &self.env, self.project()),
            Variant::Dispatch => {
                let report = dispatch(&self.set, &self.payload, &self.options);
                assert_eq!(report.hooks.len(), self.commands.len());
                black_box(report);
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Floor,
    StdCommand,
    RunProcess,
    Dispatch,
}

const VARIANTS: [(Variant, &str); 4] = [
    (Variant::Floor, "floor"),
    (Variant::StdCommand, "std_command"),
    (Variant::RunProcess, "run_process"),
    (Variant::Dispatch, "dispatch"),
];

fn bench_spawn(c: &mut Criterion) {
    for k in KS {
        let fixture = SpawnFixture::new(k);
        let mut group = c.benchmark_group(format!("spawn_k{k}"));
        group.throughput(Throughput::Elements(k as u64));
        group
            .sample_size(20)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(5));
        for (variant, name) in VARIANTS {
            group.bench_function(name, |b| b.iter(|| fixture.run(variant)));
        }
        group.finish();
    }
}

fn bench_no_match(c: &mut Criterion) {
    let mut group = c.benchmark_group("no_match");
    group.throughput(Throughput::Elements(1));

    // A typical project: a few hooks, none registered for Notification.
    let typical = tempfile::tempdir().expect("a temp dir");
    let config = serde_json::json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
        "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "./lint.sh"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./context.sh"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "./start.sh"}]}],
    }});
    write(
        &typical.path().join(HOOKS_DIR_NAME).join("hooks.json"),
        &config.to_string(),
    );
    let typical_set = load(typical.path());
    let notification = EventPayload::parse(
        EventName::Notification,
        br#"{"session_id":"s","cwd":"/tmp","message":"Claude needs your permission","notification_type":"permission_prompt"}"#,
    )
    .expect("a valid payload");
    assert!(typical_set.select(&notification).hooks.is_empty());

    // Many PreToolUse groups, none for the tool being called.
    let read = |dir: &Path| {
        EventPayload::parse(
            EventName::PreToolUse,
            serde_json::json!({"session_id": "s", "cwd": dir, "tool_name": "Read",
                "tool_input": {"file_path": "/tmp/x.rs"}, "tool_use_id": "t"})
            .to_string()
            .as_bytes(),
        )
        .expect("a valid payload")
    };
    let some = tempfile::tempdir().expect("a temp dir");
    project_with_plugins(some.path(), SOME_PLUGINS);
    let some_set = load(some.path());
    let many = tempfile::tempdir().expect("a temp dir");
    project_with_plugins(many.path(), MANY_PLUGINS);
    let many_set = load(many.path());

    let cases = [
        ("no_group_for_event", &typical_set, notification),
        ("64_groups_none_match", &some_set, read(some.path())),
        ("1000_groups_none_match", &many_set, read(many.path())),
    ];
    for (name, set, payload) in &cases {
        assert!(
            set.select(payload).hooks.is_empty() && set.select(payload).skipped.is_empty(),
            "{name}"
        );
        group.bench_function(BenchmarkId::new("select", name), |b| {
            b.iter(|| black_box(set).select(black_box(payload)))
        });
    }
    for (name, set, payload) in &cases {
        let options = DispatchOptions::new(typical.path());
        group.bench_function(BenchmarkId::new("dispatch", name), |b| {
            b.iter(|| dispatch(black_box(set), black_box(payload), &options))
        });
    }
    group.finish();
}

fn bench_rule_hook(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("a temp dir");
    write(
        &tmp.path().join(HOOKS_DIR_NAME).join("hooks.yaml"),
        "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: Bash, args: {command: \"rm *\"}}\n      action: block\n      message: Destructive rm commands require confirmation\n    - type: matcher\n      match: {tool: Write, args: {path: \"**/.env*\"}}\n      action: block\n      message: Cannot modify environment files\n",
    );
    let set = load(tmp.path());
    assert_eq!(set.hooks().count(), 2, "{:?}", set.diagnostics);
    let call = |command: &str| {
        let json = serde_json::json!({"session_id": "s", "cwd": tmp.path(), "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t"});
        EventPayload::parse(EventName::PreToolUse, json.to_string().as_bytes()).expect("a valid payload")
    };
    let options = DispatchOptions::new(tmp.path());
    let mut group = c.benchmark_group("rule_hook");
    group.throughput(Throughput::Elements(1));
    for (name, command, blocks) in [("blocks", "rm -rf /", true), ("allows", "ls -la src", false)] {
        let payload = call(command);
        let report = dispatch(&set, &payload, &options);
        assert_eq!(
            report.decision.blocking.is_some() || report.decision.permission.is_some(),
            blocks,
            "{name}"
        );
        group.bench_function(BenchmarkId::new("dispatch", name), |b| {
            b.iter(|| dispatch(black_box(&set), black_box(&payload), &options))
        });
    }
    group.finish();
}

fn bench_load(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("a temp dir");
    project_with_plugins(tmp.path(), MANY_PLUGINS);
    let options = DiscoveryOptions::new(tmp.path(), None);
    assert_eq!(load(tmp.path()).hooks().count(), 2 * MANY_PLUGINS);

    let mut group = c.benchmark_group("load");
    group.sample_size(20).measurement_time(Duration::from_secs(8));
    // Each loaded set is freed after its own timing, before the next load: the target is
    // loading, and `hookbridge run` never frees the set (it exits).
    group.bench_function("discover_1000_plugins", |b| {
        b.iter_batched(|| (), |()| discover(black_box(&options)), BatchSize::PerIteration)
    });
    group.finish();
}

/// The four spawn variants interleaved: every round runs each once, in a fresh random order, so
/// whatever else the machine is doing weighs on all of them alike. Prints a table and, when
/// `HOOKBRIDGE_BENCH_PAIRED_OUT` names a file, writes the figures there as JSON.
fn spawn_paired() {
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64; // xorshift: a fixed, dependency-free shuffle
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut results = serde_json::Map::new();
    println!(
        "\nspawn_paired: the variants interleaved, a random order per round; per hook, median over rounds;"
    );
    println!("ratio = median of the per-round ratios to the floor");
    for k in KS {
        let fixture = SpawnFixture::new(k);
        let rounds = if k == 1 { 1000 } else { 250 };
        let warmup = rounds / 10;
        let mut wall: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); VARIANTS.len()];
        let mut cpu: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); VARIANTS.len()];
        for round in 0..warmup + rounds {
            let mut order = [0, 1, 2, 3];
            for i in (1..order.len()).rev() {
                order.swap(i, (next() % (i as u64 + 1)) as usize);
            }
            for &v in &order {
                let (cpu_before, started) = (cpu_ns(), Instant::now());
                fixture.run(VARIANTS[v].0);
                let elapsed = started.elapsed().as_secs_f64() * 1e9;
                let spent = cpu_ns() - cpu_before;
                if round >= warmup {
                    wall[v].push(elapsed / k as f64);
                    cpu[v].push(spent / k as f64);
                }
            }
        }
        let mut entry = serde_json::Map::new();
        for (v, (_, name)) in VARIANTS.iter().enumerate() {
            let ratio =
                |xs: &[Vec<f64>]| median(&xs[v].iter().zip(&xs[0]).map(|(t, f)| t / f).collect::<Vec<_>>());
            let (wall_ns, cpu_ns) = (median(&wall[v]), median(&cpu[v]));
            let (wall_ratio, cpu_ratio) = (ratio(&wall), ratio(&cpu));
            println!(
                "  K = {k}, {name:<20} wall {:>8.1} µs/hook  {wall_ratio:.3}× floor   CPU {:>8.1} µs/hook  {cpu_ratio:.3}× floor",
                wall_ns / 1e3,
                cpu_ns / 1e3
            );
            entry.insert(
                (*name).to_string(),
                serde_json::json!({
                    "wall_ns_per_hook": wall_ns, "wall_ratio": wall_ratio,
                    "cpu_ns_per_hook": cpu_ns, "cpu_ratio": cpu_ratio,
                    "rounds": rounds,
                }),
            );
        }
        results.insert(format!("k{k}"), serde_json::Value::Object(entry));
    }
    if let Some(path) = std::env::var_os("HOOKBRIDGE_BENCH_PAIRED_OUT") {
        fs::write(&path, serde_json::Value::Object(results).to_string()).expect("writing the paired results");
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    match sorted.len() & 1 {
        1 => sorted[mid],
        _ => (sorted[mid - 1] + sorted[mid]) / 2.0,
    }
}

fn main() {
    // Name filters as criterion takes them (`cargo bench --bench dispatch -- no_match`); the
    // paired run is named `spawn_paired`. Under `cargo test --benches` (no `--bench` flag)
    // criterion runs each benchmark once as a smoke test, and the paired run is skipped.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let benchmarking = args.iter().any(|a| a == "--bench");
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let mut criterion = Criterion::default().configure_from_args();
    bench_spawn(&mut criterion);
    bench_no_match(&mut criterion);
    bench_load(&mut criterion);
    bench_rule_hook(&mut criterion);
    criterion.final_summary();
    if benchmarking && (filters.is_empty() || filters.iter().any(|f| "spawn_paired".contains(f.as_str()))) {
        spawn_paired();
    }
}
