//! What the multi-run commands (ab, sweep) share: the default job count and the progress
//! line on stderr.

use std::io::IsTerminal;

/// `-j N`, or the host's CPU count.
pub fn jobs(arg: Option<usize>) -> usize {
    arg.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A `done/total runs` line redrawn in place, only when stderr is a terminal.
pub fn progress() -> impl Fn(usize, usize) + Sync {
    let tty = std::io::stderr().is_terminal();
    move |done, total| {
        if tty {
            eprint!("\r{done}/{total} runs");
            if done == total {
                eprintln!();
            }
        }
    }
}
