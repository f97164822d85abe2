//! A `prompt` or `agent` hook: its fields (`prompt`, `model`, `continueOnBlock`) read into a
//! [`PromptHook`], which the two types share.

use crate::config::model::*;
use crate::config::HookType;
use crate::event::EventName;

use super::{HookFields, Reader, TypeOf};

impl Reader<'_> {
    pub(super) fn prompt_kind(
        &mut self,
        f: &mut HookFields,
        at: usize,
        usable: &mut bool,
        event: &EventName,
        typed: &TypeOf,
    ) -> Option<HookKind> {
        let prompt = self.take_required(usable, "prompt", f.prompt.take(), at);
        let model = self.take(usable, "model", f.model.take());
        let continue_on_block = self
            .take(usable, "continueOnBlock", f.continue_on_block.take())
            .unwrap_or(false);
        let (Some((prompt, _)), true) = (prompt, *usable) else {
            return None;
        };
        self.warn_if_judges_never_run(event, typed);
        let hook = PromptHook {
            prompt,
            model,
            continue_on_block,
        };
        Some(if typed.hook_type == HookType::Prompt {
            HookKind::Prompt(hook)
        } else {
            HookKind::Agent(hook)
        })
    }
}
