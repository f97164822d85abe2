//! A `command` hook: its fields (`command`, `args`, `shell`, `async`, `asyncRewake`, `warm`,
//! `sandbox`, `answers`) read into a [`CommandHook`], the placeholders a plugin's command may use expanded,
//! and the `sandbox` value's shape.

use serde_json::Value;

use crate::config::model::*;
use crate::diagnostics::Diagnostic;

use super::{HookFields, Reader};

impl Reader<'_> {
    pub(super) fn command_kind(
        &mut self,
        f: &mut HookFields,
        at: usize,
        usable: &mut bool,
    ) -> Option<HookKind> {
        let command = self.take_required(usable, "command", f.command.take(), at);
        let args = self.take(usable, "args", f.args.take());
        let shell = match self.take(usable, "shell", f.shell.take()) {
            Some("powershell") => Shell::PowerShell,
            _ => Shell::Default,
        };
        let run_async = self.take(usable, "async", f.run_async.take()).unwrap_or(false);
        let async_rewake = self
            .take(usable, "asyncRewake", f.async_rewake.take())
            .unwrap_or(false);
        let warm = self.take(usable, "warm", f.warm.take()).unwrap_or(true);
        let sandbox = self.take(usable, "sandbox", f.sandbox.take()).flatten();
        let answers = self
            .take(usable, "answers", f.answers.take())
            .and_then(crate::decision::foreign::AnswersAs::from_word);
        let (Some((command, command_at)), true) = (command, *usable) else {
            return None;
        };
        Some(HookKind::Command(self.command_hook(CommandFields {
            command,
            command_at,
            args,
            shell,
            run_async,
            async_rewake,
            warm,
            sandbox,
            answers,
        })?))
    }
    /// A command hook from its checked fields; `None` (reported) if the command is empty.
    fn command_hook(&mut self, c: CommandFields) -> Option<CommandHook> {
        if c.command.trim().is_empty() {
            let d = Diagnostic::error("`command` is empty; this hook is skipped");
            self.report_field(d, c.command_at, "command");
            return None;
        }
        let placeholders = self.placeholders;
        let in_plugin = placeholders.plugin_root.is_some();
        let exec_form = c.args.is_some();
        let names_plugin_variable =
            c.command.contains("${CLAUDE_PLUGIN_ROOT}") || c.command.contains("${CLAUDE_PLUGIN_DATA}");
        let plugin_variable_outside_plugin = !in_plugin && !exec_form && names_plugin_variable;
        if plugin_variable_outside_plugin {
            self.report_field(
                Diagnostic::warning(
                    "uses ${CLAUDE_PLUGIN_ROOT}/${CLAUDE_PLUGIN_DATA} but this file is not in a plugin folder; Claude Code never runs such a hook, and neither does hookbridge (put it in `.amplifier/hooks/<plugin>/`)",
                ),
                c.command_at,
                "command",
            );
        }
        let args = c.args.map(|a| a.iter().map(|s| placeholders.expand(s)).collect());
        let resolved_command = if in_plugin || exec_form {
            placeholders.expand(&c.command)
        } else {
            c.command.clone()
        };
        Some(CommandHook {
            plugin_variable_outside_plugin,
            resolved_command,
            command: c.command,
            args,
            shell: c.shell,
            run_async: c.run_async || c.async_rewake,
            async_rewake: c.async_rewake,
            warm: c.warm,
            sandbox: c.sandbox,
            answers: c.answers,
        })
    }
}

/// A `sandbox` value as the model holds it: `None` for `false`.
pub(super) fn sandbox_of(value: &Value) -> Result<Option<Sandbox>, String> {
    const SHAPE: &str = "`sandbox` must be true, false or an object with `write` (a list of paths), `network` (true, false or a list of TCP ports) and `env` (a list of variable names)";
    let object = match value {
        Value::Bool(false) => return Ok(None),
        Value::Bool(true) => return Ok(Some(Sandbox::default())),
        Value::Object(object) => object,
        other => return Err(format!("{SHAPE}, found {}", crate::event::json_type(other))),
    };
    let mut sandbox = Sandbox::default();
    for (key, value) in object {
        match (key.as_str(), value) {
            ("write", Value::Array(paths)) => {
                for path in paths {
                    match path.as_str() {
                        Some(path) if !path.is_empty() => sandbox.write.push(path.to_string()),
                        _ => {
                            return Err(format!(
                                "`sandbox.write` must list paths (non-empty strings), found {path}"
                            ))
                        }
                    }
                }
            }
            ("network", Value::Bool(allowed)) => {
                sandbox.network = if *allowed { Network::All } else { Network::None }
            }
            ("network", Value::Array(list)) => {
                let mut ports = Vec::with_capacity(list.len());
                for port in list {
                    match port
                        .as_u64()
                        .and_then(|p| u16::try_from(p).ok())
                        .filter(|p| *p > 0)
                    {
                        Some(port) => ports.push(port),
                        None => {
                            return Err(format!(
                            "`sandbox.network` lists TCP ports (whole numbers from 1 to 65535), found {port}"
                        ))
                        }
                    }
                }
                ports.sort_unstable();
                ports.dedup();
                sandbox.network = if ports.is_empty() {
                    Network::None
                } else {
                    Network::TcpPorts(ports)
                };
            }
            ("env", Value::Array(names)) => {
                for name in names {
                    match name.as_str() {
                        Some(name) if is_variable_name(name) => {
                            if !sandbox.env.iter().any(|kept| kept == name) {
                                sandbox.env.push(name.to_string());
                            }
                        }
                        _ => {
                            return Err(format!(
                                "`sandbox.env` lists environment variable names (letters, digits and `_`, not starting with a digit), found {name}"
                            ))
                        }
                    }
                }
            }
            ("write" | "network" | "env", other) => {
                return Err(format!(
                    "{SHAPE}; `sandbox.{key}` is {}",
                    crate::event::json_type(other)
                ))
            }
            _ => {
                let hint = crate::diagnostics::did_you_mean(key, ["write", "network", "env"]);
                return Err(format!("`sandbox.{key}` is not a sandbox setting{hint}"));
            }
        }
    }
    Ok(Some(sandbox))
}

