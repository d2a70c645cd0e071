//! Simulation-speed benchmark without the CLI: `cargo run --release --example speed [SECS]`.
fn main() {
    let secs = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let r = schedlab::experiment::bench::standard(secs);
    println!(
        "events {} wall {:.3}s -> {:.2} M events/s, sim/wall {:.0}x, invariant_violations {}",
        r.sim.events,
        r.sim.wall_s,
        r.sim.events as f64 / r.sim.wall_s / 1e6,
        r.sim.time_ns as f64 / 1e9 / r.sim.wall_s,
        r.sim.invariant_violations
    );
}
