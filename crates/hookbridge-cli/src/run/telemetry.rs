//! OpenTelemetry for `run`: each event's spans written to the spool of the exporter the
//! environment names, and `hookbridge otel-export`, the one process that drains it.

use std::process::ExitCode;

/// The OpenTelemetry exporter the environment asks for, if any: `run` answers and exits, so it
/// writes each event's spans into the spool of that exporter (in hookbridge's state folder), which
/// one process of its own (`hookbridge otel-export`) drains (`hookbridge_runner::otel::spool`).
pub(super) fn telemetry(
    host: &str,
    problems: &mut Vec<String>,
) -> Option<std::sync::Arc<hookbridge_runner::otel::Telemetry>> {
    use hookbridge_runner::otel::{spool, OtelConfig, Shipping, Telemetry};
    let config = match OtelConfig::from_env() {
        Ok(config) => config?,
        Err(problem) => {
            problems.push(problem);
            return None;
        }
    };
    let Some(state) = hookbridge_core::trust::state_dir() else {
        problems.push(
            "OpenTelemetry: neither XDG_STATE_HOME nor HOME names a folder to hand the spans over in; no spans are exported"
                .to_string(),
        );
        return None;
    };
    match std::env::current_exe() {
        Ok(program) => {
            let dir = spool::dir_for(&state, &config);
            let args = vec!["otel-export".into()];
            let shipping = Shipping::Spool { dir, program, args };
            Some(std::sync::Arc::new(Telemetry::new(host, config, shipping)))
        }
        Err(e) => {
            problems.push(format!(
                "OpenTelemetry: this program's own path is unknown ({e}); no spans are exported"
            ));
            None
        }
    }
}

/// `hookbridge otel-export`: the exporter of the spool its `OTEL_*` variables name
/// (`hookbridge_runner::otel::spool::drain`), which then removes the spools of configurations
/// untouched for a day (`spool::sweep_abandoned`); each failure goes to the diagnostics log as
/// it happens, as nobody waits for this process.
pub fn otel_export() -> ExitCode {
    use hookbridge_runner::otel::{spool, OtelConfig};
    let say = |problem: String| crate::diagnostics_log::append("otel-export", &[problem]);
    let config = match OtelConfig::from_env() {
        Ok(Some(config)) => config,
        Ok(None) => {
            say("OpenTelemetry: no OTLP endpoint is set".to_string());
            return ExitCode::from(1);
        }
        Err(problem) => {
            say(problem);
            return ExitCode::from(1);
        }
    };
    let Some(state) = hookbridge_core::trust::state_dir() else {
        say("OpenTelemetry: neither XDG_STATE_HOME nor HOME is set; nothing to export".to_string());
        return ExitCode::from(1);
    };
    let mut failed = false;
    let mut report = |problem| {
        failed = true;
        say(problem);
    };
    let dir = spool::dir_for(&state, &config);
    spool::drain(&dir, spool::LINGER, &mut |body| config.post(body), &mut report);
    // Off every answer's path: the spools of configurations no longer used.
    spool::sweep_abandoned(&dir, spool::ABANDONED, &mut report);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
