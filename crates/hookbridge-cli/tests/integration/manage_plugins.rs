//! `install`, `uninstall`, `enable`, `disable` and `marketplace`: plugins go into a hooks
//! directory unmodified and run with `${CLAUDE_PLUGIN_ROOT}`; what is switched off stays listed and
//! is reported as skipped; mistakes are errors with a "did you mean", and nothing is left half-done.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::project::Project;
use serde_json::{json, Value};

/// A Claude Code plugin folder whose PreToolUse hook blocks every Bash call with `reason`.
fn guard_plugin(root: &Path, name: &str, reason: &str) -> PathBuf {
    let dir = root.join(name);
    fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
    fs::create_dir_all(dir.join("hooks")).unwrap();
    fs::create_dir_all(dir.join("scripts")).unwrap();
    fs::write(
        dir.join(".claude-plugin/plugin.json"),
        json!({"name": name, "version": "1.0.0"}).to_string(),
    )
    .unwrap();
    fs::write(
        dir.join("hooks/hooks.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh\""}
        ]}]}})
        .to_string(),
    )
    .unwrap();
    fs::write(
        dir.join("scripts/guard.sh"),
        format!("cat >/dev/null; echo '{reason}' >&2; exit 2\n"),
    )
    .unwrap();
    dir
}

fn cli(p: &Project, args: &[&str]) -> common::Finished {
    let dir = p.dir.to_string_lossy().into_owned();
    let mut all: Vec<&str> = args.to_vec();
    if !matches!(args.first(), Some(&"marketplace")) {
        all.extend(["--project-dir", &dir]);
    }
    p.finish(p.hookbridge(&all), b"")
}

/// `hookbridge ARGS` fails with `code` and a message saying `why`.
fn refused(p: &Project, args: &[&str], code: i32, why: &str) {
    let done = cli(p, args);
    assert_eq!(done.code, Some(code), "{args:?}: {}", done.stderr_str());
    assert!(done.stderr_str().contains(why), "{args:?}: {}", done.stderr_str());
}

fn blocked(p: &Project) -> Option<String> {
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    (done.code == Some(2)).then(|| done.stderr_str())
}

