//! The JSON dialect rt-app files are written in: strict JSON plus what rt-app's json-c
//! (non-strict tokener) and its `workgen` pre-processor accept, so that files written for
//! rt-app load unchanged:
//!
//! - `/* … */` and `// …` comments, and a trailing comma before `}` or `]` (json-c);
//! - repeated keys in one object, kept in file order (workgen renames them `run1`,
//!   `run2`, … so each stays a separate event); `allow_repeat` decides which keys may
//!   repeat, any other repeat is an error;
//! - a key without a value (`"suspend",`), read as [`Json::Absent`] (workgen fills in
//!   the task's name).
//!
//! Syntax errors point at `FILE:LINE:COLUMN` (1-based; the column counts characters).

use crate::error::InputError;

#[derive(Debug)]
pub enum Json {
    Null,
    /// A key written without a value (workgen's bare `"suspend",`).
    Absent,
    Bool(bool),
    Int(i64),
    Float,
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// The same JSON value (a float, whose value is not kept, is never identical).
fn identical(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Null, Json::Null) | (Json::Absent, Json::Absent) => true,
        (Json::Bool(x), Json::Bool(y)) => x == y,
        (Json::Int(x), Json::Int(y)) => x == y,
        (Json::Str(x), Json::Str(y)) => x == y,
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| identical(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, a), (kb, b))| ka == kb && identical(a, b))
        }
        _ => false,
    }
}

impl Json {
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Absent => "no value",
            Json::Bool(_) => "a boolean",
            Json::Int(_) => "an integer",
            Json::Float => "a fractional number",
            Json::Str(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

/// Parse `text`; `allow_repeat(key)` says whether a key may appear twice in one object.
pub fn parse(text: &str, file: &str, allow_repeat: fn(&str) -> bool) -> Result<Json, InputError> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        allow_repeat,
    };
    let result = p.value(0).and_then(|v| {
        p.skip_ws()?;
        match p.peek() {
            None => Ok(v),
            Some(_) => Err(p.fail("trailing characters after the JSON value")),
        }
    });
    result.map_err(|(at, msg)| {
        let (line, col) = line_col(text, at);
        InputError::new(format!("{file}:{line}:{col}"), msg).with_fix(
            "rt-app reads JSON (comments and trailing commas allowed); check quotes, \
             commas and brackets here",
        )
    })
}

/// Objects and arrays nested deeper than this are refused (no stack overflow).
const MAX_DEPTH: usize = 128;

