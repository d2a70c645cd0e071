//! Structured generation: inputs shaped like the real thing (right keys, plausible and
//! edge values), so the fuzzer gets past the syntax checks into the semantic ones.

use crate::rng::Rng;

/// Numbers at the edges of every range the parsers check.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "-1",
    "3",
    "7",
    "8",
    "15",
    "16",
    "64",
    "100",
    "1000",
    "1024",
    "1025",
    "4096",
    "10000",
    "100000",
    "1000000",
    "2147483647",
    "-2147483648",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "1e3",
    "0.5",
    "-0",
    "1.5",
    "1e308",
    "nan",
    "inf",
    "-inf",
    "0x10",
    "007",
];

const DURATIONS: &[&str] = &[
    "1ms",
    "2ms",
    "500us",
    "0",
    "0s",
    "1s",
    "10ms",
    "-1s",
    "1.5ms",
    "100ns",
    "1min",
    "99999999999min",
    "1e3s",
    "nan",
    "ms",
    "1.2.3s",
    "10 ms",
    "5 parsecs",
    "",
    "18446744073709551615ns",
    "0.000000001s",
    "1µs",
];

pub const MACHINES: &[&str] = &[
    "smp:1",
    "smp:2",
    "smp:4",
    "smt:2x2",
    "smt:3x1",
    "pixel6",
    "smp-dvfs:4",
    "vm8",
    "m.toml",
    "smp:0",
    "smt:0x3",
    "smt:2x0",
    "smp:",
    "smp:-1",
    "nope",
    "smp:4097",
    "smt:4096x2",
    "SMP:2",
    " smp:2",
    "missing.toml",
];

const FEATURES: &[&str] = &[
    "DELAY_DEQUEUE",
    "NO_DELAY_DEQUEUE",
    "RUN_TO_PARITY",
    "NO_RUN_TO_PARITY",
    "HRTICK",
    "PLACE_LAG",
    "NO_PLACE_LAG",
    "NEXT_BUDDY",
    "TTWU_QUEUE",
    "WA_IDLE",
    "NO_WA_BIAS",
    "START_DEBIT",
    "NO_GENTLE_FAIR_SLEEPERS",
    "NI_RANDOM",
    "UTIL_EST",
    "NO_UTIL_EST",
    "LB_MIN",
    "SIS_UTIL",
    "NO_SIS_UTIL",
    "PREEMPT_SHORT",
    "NO_",
    "",
    "no_hrtick",
    "BOGUS",
];

const KERNELS: &[&str] = &[
    "5.18", "6.1", "6.5", "6.6", "6.8", "6.12", "6.18", "current", "v6.5", "6.5.5", "4.19", "6",
    "6.", "latest", "",
];

const SYSCTLS: &[&str] = &[
    "sched_util_clamp_min",
    "sched_util_clamp_max",
    "sched_latency_ns",
    "sched_min_granularity_ns",
    "sched_wakeup_granularity_ns",
    "sched_tunable_scaling",
    "sched_bogus",
];

const GOVERNORS: &[&str] = &[
    "schedutil",
    "performance",
    "powersave",
    "fixed:1401",
    "fixed:0",
    "fixed:",
    "fixed:-5",
    "fixed:99999999999",
    "ondemand",
];