/// A name a shell can export: letters, digits and `_`, not starting with a digit.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A command hook's fields, checked.
struct CommandFields {
    command: String,
    command_at: usize,
    args: Option<Vec<String>>,
    shell: Shell,
    run_async: bool,
    async_rewake: bool,
    warm: bool,
    sandbox: Option<Sandbox>,
    answers: Option<crate::decision::foreign::AnswersAs>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn a_sandboxs_env_lists_variable_names_each_once() {
        let env = |v: Value| sandbox_of(&serde_json::json!({"env": v})).map(|s| s.unwrap().env);
        assert_eq!(
            env(serde_json::json!(["GITHUB_TOKEN", "_X1", "GITHUB_TOKEN"])),
            Ok(vec!["GITHUB_TOKEN".to_string(), "_X1".to_string()])
        );
        assert_eq!(env(serde_json::json!([])), Ok(vec![]));
        for bad in [
            serde_json::json!([""]),
            serde_json::json!(["A=B"]),
            serde_json::json!(["1X"]),
            serde_json::json!(["A B"]),
            serde_json::json!([7]),
        ] {
            let said = env(bad.clone()).unwrap_err();
            assert!(
                said.starts_with("`sandbox.env` lists environment variable names"),
                "{bad}: {said}"
            );
        }
        assert!(env(serde_json::json!("GITHUB_TOKEN"))
            .unwrap_err()
            .contains("`sandbox.env` is a string"));
        assert!(sandbox_of(&serde_json::json!({"evn": []}))
            .unwrap_err()
            .contains("did you mean `env`"));
    }

    #[test]
    fn a_sandboxs_network_is_false_true_or_a_list_of_tcp_ports() {
        let network = |v: Value| sandbox_of(&serde_json::json!({"network": v})).map(|s| s.unwrap().network);
        assert_eq!(network(Value::Bool(false)), Ok(Network::None));
        assert_eq!(network(Value::Bool(true)), Ok(Network::All));
        assert_eq!(
            network(serde_json::json!([5432, 8080, 5432])),
            Ok(Network::TcpPorts(vec![5432, 8080])),
            "sorted, each once"
        );
        assert_eq!(network(serde_json::json!([])), Ok(Network::None));
        for bad in [
            serde_json::json!([0]),
            serde_json::json!([65536]),
            serde_json::json!([-1]),
            serde_json::json!(["8080"]),
            serde_json::json!([80.5]),
        ] {
            let said = network(bad.clone()).unwrap_err();
            assert!(
                said.starts_with("`sandbox.network` lists TCP ports (whole numbers from 1 to 65535), found"),
                "{bad}: {said}"
            );
        }
        assert!(network(serde_json::json!("yes"))
            .unwrap_err()
            .contains("`network` (true, false or a list of TCP ports)"));
        let mut sandbox = Sandbox {
            write: vec![],
            network: Network::TcpPorts(vec![5432, 8080]),
            env: vec![],
        };
        assert_eq!(
            sandbox.to_string(),
            "sandboxed (writes project, temp; TCP to ports 5432, 8080 only; no credentials)"
        );
        sandbox.env = vec!["GITHUB_TOKEN".into(), "NPM_TOKEN".into()];
        assert_eq!(
            sandbox.to_string(),
            "sandboxed (writes project, temp; TCP to ports 5432, 8080 only; no credentials but $GITHUB_TOKEN, $NPM_TOKEN)"
        );
        assert_eq!(Network::TcpPorts(vec![80]).to_string(), "TCP to port 80 only");
        assert_eq!(sandbox.network.to_json(), serde_json::json!([5432, 8080]));
        assert_eq!(Network::None.to_json(), Value::Bool(false));
        assert_eq!(Network::All.to_json(), Value::Bool(true));
    }
}
