//! A minimal protobuf writer: varints, length-delimited fields and nested messages whose
//! length is back-patched into a reserved 4-byte varint (the protozero technique; parsers
//! accept the redundant continuation bytes). Enough for the handful of Perfetto messages
//! the tracer writes, with no build script and no generated code.

const WIRE_VARINT: u32 = 0;
const WIRE_LEN: u32 = 2;

/// Bytes of a reserved, back-patched length: lengths up to 2²⁸ − 1.
const LEN_BYTES: usize = 4;

#[derive(Debug, Default, Clone)]
pub struct Enc {
    pub buf: Vec<u8>,
}

impl Enc {
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    pub fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    fn key(&mut self, field: u32, wire: u32) {
        self.varint(((field as u64) << 3) | wire as u64);
    }

    /// uint32/uint64/bool/enum field.
    pub fn uint(&mut self, field: u32, v: u64) {
        self.key(field, WIRE_VARINT);
        self.varint(v);
    }

    /// int32/int64 field (two's complement varint; negative values take 10 bytes).
    pub fn int(&mut self, field: u32, v: i64) {
        self.uint(field, v as u64);
    }

    pub fn bytes(&mut self, field: u32, b: &[u8]) {
        self.key(field, WIRE_LEN);
        self.varint(b.len() as u64);
        self.buf.extend_from_slice(b);
    }

    pub fn string(&mut self, field: u32, s: &str) {
        self.bytes(field, s.as_bytes());
    }

    /// Open a nested message: returns the position to pass to [`Enc::end`].
    pub fn begin(&mut self, field: u32) -> usize {
        self.key(field, WIRE_LEN);
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0x80, 0x80, 0x80, 0x00]);
        at
    }

    /// Close the nested message opened at `at`, writing its length.
    pub fn end(&mut self, at: usize) {
        let len = self.buf.len() - at - LEN_BYTES;
        assert!(len < 1 << 28, "protobuf message over 256 MiB");
        for i in 0..LEN_BYTES {
            let byte = ((len >> (7 * i)) & 0x7f) as u8;
            self.buf[at + i] = if i + 1 < LEN_BYTES { byte | 0x80 } else { byte };
        }
    }

    /// A nested message written by `f`.
    pub fn message(&mut self, field: u32, f: impl FnOnce(&mut Enc)) {
        let at = self.begin(field);
        f(self);
        self.end(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_protobuf() {
        let mut e = Enc::default();
        e.uint(1, 150);
        assert_eq!(e.buf, [0x08, 0x96, 0x01]);
        e.clear();
        e.string(2, "testing");
        assert_eq!(e.buf[..2], [0x12, 0x07]);
        e.clear();
        e.message(3, |m| m.uint(1, 1));
        assert_eq!(e.buf, [0x1a, 0x82, 0x80, 0x80, 0x00, 0x08, 0x01]);
        e.clear();
        e.int(1, -1);
        assert_eq!(e.buf.len(), 11);
    }
}
