//! The explicit (CPU by CPU) TOML form of a machine: what `schedlab machines show` prints,
//! and what `parse_machine` reads back to an equal Machine.

use super::cpulist::format_cpulist;
use super::Machine;
use std::fmt::Write;

/// A TOML string (quoted, escaped) through the toml crate, so any name survives.
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Machine file text for `m` (docs/machines.md), explicit form.
pub fn machine_to_toml(m: &Machine) -> String {
    let mut t = String::new();
    // Writing to a String cannot fail.
    let _ = write_all(m, &mut t);
    t
}

fn write_all(m: &Machine, t: &mut String) -> std::fmt::Result {
    writeln!(
        t,
        "# schedlab machine file (docs/machines.md): {} CPUs",
        m.nr_cpus()
    )?;
    writeln!(t, "name = {}", quoted(&m.name))?;
    if let Some(k) = &m.kernel {
        // The loader reads a `[kernel]` table (found by fuzzing: a string did not read back).
        writeln!(t, "kernel = {{ version = {} }}", quoted(k))?;
    }
    writeln!(t)?;
    writeln!(t, "cpu = [")?;
    for c in &m.cpus {
        writeln!(
            t,
            "  {{ id = {}, capacity = {}, core = {}, cluster = {}, llc = {}, package = {}, \
             node = {}, freq_domain = {} }},",
            c.id, c.capacity, c.core, c.cluster, c.llc, c.package, c.numa_node, c.freq_domain
        )?;
    }
    writeln!(t, "]")?;
    for d in &m.freq_domains {
        writeln!(t)?;
        writeln!(t, "[[freq_domain]]")?;
        writeln!(t, "cpus = \"{}\"", format_cpulist(&d.cpus))?;
        if d.cur_khz != d.max_khz {
            writeln!(t, "cur_khz = {}", d.cur_khz)?;
        }
        writeln!(t, "transition_latency_ns = {}", d.transition_latency_ns)?;
        writeln!(t, "opps = [")?;
        for o in &d.opps {
            writeln!(
                t,
                "  {{ khz = {}, uv = {}, power_uw = {} }},",
                o.khz, o.uv, o.power_uw
            )?;
        }
        writeln!(t, "]")?;
        writeln!(t, "idle_states = [")?;
        for s in &d.idle_states {
            writeln!(
                t,
                "  {{ name = {}, exit_latency_ns = {}, target_residency_ns = {}, power_uw = {} }},",
                quoted(&s.name),
                s.exit_latency_ns,
                s.target_residency_ns,
                s.power_uw
            )?;
        }
        writeln!(t, "]")?;
    }
    writeln!(t)?;
    writeln!(t, "[numa]")?;
    writeln!(t, "distance = [")?;
    for row in &m.numa_distance {
        let cells: Vec<String> = row.iter().map(|v| v.to_string()).collect();
        writeln!(t, "  [{}],", cells.join(", "))?;
    }
    writeln!(t, "]")?;
    if m.node_reclaim_distance != super::RECLAIM_DISTANCE {
        writeln!(t, "node_reclaim_distance = {}", m.node_reclaim_distance)?;
    }
    writeln!(t)?;
    writeln!(t, "[costs]")?;
    // The Costs struct's own field names, in declaration order.
    match toml::to_string(&m.costs) {
        Ok(s) => t.push_str(&s),
        Err(e) => writeln!(t, "# costs could not be written: {e}")?,
    }
    Ok(())
}
