//! An `llm` hook of the seed dialect: its fields (`prompt`, `model`, `max_tokens`, `cache`) read
//! into an [`LlmHook`].

use crate::config::model::*;
use crate::event::EventName;

use super::{HookFields, Reader, TypeOf};

impl Reader<'_> {
    pub(super) fn llm_kind(
        &mut self,
        f: &mut HookFields,
        at: usize,
        usable: &mut bool,
        event: &EventName,
        typed: &TypeOf,
    ) -> Option<HookKind> {
        let prompt = self.take_required(usable, "prompt", f.prompt.take(), at);
        let model = self.take(usable, "model", f.model.take());
        let max_tokens = self.take(usable, "max_tokens", f.max_tokens.take());
        let cache = self.take(usable, "cache", f.cache.take()).unwrap_or(false);
        let (Some((prompt, _)), true) = (prompt, *usable) else {
            return None;
        };
        self.warn_if_judges_never_run(event, typed);
        Some(HookKind::Llm(LlmHook {
            prompt,
            model,
            max_tokens,
            cache,
        }))
    }
}