fn list_json(p: &Project) -> Value {
    let done = cli(p, &["list", "--json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    serde_json::from_slice(&done.stdout).unwrap()
}

#[test]
fn a_folder_installs_unmodified_and_runs_with_its_plugin_root() {
    let p = Project::new(json!({"hooks": {}}));
    let src = tempfile::tempdir().unwrap();
    let plugin = guard_plugin(src.path(), "guard", "no bash");
    let done = cli(&p, &["install", plugin.to_str().unwrap()]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("installed plugin `guard`"),
        "{}",
        done.stderr_str()
    );
    let installed = p.dir.join(".amplifier/hooks/guard");
    assert_eq!(
        fs::read(installed.join("hooks/hooks.json")).unwrap(),
        fs::read(plugin.join("hooks/hooks.json")).unwrap()
    );
    assert_eq!(blocked(&p).as_deref(), Some("no bash\n"));

    let again = cli(&p, &["install", plugin.to_str().unwrap()]);
    assert_eq!(again.code, Some(64), "{}", again.stderr_str());
    assert!(
        again.stderr_str().contains("already exists"),
        "{}",
        again.stderr_str()
    );
    fs::write(
        plugin.join("scripts/guard.sh"),
        "cat >/dev/null; echo 'v2' >&2; exit 2\n",
    )
    .unwrap();
    let forced = cli(&p, &["install", plugin.to_str().unwrap(), "--force"]);
    assert_eq!(forced.code, Some(0), "{}", forced.stderr_str());
    assert!(
        forced.stderr_str().contains("replaced plugin `guard`"),
        "{}",
        forced.stderr_str()
    );
    assert_eq!(blocked(&p).as_deref(), Some("v2\n"));
    let mut leftovers: Vec<_> = fs::read_dir(p.dir.join(".amplifier/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    leftovers.sort();
    assert_eq!(
        leftovers,
        ["guard", "hooks.json"],
        "no staging folder is left behind"
    );

    let removed = cli(&p, &["uninstall", "guard"]);
    assert_eq!(removed.code, Some(0), "{}", removed.stderr_str());
    assert!(!installed.exists());
    assert_eq!(blocked(&p), None);
    let typo = cli(&p, &["uninstall", "gaurd"]);
    assert_eq!(typo.code, Some(64));
}

#[test]
fn a_source_without_hooks_or_that_runs_hookbridge_is_refused_and_leaves_nothing() {
    let p = Project::new(json!({"hooks": {}}));
    let src = tempfile::tempdir().unwrap();
    let empty = src.path().join("skills-only");
    fs::create_dir_all(empty.join(".claude-plugin")).unwrap();
    fs::write(
        empty.join(".claude-plugin/plugin.json"),
        r#"{"name": "skills-only"}"#,
    )
    .unwrap();
    let done = cli(&p, &["install", empty.to_str().unwrap()]);
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("no hooks found"),
        "{}",
        done.stderr_str()
    );

    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/hookbridge");
    let done = cli(&p, &["install", shipped.to_str().unwrap()]);
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("it would run itself"),
        "{}",
        done.stderr_str()
    );

    let names: Vec<String> = fs::read_dir(p.dir.join(".amplifier/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["hooks.json"]);
}

#[test]
fn disabling_a_plugin_or_one_hook_keeps_it_listed_and_skips_it() {
    let p =
        Project::new(json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./gone.sh"}]}]}}));
    guard_plugin(&p.dir.join(".amplifier/hooks"), "guard", "no bash");
    assert!(blocked(&p).is_some());
    // A missing script is an error for validate…
    assert_eq!(cli(&p, &["validate"]).code, Some(1));

    let done = cli(&p, &["disable", "guard"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert_eq!(blocked(&p), None);
    let listed = list_json(&p);
    let guard = listed["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["plugin"] == "guard")
        .unwrap();
    assert!(
        guard["disabled"]
            .as_str()
            .unwrap()
            .contains("plugin `guard` is disabled"),
        "{guard}"
    );
    let report = p.report(p.command("PreToolUse", "report"), &p.payload("PreToolUse"));
    assert!(
        report.to_string().contains("plugin `guard` is disabled"),
        "skipped, and said so: {report}"
    );
    let text = cli(&p, &["list"]).stdout_str();
    assert!(text.contains("DISABLED: plugin `guard` is disabled"), "{text}");

    // …and disabling that one hook makes validate pass: what is off is not checked.
    let done = cli(&p, &["disable", "Stop:./gone.sh"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert_eq!(cli(&p, &["validate"]).code, Some(0));
    let state: Value =
        serde_json::from_str(&p.read(".amplifier/hooks/hookbridge-state.json").unwrap()).unwrap();
    assert_eq!(
        state,
        json!({"disabledPlugins": ["guard"], "disabledHooks": [{"event": "Stop", "hook": "./gone.sh"}]})
    );
    let twice = cli(&p, &["disable", "guard"]);
    assert!(
        twice.stderr_str().contains("already disabled"),
        "{}",
        twice.stderr_str()
    );

    assert_eq!(cli(&p, &["enable", "guard"]).code, Some(0));
    assert!(blocked(&p).is_some());
    assert_eq!(cli(&p, &["enable", "Stop:./gone.sh"]).code, Some(0));
    assert!(
        p.read(".amplifier/hooks/hookbridge-state.json").is_none(),
        "an empty state file goes"
    );
}

#[test]
fn unknown_targets_are_errors_with_a_did_you_mean() {
    let p =
        Project::new(json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./check.sh"}]}]}}));
    guard_plugin(&p.dir.join(".amplifier/hooks"), "guard", "no");
    let done = cli(&p, &["disable", "gurad"]);
    assert_eq!(done.code, Some(64));
    assert!(
        done.stderr_str().contains("did you mean `guard`?"),
        "{}",
        done.stderr_str()
    );
    let done = cli(&p, &["disable", "Stop:./chek.sh"]);
    assert_eq!(done.code, Some(64));
    assert!(
        done.stderr_str().contains("did you mean `Stop:./check.sh`?"),
        "{}",
        done.stderr_str()
    );
    assert!(p.read(".amplifier/hooks/hookbridge-state.json").is_none());

    // A state file naming something that is gone is a warning in validate.
    p.file(
        ".amplifier/hooks/hookbridge-state.json",
        r#"{"disabledPlugins": ["gaurd"]}"#,
    );
    let done = cli(&p, &["validate"]);
    assert!(
        done.stderr_str()
            .contains("disables plugin `gaurd`, which has no hooks"),
        "{}",
        done.stderr_str()
    );
    assert!(
        done.stderr_str().contains("did you mean `guard`?"),
        "{}",
        done.stderr_str()
    );
    // A broken one is an error with its position, and every hook runs.
    p.file(
        ".amplifier/hooks/hookbridge-state.json",
        "{\n  \"disabledPlugins\": [\"guard\",]\n}",
    );
    let done = cli(&p, &["validate"]);
    assert_eq!(done.code, Some(1));
    assert!(
        done.stderr_str().contains("hookbridge-state.json:2:"),
        "{}",
        done.stderr_str()
    );
    assert!(blocked(&p).is_some());
}

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new(common::require_program("git"))
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_git_url_and_a_marketplace_install_by_name() {
    let p = Project::new(json!({"hooks": {}}));
    let repo = tempfile::tempdir().unwrap();
    guard_plugin(&repo.path().join("plugins"), "guard", "from git");
    fs::create_dir_all(repo.path().join(".claude-plugin")).unwrap();
    fs::write(
        repo.path().join(".claude-plugin/marketplace.json"),
        json!({"name": "tools", "owner": {"name": "t"}, "plugins": [
            {"name": "guard", "source": "./plugins/guard", "description": "blocks bash"},
            {"name": "on-npm", "source": {"source": "npm", "package": "x"}}
        ]})
        .to_string(),
    )
    .unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "plugin"]);
    let url = format!("file://{}", repo.path().display());

    // The whole repository is not a plugin; its folder is, by git URL and subfolder-free name.
    let done = cli(&p, &["marketplace", "add", &url]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert!(
        done.stderr_str()
            .contains("added marketplace `tools` (2 plugin(s)"),
        "{}",
        done.stderr_str()
    );
    let listed = cli(&p, &["marketplace", "list"]).stdout_str();
    assert!(listed.contains("guard@tools  blocks bash"), "{listed}");

    let done = cli(&p, &["install", "guard@tools"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert_eq!(blocked(&p).as_deref(), Some("from git\n"));
    assert!(!p.dir.join(".amplifier/hooks/guard/.git").exists());

    let npm = cli(&p, &["install", "on-npm@tools"]);
    assert_eq!(npm.code, Some(1));
    assert!(
        npm.stderr_str().contains("`npm` is not supported"),
        "{}",
        npm.stderr_str()
    );
    let typo = cli(&p, &["install", "gaurd@tools"]);
    assert_eq!(typo.code, Some(64));
    assert!(
        typo.stderr_str().contains("did you mean `guard`?"),
        "{}",
        typo.stderr_str()
    );

    // A plain git URL whose root is a plugin.
    let plugin_repo = tempfile::tempdir().unwrap();
    let plugin = guard_plugin(plugin_repo.path(), "blocker", "from a plugin repo");
    git(&plugin, &["init", "-q"]);
    git(&plugin, &["add", "-A"]);
    git(&plugin, &["commit", "-q", "-m", "plugin"]);
    cli(&p, &["uninstall", "guard"]);
    let done = cli(
        &p,
        &["install", &format!("file://{}", plugin.display()), "--user"],
    );
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert!(p.home.join(".amplifier/hooks/blocker/hooks/hooks.json").exists());
    assert!(!p.home.join(".amplifier/hooks/blocker/.git").exists());
    assert_eq!(blocked(&p).as_deref(), Some("from a plugin repo\n"));

    assert_eq!(cli(&p, &["marketplace", "remove", "tools"]).code, Some(0));
    assert!(!p.home.join(".amplifier/marketplaces/tools").exists());
    assert_eq!(cli(&p, &["install", "guard@tools"]).code, Some(64));
}

#[test]
fn from_a_subfolder_the_nearest_project_is_found_and_named() {
    let p =
        Project::new(json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo found"}]}]}}));
    let deep = p.dir.join("src/module");
    fs::create_dir_all(&deep).unwrap();
    let mut cmd = p.hookbridge(["list", "--json"]);
    cmd.current_dir(&deep);
    let done = p.finish(cmd, b"");
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert!(
        done.stderr_str()
            .contains(&format!("using the project {}", p.dir.display())),
        "{}",
        done.stderr_str()
    );
    let listed: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(listed["hooks"][0]["label"], "echo found");
}

#[test]
fn validate_json_lists_every_problem_with_its_place() {
    let p = Project::new(json!({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "./gone.sh"},
        {"type": "command", "command": "true", "timout": 5}
    ]}]}}));
    let done = cli(&p, &["validate", "--json"]);
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert_eq!(done.stderr_str(), "", "JSON mode writes nothing on stderr");
    let report: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        (report["errors"].as_u64(), report["warnings"].as_u64()),
        (Some(1), Some(1)),
        "{report}"
    );
    let problems = report["problems"].as_array().unwrap();
    let typo = problems.iter().find(|d| d["severity"] == "warning").unwrap();
    assert_eq!(typo["key"], "hooks.Stop[0].hooks[1].timout");
    assert!(
        typo["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `timeout`?"),
        "{typo}"
    );
    assert_eq!(typo["line"], 13, "{typo}");
    let missing = problems.iter().find(|d| d["severity"] == "error").unwrap();
    assert_eq!(missing["key"], "hooks.Stop[0].hooks[0]");
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("gone.sh` does not exist"),
        "{missing}"
    );
    assert!(missing["file"]
        .as_str()
        .unwrap()
        .ends_with(".amplifier/hooks/hooks.json"));
}

#[test]
fn validate_text_has_a_help_line_and_colours_only_when_asked() {
    let p = Project::new(json!({"hooks": {"Stop": [{"hooks": [{"type": "comand", "command": "x"}]}]}}));
    let plain = cli(&p, &["validate"]);
    assert_eq!(plain.code, Some(1));
    let err = plain.stderr_str();
    assert!(err.contains("unknown hook type `comand` (expected"), "{err}");
    assert!(err.contains("\n  = help: did you mean `command`?\n"), "{err}");
    assert!(err.contains("^^^^^^^^"), "a caret under `\"comand\"`: {err}");
    assert!(!err.contains('\u{1b}'), "not a terminal: no colour: {err}");
    let coloured = cli(&p, &["validate", "--color", "always"]).stderr_str();
    assert!(
        coloured.contains("\u{1b}[1m\u{1b}[91merror\u{1b}[0m"),
        "{coloured}"
    );
    let mut cmd = p.hookbridge([
        "validate",
        "--project-dir",
        p.dir.to_str().unwrap(),
        "--color",
        "never",
    ]);
    cmd.env("CLICOLOR_FORCE", "1");
    assert!(!p.finish(cmd, b"").stderr_str().contains('\u{1b}'));
}

/// The files discovery reads in a hooks directory are no plugin names, `--force` or not: a plugin
/// whose manifest calls it `hooks.json` would replace the user's own guard file, one called
/// `hookbridge-state.json` the disabled list; `uninstall` of those names is refused too.
#[test]
fn a_plugin_is_never_named_after_a_file_of_the_hooks_directory() {
    let guard = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo 'my guard' >&2; exit 2"}
    ]}]}});
    let p = Project::new(guard.clone());
    let hooks_dir = p.dir.join(".amplifier/hooks");
    fs::write(
        hooks_dir.join("hookbridge-state.json"),
        "{\"disabledPlugins\": [\"gone\"]}",
    )
    .unwrap();
    let before = |name: &str| fs::read_to_string(hooks_dir.join(name)).unwrap();
    let (guard_text, state_text) = (before("hooks.json"), before("hookbridge-state.json"));
    let sources = tempfile::tempdir().unwrap();
    for reserved in ["hooks.json", "hookbridge-state.json", "hooks.yaml", "Hooks.JSON"] {
        let plugin = guard_plugin(sources.path(), &format!("p-{}", reserved.len()), "evil");
        fs::write(
            plugin.join(".claude-plugin/plugin.json"),
            json!({"name": reserved}).to_string(),
        )
        .unwrap();
        let plugin = plugin.to_string_lossy().into_owned();
        for args in [
            vec!["install", plugin.as_str(), "--force"],
            vec!["install", plugin.as_str(), "--force", "--name", reserved],
        ] {
            refused(&p, &args, 64, "cannot be a plugin name");
        }
        let done = cli(&p, &["uninstall", reserved]);
        assert_eq!(done.code, Some(64), "{}", done.stderr_str());
    }
    assert_eq!(before("hooks.json"), guard_text);
    assert_eq!(before("hookbridge-state.json"), state_text);
    let leftovers: Vec<_> = fs::read_dir(&hooks_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(leftovers.len(), 2, "{leftovers:?}");
    assert_eq!(blocked(&p).as_deref(), Some("my guard\n"));
}

/// A plugin folder holding a FIFO (which a plain copy would open and wait on forever), a socket
/// or a symlink out of the plugin installs without them, each named; nothing is left staging.
#[test]
fn a_plugin_copy_takes_regular_files_folders_and_links_inside_only() {
    let p = Project::new(json!({"hooks": {}}));
    let sources = tempfile::tempdir().unwrap();
    let dir = p.dir.to_string_lossy().into_owned();
    let install = |plugin: &Path| {
        let cmd = p.hookbridge(["install", &plugin.to_string_lossy(), "--project-dir", &dir]);
        let done = common::run_with_deadline(cmd, b"", std::time::Duration::from_secs(20));
        assert!(!done.timed_out, "install of {} hung", plugin.display());
        assert_eq!(done.code, Some(0), "{}", done.stderr_str());
        done.stderr_str()
    };
    let left_out = |err: &str, name: &str, what: &str| {
        assert!(
            err.lines()
                .any(|l| l.contains(name) && l.contains("left out") && l.contains(what)),
            "{name}: {err}"
        );
    };

    let piped = guard_plugin(sources.path(), "piped", "copied");
    let made = std::process::Command::new(common::require_program("mkfifo"))
        .arg(piped.join("scripts/pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    left_out(&install(&piped), "pipe", "a FIFO");
    assert_eq!(blocked(&p).as_deref(), Some("copied\n"));
    assert!(fs::symlink_metadata(p.dir.join(".amplifier/hooks/piped/scripts/pipe")).is_err());
    cli(&p, &["uninstall", "piped"]);

    let odd = guard_plugin(sources.path(), "odd", "copied");
    let _socket = std::os::unix::net::UnixListener::bind(odd.join("sock")).unwrap();
    let secret = p.home.join(".ssh/id_ed25519");
    fs::create_dir_all(secret.parent().unwrap()).unwrap();
    fs::write(&secret, "PRIVATE KEY").unwrap();
    std::os::unix::fs::symlink(&secret, odd.join("scripts/key")).unwrap();
    std::os::unix::fs::symlink("../../../..", odd.join("scripts/up")).unwrap();
    std::os::unix::fs::symlink("guard.sh", odd.join("scripts/guard-link.sh")).unwrap();
    // A link whose words stay inside but that leads out through another link (red-team pass 3):
    // `a/b/c/d` is the plugin's root, so `esc` is four folders above it.
    fs::create_dir_all(odd.join("a/b/c")).unwrap();
    std::os::unix::fs::symlink("../../..", odd.join("a/b/c/d")).unwrap();
    std::os::unix::fs::symlink("a/b/c/d/../../../..", odd.join("esc")).unwrap();
    // One that leads nowhere in the source, and out from the copy (red-team pass 12): `x` is
    // three folders above the plugin's root, through `l`, once installed.
    std::os::unix::fs::symlink("../..", odd.join("a/b/l")).unwrap();
    std::os::unix::fs::symlink("l/../../../SECRET-NOT-HERE.txt", odd.join("a/b/x")).unwrap();
    // A manifest that is a FIFO nobody writes (or `/dev/stdin`) neither hangs the install nor is
    // read (red-team pass 12): the manifest is read as discovery reads it.
    let manifest = odd.join(".claude-plugin/plugin.json");
    fs::remove_file(&manifest).unwrap();
    nix::unistd::mkfifo(&manifest, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let err = install(&odd);
    left_out(&err, "x", "outside the plugin");
    left_out(&err, "sock", "a socket");
    left_out(&err, "key", "outside the plugin");
    left_out(&err, "up", "outside the plugin");
    left_out(&err, "esc", "outside the plugin");
    let installed = p.dir.join(".amplifier/hooks/odd");
    assert!(installed.join("scripts/guard.sh").is_file());
    assert!(fs::symlink_metadata(installed.join("scripts/guard-link.sh"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::symlink_metadata(installed.join("a/b/c/d"))
        .unwrap()
        .file_type()
        .is_symlink());
    for gone in ["sock", "scripts/key", "scripts/up", "esc"] {
        assert!(
            fs::symlink_metadata(installed.join(gone)).is_err(),
            "{gone} was copied"
        );
    }
    let staging: Vec<_> = fs::read_dir(p.dir.join(".amplifier/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(staging.is_empty(), "{staging:?}");
    assert_eq!(blocked(&p).as_deref(), Some("copied\n"));
}

/// A project whose `.amplifier/hooks` links to the user's hooks directory, or whose state file
/// links out: `install`, `disable` and `uninstall` refuse to write there.
#[test]
fn a_project_hooks_directory_that_leads_outside_is_not_written() {
    let p = Project::new(json!({"hooks": {}}));
    let user_hooks = p.home.join(".amplifier/hooks");
    guard_plugin(&user_hooks, "mine", "the user's");
    fs::remove_dir_all(p.dir.join(".amplifier/hooks")).unwrap();
    std::os::unix::fs::symlink(&user_hooks, p.dir.join(".amplifier/hooks")).unwrap();
    let sources = tempfile::tempdir().unwrap();
    let plugin = guard_plugin(sources.path(), "guard", "from the repository");
    for args in [
        vec!["install", plugin.to_str().unwrap()],
        vec!["uninstall", "mine"],
        vec!["disable", "mine"],
    ] {
        refused(&p, &args, 1, "outside the project");
    }
    let names: Vec<_> = fs::read_dir(&user_hooks)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["mine"]);

    let p = Project::new(json!({"hooks": {}}));
    guard_plugin(&p.dir.join(".amplifier/hooks"), "guard", "x");
    let outside = p.home.join("notes.json");
    fs::write(&outside, "{\"disabledPlugins\": []}").unwrap();
    std::os::unix::fs::symlink(&outside, p.dir.join(".amplifier/hooks/hookbridge-state.json")).unwrap();
    for args in [["disable", "guard"], ["uninstall", "guard"]] {
        refused(&p, &args, 1, "outside the project");
    }
    assert!(p.dir.join(".amplifier/hooks/guard").is_dir(), "half an uninstall");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "{\"disabledPlugins\": []}");
}

/// A catalog's `git-subdir` `path` stays inside the clone: an absolute path, a `..` out of it, or
/// a symlink in the repository that leads out is refused, and nothing is installed.
#[test]
fn a_git_subdir_path_stays_inside_the_clone() {
    let p = Project::new(json!({"hooks": {}}));
    let elsewhere = tempfile::tempdir().unwrap();
    let local = guard_plugin(elsewhere.path(), "local", "a local folder");
    let repo = tempfile::tempdir().unwrap();
    guard_plugin(&repo.path().join("plugins"), "inside", "from the clone");
    std::os::unix::fs::symlink(&local, repo.path().join("plugins/linked")).unwrap();
    let url = format!("file://{}", repo.path().display());
    let relative_out = format!(
        "{}{}",
        "../".repeat(30),
        local.display().to_string().trim_start_matches('/')
    );
    let entries = [
        ("absolute", local.to_string_lossy().into_owned()),
        ("climbing", relative_out),
        ("linked", "plugins/linked".to_string()),
        ("inside", "plugins/inside".to_string()),
    ];
    fs::create_dir_all(repo.path().join(".claude-plugin")).unwrap();
    fs::write(
        repo.path().join(".claude-plugin/marketplace.json"),
        json!({"name": "subdirs", "owner": {"name": "t"}, "plugins": entries.iter().map(|(name, path)| json!(
            {"name": name, "source": {"source": "git-subdir", "url": url, "path": path}}
        )).collect::<Vec<_>>()})
        .to_string(),
    )
    .unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "catalog"]);
    assert_eq!(cli(&p, &["marketplace", "add", &url]).code, Some(0));
    for (name, _) in &entries[..3] {
        refused(
            &p,
            &["install", &format!("{name}@subdirs")],
            1,
            "inside the repository",
        );
    }
    let names: Vec<_> = fs::read_dir(p.dir.join(".amplifier/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["hooks.json"], "nothing was installed");
    let done = cli(&p, &["install", "inside@subdirs"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert_eq!(blocked(&p).as_deref(), Some("from the clone\n"));
}

/// A marketplace added under a name another source already holds is refused (saying which),
/// unless `--force`, which says what it replaced; the same source again is a refresh.
#[test]
fn a_marketplace_name_taken_by_another_source_needs_force() {
    let p = Project::new(json!({"hooks": {}}));
    let catalog = |root: &Path, reason: &str| {
        guard_plugin(&root.join("plugins"), "guard", reason);
        fs::create_dir_all(root.join(".claude-plugin")).unwrap();
        fs::write(
            root.join(".claude-plugin/marketplace.json"),
            json!({"name": "tools", "owner": {"name": "t"}, "plugins": [
                {"name": "guard", "source": "./plugins/guard"}
            ]})
            .to_string(),
        )
        .unwrap();
    };
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    catalog(first.path(), "the first");
    catalog(second.path(), "the second");
    let (first_path, second_path) = (first.path().to_str().unwrap(), second.path().to_str().unwrap());
    assert_eq!(cli(&p, &["marketplace", "add", first_path]).code, Some(0));
    let registry = p.home.join(".amplifier/marketplaces.json");
    let before = fs::read_to_string(&registry).unwrap();

    let done = cli(&p, &["marketplace", "add", second_path]);
    assert_eq!(done.code, Some(64), "{}", done.stderr_str());
    let err = done.stderr_str();
    assert!(
        err.contains("already added from") && err.contains(first_path),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    assert_eq!(fs::read_to_string(&registry).unwrap(), before);
    assert_eq!(cli(&p, &["install", "guard@tools"]).code, Some(0));
    assert_eq!(blocked(&p).as_deref(), Some("the first\n"));

    let again = cli(&p, &["marketplace", "add", first_path]);
    assert!(
        again.stderr_str().contains("refreshed marketplace `tools`"),
        "{}",
        again.stderr_str()
    );
    let forced = cli(&p, &["marketplace", "add", "--force", second_path]);
    assert_eq!(forced.code, Some(0), "{}", forced.stderr_str());
    assert!(
        forced.stderr_str().contains("replaced (it was") && forced.stderr_str().contains(first_path),
        "{}",
        forced.stderr_str()
    );
    assert_eq!(cli(&p, &["install", "guard@tools", "--force"]).code, Some(0));
    assert_eq!(blocked(&p).as_deref(), Some("the second\n"));
}

/// `marketplace remove` deletes hookbridge's own clones only: a folder added where it is stays,
/// however its path was spelled — through `~/.amplifier/marketplaces/<clone>/../../..` (added from
/// inside a clone) or a symlink there — and its registry entry is kept as the folder it really is.
#[test]
fn removing_a_folder_marketplace_never_deletes_the_folder_whatever_its_path_spells() {
    let p = Project::new(json!({"hooks": {}}));
    let clones = p.home.join(".amplifier/marketplaces");
    fs::create_dir_all(clones.join("official")).unwrap();
    let mine = p.home.join("code/my-catalog");
    fs::create_dir_all(mine.join(".claude-plugin")).unwrap();
    fs::write(
        mine.join(".claude-plugin/marketplace.json"),
        json!({"name": "mine", "plugins": []}).to_string(),
    )
    .unwrap();
    fs::write(mine.join("WORK.txt"), "precious").unwrap();
    std::os::unix::fs::symlink(&mine, clones.join("linked")).unwrap();
    for spelled in [
        clones.join("official/../../../code/my-catalog"),
        clones.join("linked"),
    ] {
        let done = cli(&p, &["marketplace", "add", spelled.to_str().unwrap()]);
        assert_eq!(done.code, Some(0), "{}", done.stderr_str());
        let registry: Value =
            serde_json::from_str(&fs::read_to_string(p.home.join(".amplifier/marketplaces.json")).unwrap())
                .unwrap();
        assert_eq!(
            registry["marketplaces"]["mine"]["root"],
            json!(mine.canonicalize().unwrap()),
            "kept as where it really is"
        );
        let done = cli(&p, &["marketplace", "remove", "mine"]);
        assert_eq!(done.code, Some(0), "{}", done.stderr_str());
        assert_eq!(
            fs::read_to_string(mine.join("WORK.txt")).ok().as_deref(),
            Some("precious"),
            "{spelled:?}"
        );
    }
    // A registry written before `cloned` was kept: a folder entry spelled through the clones
    // folder is not taken for a clone either.
    fs::write(
        p.home.join(".amplifier/marketplaces.json"),
        json!({"marketplaces": {"mine": {"source": "../../../code/my-catalog",
            "root": clones.join("official/../../../code/my-catalog")}}})
        .to_string(),
    )
    .unwrap();
    assert_eq!(cli(&p, &["marketplace", "remove", "mine"]).code, Some(0));
    assert!(mine.join("WORK.txt").exists());
}