fn number(r: &mut Rng) -> String {
    if r.one_in(3) {
        r.below(40).to_string()
    } else {
        r.pick(NUMBERS).to_string()
    }
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A `-w` command line.
pub fn workload(r: &mut Rng) -> String {
    let (tool, opts): (&str, &[&str]) = match r.below(8) {
        0 => (
            "hackbench",
            &[
                "-g",
                "-f",
                "-l",
                "-s",
                "-T",
                "-P",
                "-p",
                "--pipe",
                "--threads",
                "--process",
                "--groups",
                "--loops",
                "--datasize",
                "--fds",
                "-F",
                "-i",
            ],
        ),
        1 => (
            "perf-bench-messaging",
            &["-g", "-l", "-p", "-t", "--pipe", "--thread", "--group"],
        ),
        2 => (
            "schbench",
            &[
                "-m", "-t", "-r", "-R", "-n", "-C", "-L", "-p", "-w", "-i", "-z", "-M", "-W", "-A",
                "-F", "--split", "-s",
            ],
        ),
        3 => (
            "stress-ng",
            &[
                "--wait",
                "-t",
                "--timeout",
                "--wait-ops",
                "--metrics-brief",
                "--metrics",
            ],
        ),
        4 => (
            "spinner",
            &[
                "-n", "--policy", "--nice", "--sleep", "--work", "--loops", "--cpus", "--spread",
                "--slack",
            ],
        ),
        5 => (
            "frames",
            &[
                "-r",
                "-e",
                "--ui-work",
                "--rt-work",
                "--fling-factor",
                "--jitter",
                "-a",
                "-s",
                "--uclamp-min",
                "--nice",
                "--cpus",
                "--app",
            ],
        ),
        6 => (
            "rtapp",
            &["a.json", "b.json", "missing.json", "a.json extra"],
        ),
        _ => (
            r.pick(&["rt-app", "sysbench", "", "hackbench hackbench", "'"]),
            &["x"],
        ),
    };
    let mut out = tool.to_string();
    for _ in 0..r.below(5) {
        out.push(' ');
        out.push_str(r.pick(opts));
        if r.below(3) > 0 {
            out.push(' ');
            out.push_str(&value(r));
        }
    }
    if tool == "stress-ng" && !out.contains("--wait ") && r.below(3) > 0 {
        out.push_str(&format!(" --wait {}", r.below(5)));
    }
    out
}

/// An option value: numbers, durations, cpulists, policies, episodes, quotes.
fn value(r: &mut Rng) -> String {
    match r.below(8) {
        0 | 1 => number(r),
        2 => r.pick(DURATIONS).to_string(),
        3 => r
            .pick(&["0-3", "0,2", "1-0", "0-4095", "", "a", "3-", ",", "0-1,1-2"])
            .to_string(),
        4 => r
            .pick(&["idle", "batch", "other", "fifo", "normal"])
            .to_string(),
        5 => r
            .pick(&[
                "idle:1s,fling:2s",
                "scroll:50ms",
                "walk:1s",
                "idle:0s",
                "fling:",
                ":",
            ])
            .to_string(),
        6 => r
            .pick(&["'a b'", "\"x\"", "'", "\"", "\\", "--", "-"])
            .to_string(),
        _ => format!("{}ms", r.below(20)),
    }
}

/// A scenario TOML file.
pub fn scenario(r: &mut Rng) -> String {
    let mut out = String::new();
    let mut tables = String::new();
    for _ in 0..r.below(9) {
        match r.below(20) {
            0 => out.push_str(&format!("machine = {}\n", quote(r.pick(MACHINES)))),
            1 => out.push_str(&format!("features = {}\n", quote(&feature_list(r)))),
            2 => out.push_str(&format!("seed = {}\n", number(r))),
            3 => out.push_str(&format!("duration = {}\n", quote(r.pick(DURATIONS)))),
            4 => out.push_str(&format!("hz = {}\n", number(r))),
            5 => out.push_str(&format!("kernel = {}\n", quote(r.pick(KERNELS)))),
            6 => out.push_str(&format!(
                "preempt = {}\n",
                quote(r.pick(&["none", "voluntary", "full", "lazy", "rt"]))
            )),
            7 => out.push_str(&format!(
                "pelt_halflife = {}\n",
                quote(r.pick(&["32ms", "16ms", "8ms", "4ms", "32", "0ms"]))
            )),
            8 => out.push_str(&format!("governor = {}\n", quote(r.pick(GOVERNORS)))),
            9 | 10 => {
                let ws: Vec<String> = (0..r.below(3) + 1).map(|_| quote(&workload(r))).collect();
                out.push_str(&format!("workloads = [{}]\n", ws.join(", ")));
            }
            11 => out.push_str(&format!(
                "autogroup = {}\n",
                r.pick(&["true", "false", "1"])
            )),
            12 => out.push_str(&format!(
                "tick_aligned = {}\n",
                r.pick(&["true", "false", "\"yes\""])
            )),
            13 => {
                tables.push_str("[sysctl]\n");
                for _ in 0..r.below(3) + 1 {
                    tables.push_str(&format!("{} = {}\n", r.pick(SYSCTLS), number(r)));
                }
            }
            14 => tables.push_str(&cgroups(r)),
            16 => out.push_str(&format!(
                "boot_start = {}\n",
                r.pick(&["true", "false", "0"])
            )),
            17 => {
                let key = r.pick(&["timer_slack", "interval"]);
                out.push_str(&format!("{key} = {}\n", quote(r.pick(DURATIONS))));
            }
            18 => out.push_str(&format!(
                "schedutil_rate_limit = {}\n",
                r.pick(&[
                    "\"500us\"",
                    "\"10ms\"",
                    "\"1500ns\"",
                    "\"11s\"",
                    "\"0us\"",
                    "500"
                ])
            )),
            15 => {
                tables.push_str("[noise]\n");
                let keys = [
                    "start_jitter",
                    "work_jitter_pct",
                    "housekeeping_hz",
                    "housekeeping_run",
                    "bogus",
                ];
                for _ in 0..r.below(3) + 1 {
                    let v = if r.one_in(2) {
                        quote(r.pick(DURATIONS))
                    } else {
                        number(r)
                    };
                    tables.push_str(&format!("{} = {v}\n", r.pick(&keys)));
                }
            }
            _ => {
                tables.push_str("[trace]\n");
                let file = r.pick(&["t.pftrace", "t.txt", "t.json", ""]);
                tables.push_str(&format!("file = {}\n", quote(file)));
                if r.one_in(2) {
                    tables.push_str(&format!(
                        "window = {}\n",
                        quote(r.pick(&["0..1ms", "1ms..0", "..", "5ms..10ms"]))
                    ));
                }
                if r.one_in(2) {
                    tables.push_str(&format!(
                        "events = {}\n",
                        quote(r.pick(&["sched_switch", "all", "bogus", ""]))
                    ));
                }
            }
        }
    }
    out.push_str(&tables);
    out
}

fn feature_list(r: &mut Rng) -> String {
    let n = r.below(4);
    let items: Vec<&str> = (0..n).map(|_| r.pick(FEATURES)).collect();
    items.join(r.pick(&[",", " ", ", ", ",,"]))
}

fn cgroups(r: &mut Rng) -> String {
    let paths = ["/a", "/a/b", "/b", "a", "/", "/a/", "//a", "/a/b/c"];
    let mut out = String::new();
    for _ in 0..r.below(3) + 1 {
        out.push_str(&format!("[cgroups.{}]\n", quote(r.pick(&paths))));
        for _ in 0..r.below(4) {
            let line = match r.below(6) {
                0 => format!("weight = {}", number(r)),
                1 => format!(
                    "max = {}",
                    quote(r.pick(&["50000 100000", "max", "10 100000", "1000", "max 1000", "x"]))
                ),
                2 => format!("uclamp_min = {}", number(r)),
                3 => format!(
                    "uclamp_max = {}",
                    quote(r.pick(&["max", "50", "101", "-1"]))
                ),
                4 => format!("idle = {}", r.pick(&["true", "false", "1"])),
                _ => format!(
                    "tasks = [{}]",
                    quote(r.pick(&["*", "hog*", "t-?", "", "nomatch"]))
                ),
            };
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// A machine TOML file: a `[shape]` or per-CPU entries with frequency domains.
pub fn machine(r: &mut Rng) -> String {
    let mut out = String::new();
    if r.one_in(6) {
        out.push_str(&format!("name = {}\n", quote(r.pick(&["m", "", "a b"]))));
    }
    if r.one_in(2) {
        let nr = r.below(6);
        let cpus: Vec<String> = (0..nr)
            .map(|i| {
                let mut fields = vec![format!(
                    "id = {}",
                    if r.one_in(8) {
                        number(r)
                    } else {
                        i.to_string()
                    }
                )];
                for key in [
                    "capacity",
                    "core",
                    "cluster",
                    "llc",
                    "package",
                    "node",
                    "freq_domain",
                ] {
                    if r.one_in(4) {
                        let v = if key == "capacity" {
                            r.pick(&["1024", "512", "0", "2000"]).to_string()
                        } else {
                            r.below(3).to_string()
                        };
                        fields.push(format!("{key} = {v}"));
                    }
                }
                format!("{{ {} }}", fields.join(", "))
            })
            .collect();
        out.push_str(&format!("cpu = [{}]\n", cpus.join(",\n  ")));
        for _ in 0..r.below(3) {
            out.push_str("[[freq_domain]]\n");
            out.push_str(&format!(
                "cpus = {}\n",
                quote(r.pick(&["0", "0-1", "0-3", "1-2", "4-5", "0,2", ""]))
            ));
            let opps: Vec<String> = (0..r.below(3) + 1)
                .map(|_| match r.below(4) {
                    0 => format!(
                        "{{ khz = {} }}",
                        r.pick(&["500000", "1000000", "2000000", "0", "-1"])
                    ),
                    1 => format!(
                        "{{ khz = {}, uv = {}, power_uw = {} }}",
                        r.pick(&["1000000", "2000000"]),
                        number(r),
                        number(r)
                    ),
                    2 => format!(
                        "{{ mhz = {}, mv = {}, coefficient = {} }}",
                        r.pick(&["1000", "2000", "0"]),
                        r.pick(&["800", "1000", "0"]),
                        number(r)
                    ),
                    _ => "{ khz = 1000000, mhz = 1000 }".to_string(),
                })
                .collect();
            out.push_str(&format!("opps = [{}]\n", opps.join(", ")));
            if r.one_in(3) {
                out.push_str(&format!(
                    "cur_khz = {}\n",
                    r.pick(&["1000000", "2000000", "5"])
                ));
            }
            if r.one_in(3) {
                out.push_str(&format!(
                    "transition_latency_{} = {}\n",
                    r.pick(&["ns", "us"]),
                    number(r)
                ));
            }
            if r.one_in(3) {
                out.push_str("idle_states = [{ name = \"WFI\", exit_latency_ns = 1000, target_residency_ns = 1000 }]\n");
            }
        }
    } else {
        out.push_str("[shape]\n");
        for key in [
            "packages",
            "nodes_per_package",
            "llcs_per_node",
            "cores_per_llc",
            "cores_per_cluster",
            "threads_per_core",
            "khz",
            "distance_same_package",
            "distance_remote",
        ] {
            if r.one_in(2) {
                let v = if r.one_in(4) {
                    number(r)
                } else {
                    (r.below(4) + 1).to_string()
                };
                out.push_str(&format!("{key} = {v}\n"));
            }
        }
        if r.one_in(3) {
            out.push_str(&format!(
                "numbering = {}\n",
                quote(r.pick(&["adjacent", "strided", "interleaved"]))
            ));
        }
    }
    if r.one_in(3) {
        out.push_str("[numa]\n");
        out.push_str(r.pick(&[
            "distance = [[10, 20], [20, 10]]\n",
            "distance = [[10]]\n",
            "distance = [[10, 20], [21, 10]]\n",
            "distance = []\n",
            "distance = [[10, 5], [5, 10]]\n",
        ]));
    }
    if r.one_in(3) {
        out.push_str("[costs]\n");
        for _ in 0..r.below(3) + 1 {
            let key = r.pick(&[
                "context_switch_ns",
                "wakeup_ipi_ns",
                "smt_busy_speed_pct",
                "pipe_write_ns",
                "matrix_mac_ps",
                "spin_loop_ps",
                "cacheline_store_stall_pct",
                "cacheline_occupancy_pct",
                "bogus_ns",
            ]);
            out.push_str(&format!("{key} = {}\n", number(r)));
        }
    }
    if r.one_in(5) {
        out.push_str(&format!("[kernel]\nversion = {}\n", quote(r.pick(KERNELS))));
    }
    out
}

/// An rt-app JSON document.
pub fn rtapp(r: &mut Rng) -> String {
    let mut tasks = Vec::new();
    for t in 0..r.below(3) + 1 {
        let mut fields: Vec<String> = Vec::new();
        if r.one_in(3) {
            fields.push(format!(
                "\"instance\": {}",
                r.pick(&["0", "1", "2", "3", "-1", "100001"])
            ));
        }
        if r.one_in(3) {
            fields.push(format!(
                "\"loop\": {}",
                r.pick(&["-1", "0", "1", "3", "1.5"])
            ));
        }
        for (key, vals) in [
            (
                "policy",
                &[
                    "\"SCHED_OTHER\"",
                    "\"SCHED_BATCH\"",
                    "\"SCHED_IDLE\"",
                    "\"SCHED_FIFO\"",
                    "\"other\"",
                    "1",
                ][..],
            ),
            ("priority", &["0", "-20", "19", "20", "-21", "\"x\""][..]),
            (
                "cpus",
                &["[0]", "[0, 1]", "[]", "[5]", "[-1]", "[0, 0]", "0"][..],
            ),
            ("delay", &["0", "1000", "-5"][..]),
            ("util_min", &["0", "512", "1024", "1025", "-1"][..]),
            ("util_max", &["0", "512", "1024", "-1", "-2"][..]),
            ("dl-runtime", &["0", "1000", "100000", "-1"][..]),
            (
                "taskgroup",
                &["\"/a\"", "\"/\"", "\"\"", "\"a\"", "\"/a/b\""][..],
            ),
        ] {
            if r.one_in(6) {
                fields.push(format!("\"{key}\": {}", r.pick(vals)));
            }
        }
        if r.one_in(3) {
            let phases: Vec<String> = (0..r.below(3) + 1)
                .map(|p| format!("\"p{p}\": {{ {} }}", events(r).join(", ")))
                .collect();
            fields.push(format!("\"phases\": {{ {} }}", phases.join(", ")));
        } else {
            fields.extend(events(r));
        }
        tasks.push(format!("\"t{t}\": {{ {} }}", fields.join(", ")));
    }
    let mut global = Vec::new();
    if r.one_in(2) {
        global.push(format!(
            "\"duration\": {}",
            r.pick(&["0", "1", "-1", "-2", "0.001", "\"5\""])
        ));
    }
    if r.one_in(4) {
        global.push(format!(
            "\"default_policy\": {}",
            r.pick(&["\"SCHED_OTHER\"", "\"SCHED_RR\"", "\"SCHED_IDLE\""])
        ));
    }
    if r.one_in(5) {
        global.push(format!(
            "\"{}\": {}",
            r.pick(&[
                "calibration",
                "pi_enabled",
                "io_device",
                "mem_buffer_size",
                "frag",
                "logdir"
            ]),
            r.pick(&["0", "true", "false", "\"/dev/null\"", "\"/dev/sda\"", "-1"])
        ));
    }
    let resources = if r.one_in(6) {
        ", \"resources\": {}"
    } else {
        ""
    };
    format!(
        "{{ \"global\": {{ {} }}, \"tasks\": {{ {} }}{resources} }}",
        global.join(", "),
        tasks.join(", ")
    )
}

/// rt-app events of one task or phase.
fn events(r: &mut Rng) -> Vec<String> {
    let names = ["m", "m2", "b", "q", "t0"];
    (0..r.below(5) + 1)
        .map(|_| match r.below(16) {
            0 | 1 => format!(
                "\"run\": {}",
                r.pick(&["1000", "100", "0", "-5", "2000000000", "\"1\""])
            ),
            2 => format!("\"sleep\": {}", r.pick(&["1000", "0", "-1", "100"])),
            3 => format!("\"runtime\": {}", r.pick(&["1000", "0"])),
            4 => format!(
                "\"timer\": {{ \"ref\": \"{}\", \"period\": {}{} }}",
                r.pick(&names),
                r.pick(&["1000", "0", "-1", "16000"]),
                r.pick(&["", ", \"mode\": \"absolute\"", ", \"mode\": \"bogus\""])
            ),
            5 => format!("\"lock\": \"{}\"", r.pick(&names)),
            6 => format!("\"unlock\": \"{}\"", r.pick(&names)),
            7 => format!(
                "\"wait\": {{ \"ref\": \"{}\", \"mutex\": \"{}\" }}",
                r.pick(&names),
                r.pick(&names)
            ),
            8 => format!("\"signal\": \"{}\"", r.pick(&names)),
            9 => format!("\"barrier\": \"{}\"", r.pick(&names)),
            10 => format!("\"suspend\": \"{}\"", r.pick(&["t0-0", "t1-1", "nobody"])),
            11 => format!("\"resume\": \"{}\"", r.pick(&["t0-0", "t1-1", "nobody"])),
            12 => format!("\"fork\": \"{}\"", r.pick(&["t0", "t1", "t2", "nobody"])),
            13 => format!("\"yield\": {}", r.pick(&["0", "\"\""])),
            14 => format!(
                "\"{}\": {}",
                r.pick(&["iorun", "sem_post", "sem_wait", "sem_init", "mem", "memrun", "bogus"]),
                r.pick(&["1000", "\"q\"", "{}", "0"])
            ),
            _ => format!("\"runtime\": {}", r.pick(&["5", "-5"])),
        })
        .collect()
}

/// A sched-features list (debugfs syntax) or a `NAME=VALUE` sysctl.
pub fn knob(r: &mut Rng) -> String {
    if r.one_in(2) {
        feature_list(r)
    } else {
        let sep = r.pick(&["=", " = ", "==", ""]);
        format!("{}{sep}{}", r.pick(SYSCTLS), number(r))
    }
}