type PResult<T> = Result<T, (usize, String)>;

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    allow_repeat: fn(&str) -> bool,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn fail(&self, msg: impl Into<String>) -> (usize, String) {
        (self.pos, msg.into())
    }

    fn unexpected(&self, wanted: &str) -> (usize, String) {
        match self.peek() {
            None => self.fail(format!("unexpected end of file, expected {wanted}")),
            Some(c) => self.fail(format!(
                "unexpected '{}', expected {wanted}",
                char_at(self.s, self.pos).unwrap_or(c as char)
            )),
        }
    }

    /// Skip whitespace and comments.
    fn skip_ws(&mut self) -> PResult<()> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') if self.s.get(self.pos + 1) == Some(&b'*') => {
                    let start = self.pos;
                    self.pos += 2;
                    loop {
                        match self.peek() {
                            None => return Err((start, "unterminated /* comment".into())),
                            Some(b'*') if self.s.get(self.pos + 1) == Some(&b'/') => {
                                self.pos += 2;
                                break;
                            }
                            Some(_) => self.pos += 1,
                        }
                    }
                }
                Some(b'/') if self.s.get(self.pos + 1) == Some(&b'/') => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.pos += 1;
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> PResult<Json> {
        self.skip_ws()?;
        if depth > MAX_DEPTH {
            return Err(self.fail(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            _ => Err(self.unexpected("a value")),
        }
    }

    fn word(&mut self, w: &str, v: Json) -> PResult<Json> {
        if self.s[self.pos..].starts_with(w.as_bytes()) {
            self.pos += w.len();
            Ok(v)
        } else {
            Err(self.unexpected("a value"))
        }
    }

    fn object(&mut self, depth: usize) -> PResult<Json> {
        self.pos += 1;
        let mut entries: Vec<(String, Json)> = Vec::new();
        loop {
            self.skip_ws()?;
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(entries));
                }
                Some(b'"') => {}
                _ => return Err(self.unexpected("a key in quotes or '}'")),
            }
            let key_at = self.pos;
            let key = self.string()?;
            let earlier = entries
                .iter()
                .position(|(k, _)| *k == key)
                .filter(|_| !(self.allow_repeat)(&key));
            self.skip_ws()?;
            let value = match self.peek() {
                Some(b':') => {
                    self.pos += 1;
                    self.value(depth + 1)?
                }
                // workgen: a bare key such as "suspend",
                Some(b',' | b'}') => Json::Absent,
                _ => return Err(self.unexpected("':'")),
            };
            match earlier {
                // json-c keeps one value per key; a repeat that says the same again (a
                // phase pasted twice, rt-app's spreading-tasks example) means the same
                // whichever it keeps. A different value would be a silent choice.
                Some(i) if identical(&entries[i].1, &value) => {}
                Some(_) => return Err((key_at, format!("duplicate key \"{key}\""))),
                None => entries.push((key, value)),
            }
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => return Err(self.unexpected("',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> PResult<Json> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws()?;
            if self.peek() == Some(b']') {
                self.pos += 1;
                return Ok(Json::Array(items));
            }
            items.push(self.value(depth + 1)?);
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {}
                _ => return Err(self.unexpected("',' or ']'")),
            }
        }
    }

    fn number(&mut self) -> PResult<Json> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let digits = |p: &mut Self| {
            let from = p.pos;
            while matches!(p.peek(), Some(b'0'..=b'9')) {
                p.pos += 1;
            }
            p.pos > from
        };
        if !digits(self) {
            return Err(self.unexpected("a digit"));
        }
        let mut fractional = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            fractional = true;
            if !digits(self) {
                return Err(self.unexpected("a digit after '.'"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            fractional = true;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.unexpected("a digit in the exponent"));
            }
        }
        if fractional {
            return Ok(Json::Float);
        }
        let text = std::str::from_utf8(&self.s[start..self.pos]).expect("ASCII digits");
        text.parse::<i64>()
            .map(Json::Int)
            .map_err(|_| (start, format!("number {text} is too large")))
    }

    fn string(&mut self) -> PResult<String> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let start = self.pos;
            while !matches!(self.peek(), None | Some(b'"' | b'\\' | 0..=0x1f)) {
                self.pos += 1;
            }
            out.push_str(std::str::from_utf8(&self.s[start..self.pos]).expect("valid UTF-8"));
            match self.peek() {
                None => return Err((open, "unterminated string".into())),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    out.push(self.escape()?);
                }
                Some(_) => return Err(self.fail("control character in a string")),
            }
        }
    }

    fn escape(&mut self) -> PResult<char> {
        let c = self
            .peek()
            .ok_or_else(|| self.fail("unterminated string"))?;
        self.pos += 1;
        Ok(match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                if (0xd800..0xdc00).contains(&hi) && self.s[self.pos..].starts_with(b"\\u") {
                    self.pos += 2;
                    let lo = self.hex4()?;
                    let code = 0x10000 + ((hi - 0xd800) << 10) + (lo.wrapping_sub(0xdc00) & 0x3ff);
                    char::from_u32(code).unwrap_or('\u{fffd}')
                } else {
                    char::from_u32(hi).unwrap_or('\u{fffd}')
                }
            }
            _ => {
                self.pos -= 1;
                return Err(self.fail("unknown escape in a string"));
            }
        })
    }

    fn hex4(&mut self) -> PResult<u32> {
        let digits = self.s.get(self.pos..self.pos + 4).unwrap_or(&[]);
        let text = std::str::from_utf8(digits).unwrap_or("");
        match (text.len(), u32::from_str_radix(text, 16)) {
            (4, Ok(v)) if text.bytes().all(|b| b.is_ascii_hexdigit()) => {
                self.pos += 4;
                Ok(v)
            }
            _ => Err(self.fail("\\u needs four hex digits")),
        }
    }
}

/// The character starting at byte `at`, if `at` is on a character boundary.
fn char_at(s: &[u8], at: usize) -> Option<char> {
    std::str::from_utf8(&s[at..]).ok()?.chars().next()
}

/// 1-based line and column (in characters) of byte offset `at`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = &text.as_bytes()[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, col)
}
