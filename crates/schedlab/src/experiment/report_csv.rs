//! `schedlab run -x SEP`: the report in `perf stat -x SEP` form, for scripts. Each line
//! is perf's seven fields `value,unit,event,run-time,run-%,metric,metric-unit` (run time
//! in simulated ns, always 100 % enabled), numbers without thousands separators; the
//! per-task lines carry perf `--per-thread`'s leading `COMM-PID` field and the per-CPU
//! lines perf `-A`'s `CPUN`. Fields that contain SEP or a quote are quoted as in RFC 4180.

use super::results::RunResult;

/// The CSV text of `r` with separator `sep`.
pub fn render_csv(r: &RunResult, sep: &str) -> String {
    let mut w = Csv {
        out: String::new(),
        sep,
        run_ns: r.sim.time_ns,
    };
    let p = &r.perf;
    w.counter(
        None,
        &ms(p.task_clock_ns),
        "msec",
        "task-clock",
        &format!("{:.3}", p.cpus_utilized),
        "CPUs utilized",
    );
    w.counter(
        None,
        &p.context_switches.to_string(),
        "",
        "context-switches",
        "",
        "",
    );
    w.counter(
        None,
        &p.cpu_migrations.to_string(),
        "",
        "cpu-migrations",
        "",
        "",
    );
    if r.energy.total_mj > 0.0 {
        w.counter(
            None,
            &format!("{:.3}", r.energy.total_mj),
            "mJ",
            "energy",
            &format!("{:.1}", r.energy.avg_power_mw),
            "mW average power",
        );
    }
    w.counter(
        None,
        &r.sim.time_ns.to_string(),
        "ns",
        "duration_time",
        "",
        "",
    );
    for t in &r.tasks {
        let who = format!("{}-{}", t.comm, t.pid);
        let who = Some(who.as_str());
        w.counter(who, &ms(t.cpu_time_ns), "msec", "task-clock", "", "");
        w.counter(who, &ms(t.wait_time_ns), "msec", "wait-time", "", "");
        let switches = t.nr_switches.to_string();
        w.counter(who, &switches, "", "context-switches", "", "");
        let vol = t.nr_voluntary_switches.to_string();
        w.counter(who, &vol, "", "voluntary-switches", "", "");
        w.counter(
            who,
            &t.nr_migrations.to_string(),
            "",
            "cpu-migrations",
            "",
            "",
        );
        let lat = &t.wakeup_latency_ns;
        if lat.count > 0 {
            for (event, v) in [
                ("wakeup-latency-p50", lat.p50),
                ("wakeup-latency-p99", lat.p99),
                ("wakeup-latency-max", lat.max),
            ] {
                w.counter(who, &us(v), "usec", event, "", "");
            }
        }
    }
    for c in &r.cpus {
        let who = format!("CPU{}", c.cpu);
        let who = Some(who.as_str());
        let total = c.busy_ns + c.idle_ns;
        let pct = if total == 0 {
            0.0
        } else {
            c.busy_ns as f64 * 100.0 / total as f64
        };
        let pct = format!("{pct:.2}");
        w.counter(who, &ms(c.busy_ns), "msec", "cpu-busy", &pct, "% busy");
        let switches = c.nr_switches.to_string();
        w.counter(who, &switches, "", "context-switches", "", "");
        if c.energy_mj > 0.0 {
            w.counter(who, &format!("{:.3}", c.energy_mj), "mJ", "energy", "", "");
        }
    }
    w.out
}

struct Csv<'a> {
    out: String,
    sep: &'a str,
    run_ns: u64,
}

impl Csv<'_> {
    fn counter(
        &mut self,
        who: Option<&str>,
        value: &str,
        unit: &str,
        event: &str,
        metric: &str,
        metric_unit: &str,
    ) {
        let run = self.run_ns.to_string();
        let fields = [value, unit, event, &run, "100.00", metric, metric_unit];
        let mut first = true;
        for f in who.into_iter().chain(fields) {
            if !first {
                self.out.push_str(self.sep);
            }
            first = false;
            self.field(f);
        }
        self.out.push('\n');
    }

    fn field(&mut self, f: &str) {
        let needs_quotes =
            (!self.sep.is_empty() && f.contains(self.sep)) || f.contains('"') || f.contains('\n');
        if needs_quotes {
            self.out.push('"');
            self.out.push_str(&f.replace('"', "\"\""));
            self.out.push('"');
        } else {
            self.out.push_str(f);
        }
    }
}

/// ns as milliseconds, exact, no grouping.
fn ms(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000, ns % 1_000_000)
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

/// ns as microseconds, exact.
fn us(ns: u64) -> String {
    format!("{}.{:03}", ns / 1_000, ns % 1_000)
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_have_no_grouping() {
        assert_eq!(ms(12_345_678_901), "12345.678901");
        assert_eq!(ms(2_000_000), "2");
        assert_eq!(us(1_500), "1.5");
        assert_eq!(us(0), "0");
    }

    #[test]
    fn fields_with_the_separator_are_quoted() {
        let mut w = Csv {
            out: String::new(),
            sep: ",",
            run_ns: 5,
        };
        w.counter(Some("a,b-1"), "1", "", "x", "", "");
        w.counter(Some("say \"hi\"-2"), "1", "", "x", "", "");
        assert_eq!(
            w.out,
            "\"a,b-1\",1,,x,5,100.00,,\n\"say \"\"hi\"\"-2\",1,,x,5,100.00,,\n"
        );
    }
}
