//! `validate`'s look at what a command hook will start: a script that does not exist fails every
//! time (exit 127, a non-blocking error — a guard that silently guards nothing), and a program that
//! is not on `PATH` probably will. Found before the agent runs, not in the log afterwards.
//!
//! Only simple commands are judged (read by [`hookbridge_core::shell_words`]) — `[VAR=value …]
//! program [args…]`, where `program` may be an interpreter (`bash`, `python3`, `node`, …) followed
//! by a script path — with the variables hookbridge itself gives hooks expanded
//! (`${CLAUDE_PLUGIN_ROOT}`, `$CLAUDE_PROJECT_DIR`, …). Anything with other shell syntax (pipes,
//! `&&`, command substitution, unknown variables) is left alone: a preflight must never call a
//! working hook broken.

use std::path::{Path, PathBuf};

use hookbridge_core::shell_words::simple_command;

/// Interpreters whose first non-option argument is the script they run.
const INTERPRETERS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "python", "python3", "node", "deno", "bun", "ruby", "perl", "php", "pwsh",
    "uv",
];

/// What is wrong with what `command` starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A script or program named by path that does not exist (an error: the hook cannot run).
    Missing(PathBuf),
    /// A program looked up in `PATH` that is not there now (a warning: the host's `PATH` may differ).
    NotOnPath(String),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Missing(path) => write!(
                f,
                "`{}` does not exist: the hook fails every time (exit 127)",
                path.display()
            ),
            Problem::NotOnPath(name) => write!(
                f,
                "`{name}` is not on PATH here; the hook fails unless the host's PATH has it"
            ),
        }
    }
}

/// The problems of a shell-form `command`, with `vars` (name → value) expanded and relative
/// script paths taken from `base` (the project directory, where hooks usually run).
pub fn check(command: &str, vars: &[(&str, &Path)], base: &Path) -> Vec<Problem> {
    let lookup = |name: &str| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, value)| value.as_os_str().to_owned())
    };
    match simple_command(command, &lookup) {
        Ok(command) => check_words(command.words, base),
        Err(_) => Vec::new(),
    }
}

/// The problems of an exec-form hook: `program` and its `args`, one word each.
pub fn check_exec(program: &str, args: &[String], base: &Path) -> Vec<Problem> {
    check_words(
        std::iter::once(program.to_string())
            .chain(args.iter().cloned())
            .collect(),
        base,
    )
}

fn check_words(words: Vec<String>, base: &Path) -> Vec<Problem> {
    let mut words = words.into_iter();
    let Some(program) = words.next() else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    let name = Path::new(&program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string();
    if program.contains('/') {
        let path = resolve(&program, base);
        if !path.exists() {
            return vec![Problem::Missing(path)];
        }
    } else if !on_path(&program) {
        problems.push(Problem::NotOnPath(program.clone()));
    }
    if INTERPRETERS.contains(&name.as_str()) {
        // `uv run x.py`: the script follows `run`.
        let mut args = words.skip_while(|w| name == "uv" && w == "run");
        let mut script = None;
        for arg in args.by_ref() {
            // Inline code, a module or stdin: there is no script file to look for.
            if ["-c", "-e", "--eval", "-m", "-p", "--print", "-", "--command"].contains(&arg.as_str()) {
                break;
            }
            if !arg.starts_with('-') {
                script = Some(arg);
                break;
            }
        }
        if let Some(script) = script.filter(|s| looks_like_a_script(s)) {
            let path = resolve(&script, base);
            if !path.exists() {
                problems.push(Problem::Missing(path));
            }
        }
    }
    problems
}

fn looks_like_a_script(word: &str) -> bool {
    word.contains('/')
        || [
            ".sh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".ps1",
        ]
        .iter()
        .any(|ext| word.ends_with(ext))
}

fn resolve(path: &str, base: &Path) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

fn on_path(program: &str) -> bool {
    find_on_path(program).is_some()
}

/// Where `PATH` finds the executable `program`, as a shell would.
pub(crate) fn find_on_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            std::fs::metadata(candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_scripts_and_programs_are_found_and_shell_syntax_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let plugin = dir.path().join("plugin");
        std::fs::create_dir_all(&plugin).unwrap();
        std::fs::write(plugin.join("ok.sh"), "exit 0").unwrap();
        let vars: &[(&str, &Path)] = &[
            ("CLAUDE_PLUGIN_ROOT", &plugin),
            ("CLAUDE_PROJECT_DIR", dir.path()),
        ];
        let base = dir.path();
        assert_eq!(check("bash ${CLAUDE_PLUGIN_ROOT}/ok.sh", vars, base), vec![]);
        assert_eq!(
            check("bash \"${CLAUDE_PLUGIN_ROOT}/gone.sh\" --fast", vars, base),
            vec![Problem::Missing(plugin.join("gone.sh"))]
        );
        assert_eq!(
            check("FOO=1 python3 -u hooks/lint.py", vars, base),
            vec![Problem::Missing(base.join("hooks/lint.py"))]
        );
        assert_eq!(
            check("$CLAUDE_PROJECT_DIR/bin/guard", vars, base),
            vec![Problem::Missing(base.join("bin/guard"))]
        );
        assert_eq!(
            check("no-such-program-hookbridge --x", vars, base),
            vec![Problem::NotOnPath("no-such-program-hookbridge".into())]
        );
        // Shell syntax, unknown variables, inline code: not judged.
        for command in [
            "cat | jq .",
            "bash $UNKNOWN/x.sh",
            "test -f x && bash gone.sh",
            "python3 -c 'print(1)'",
            "python3 -c 'open(\"a/b\")'",
            "node -e 'require(\"./x.js\")'",
            "echo '{\"ok\": true}'",
        ] {
            assert_eq!(check(command, vars, base), vec![], "{command}");
        }
    }
}
