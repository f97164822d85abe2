//! An `mcp_tool` hook: its fields (`server`, `tool`, `input`) read into an [`McpToolHook`].

use crate::config::model::*;

use super::{HookFields, Reader};

impl Reader<'_> {
    pub(super) fn mcp_kind(&mut self, f: &mut HookFields, at: usize, usable: &mut bool) -> Option<HookKind> {
        let server = self.take_required(usable, "server", f.server.take(), at);
        let tool = self.take_required(usable, "tool", f.tool.take(), at);
        let input = self.take(usable, "input", f.input.take());
        let (Some((server, _)), Some((tool, _)), true) = (server, tool, *usable) else {
            return None;
        };
        Some(HookKind::McpTool(McpToolHook { server, tool, input }))
    }
}
