//! Reading traces back as rows (docs/python.md): the ftrace text and Perfetto protobuf files
//! `--trace` writes (and the same events from other ftrace/Perfetto traces), one
//! [`TraceEvent`] per event or counter sample, ready to become a table.
//!
//! - `text.rs` parses `/sys/kernel/tracing/trace` lines;
//! - `pftrace.rs` decodes Perfetto packets (ftrace bundles, process tree, counter tracks)
//!   with `proto_decode.rs`;
//! - `table.rs` turns rows into columns (a DataFrame's shape).

pub mod pftrace;
pub mod proto_decode;
pub mod table;
pub mod text;

use crate::error::InputError;
use std::path::Path;

/// One field value of an event: an integer or a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    Int(i64),
    Text(String),
}

/// One event (or counter sample) of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceEvent {
    /// Timestamp in ns.
    pub ts: u64,
    /// The CPU the event was recorded on (for counters: the CPU the track belongs to).
    pub cpu: Option<u32>,
    /// The ftrace event name (`sched_switch`, …), or `counter` for a counter sample.
    pub event: String,
    /// The task running when the event fired (`<idle>`/0 for the idle task).
    pub common_comm: Option<String>,
    pub common_pid: Option<u32>,
    /// The event's own fields in their ftrace order (`prev_comm`, `prev_pid`, …); counter
    /// samples carry `counter` (its name: util_avg, freq_khz, …), `value`, and for a task's
    /// track `comm` and `pid`.
    pub fields: Vec<(String, FieldValue)>,
}

impl TraceEvent {
    pub fn field(&self, name: &str) -> Option<&FieldValue> {
        self.fields.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// Read a trace file: `.txt` (ftrace text) or `.pftrace`/`.perfetto-trace`/`.pb` (Perfetto).
pub fn read_trace(path: &Path) -> Result<Vec<TraceEvent>, InputError> {
    let origin = path.display().to_string();
    let name = origin.to_ascii_lowercase();
    let bytes = std::fs::read(path).map_err(|e| {
        InputError::new(&origin, format!("cannot read the trace: {e}"))
            .with_fix("check the path (a trace written by `schedlab run --trace FILE`)")
    })?;
    if name.ends_with(".txt") {
        let text = String::from_utf8_lossy(&bytes);
        text::parse(&text, &origin)
    } else if name.ends_with(".pftrace")
        || name.ends_with(".perfetto-trace")
        || name.ends_with(".pb")
    {
        pftrace::decode(&bytes, &origin)
    } else {
        Err(
            InputError::new(&origin, "unknown trace format (by its file name)")
                .with_fix("give a .txt (ftrace text) or .pftrace (Perfetto) file"),
        )
    }
}
