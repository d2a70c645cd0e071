//! Mutation of an input's text: byte and token edits that keep most of the structure, so
//! a mutant of a valid file reaches the checks behind the parser.

use crate::rng::Rng;

/// Tokens spliced in: the syntax of TOML and JSON, keys and edge values.
const TOKENS: &[&str] = &[
    "\"",
    "'",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "=",
    "\n",
    "[[cpu]]\n",
    "[shape]\n",
    "\\",
    "\\u0000",
    "\\ud800",
    "/*",
    "*/",
    "//",
    "-",
    "0",
    "-1",
    "1e999",
    "9223372036854775808",
    "null",
    "true",
    "\"\"",
    "{}",
    "[]",
    "NaN",
    "\u{feff}",
    "\u{0}",
    "é",
    "µs",
    "\t",
    "\r\n",
    "\"run\": ",
    "\"loop\": ",
    "\"instance\": ",
    "\"cpus\": ",
    "\"phases\": {",
    "\"tasks\": {",
    "workloads = ",
    "machine = ",
    "duration = ",
    "[cgroups.\"/a\"]\n",
    "[sysctl]\n",
    " -g ",
    " --",
];

pub fn mutate(r: &mut Rng, input: &str, other: &str) -> String {
    let mut b: Vec<u8> = input.as_bytes().to_vec();
    for _ in 0..r.below(4) + 1 {
        let len = b.len();
        let at = if len == 0 { 0 } else { r.below(len + 1) };
        match r.below(9) {
            0 if len > 0 => {
                // flip a byte to another printable one
                let i = r.below(len);
                b[i] = b' ' + (r.below(95) as u8);
            }
            1 if len > 0 => {
                let end = (at + r.below(16) + 1).min(len);
                b.drain(at.min(end)..end);
            }
            2 | 3 => {
                let tok = r.pick(TOKENS).as_bytes();
                b.splice(at..at, tok.iter().copied());
            }
            4 if len > 0 => {
                // duplicate a chunk
                let start = r.below(len);
                let end = (start + r.below(32) + 1).min(len);
                let chunk: Vec<u8> = b[start..end].to_vec();
                b.splice(at..at, chunk);
            }
            5 => {
                // replace a run of digits by an interesting number
                if let Some(i) = (0..len)
                    .map(|k| (k + at) % len.max(1))
                    .find(|&k| b[k].is_ascii_digit())
                {
                    let mut j = i;
                    while j < len && b[j].is_ascii_digit() {
                        j += 1;
                    }
                    let n = r.pick(&[
                        "0",
                        "1",
                        "-1",
                        "4096",
                        "4097",
                        "100001",
                        "18446744073709551615",
                        "9223372036854775807",
                        "2147483648",
                        "65536",
                    ]);
                    b.splice(i..j, n.bytes());
                }
            }
            6 if !other.is_empty() => {
                // splice a piece of another input
                let o = other.as_bytes();
                let s = r.below(o.len());
                let e = (s + r.below(64) + 1).min(o.len());
                b.splice(at..at, o[s..e].iter().copied());
            }
            7 => b.truncate(at),
            _ => {
                if len > 0 {
                    let i = r.below(len);
                    b[i] = r.next_u64() as u8;
                }
            }
        }
    }
    // The parsers take text: invalid UTF-8 is fixed up the way a reader of the file
    // would see it (lossily), so byte-level edits still reach them.
    String::from_utf8_lossy(&b).into_owned()
}
