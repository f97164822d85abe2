//! hookbridge-runner: the async side of hookbridge.
//!
//! It owns running things: hook processes (one process group each, bounded output, tree kill on
//! timeout, leak detection) and the dispatch of one event through the core's selection and decision
//! logic. Tokio lives here and in entry points only; the core stays synchronous.

mod detached;
pub mod dispatch;
pub mod process;

pub use dispatch::{dispatch, DispatchOptions, EventReport, HookReport, HookSummary};
