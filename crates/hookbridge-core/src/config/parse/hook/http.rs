//! An `http` hook: its fields (`url`, `headers`, `allowedEnvVars`) read into an [`HttpHook`].

use crate::config::model::*;

use super::{HookFields, Reader};

impl Reader<'_> {
    pub(super) fn http_kind(&mut self, f: &mut HookFields, at: usize, usable: &mut bool) -> Option<HookKind> {
        let url = self.take_required(usable, "url", f.url.take(), at);
        let headers = self.take(usable, "headers", f.headers.take()).unwrap_or_default();
        let allowed_env_vars = self
            .take(usable, "allowedEnvVars", f.allowed_env_vars.take())
            .unwrap_or_default();
        let (Some((url, _)), true) = (url, *usable) else {
            return None;
        };
        Some(HookKind::Http(HttpHook {
            url,
            headers,
            allowed_env_vars,
        }))
    }
}
