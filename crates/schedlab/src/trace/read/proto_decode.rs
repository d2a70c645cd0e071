//! A minimal protobuf reader, the counterpart of `proto_encode`: walks the fields of one
//! message (varints and length-delimited payloads; fixed32/fixed64 are skipped over).
//! Enough to read Perfetto traces back without generated code.

/// One field of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    /// A fixed-width value (wire types 1 and 5), as raw bits.
    Fixed(u64),
}

impl<'a> Field<'a> {
    pub fn uint(self) -> Option<u64> {
        match self {
            Field::Varint(v) | Field::Fixed(v) => Some(v),
            Field::Bytes(_) => None,
        }
    }

    pub fn int(self) -> Option<i64> {
        self.uint().map(|v| v as i64)
    }

    pub fn bytes(self) -> Option<&'a [u8]> {
        match self {
            Field::Bytes(b) => Some(b),
            _ => None,
        }
    }

    pub fn text(self) -> Option<String> {
        self.bytes()
            .map(|b| String::from_utf8_lossy(b).into_owned())
    }
}

/// Iterator over `(field number, value)`; stops (with `error` set) at malformed input.
pub struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    pub error: bool,
}

pub fn fields(buf: &[u8]) -> Fields<'_> {
    Fields {
        buf,
        pos: 0,
        error: false,
    }
}

impl<'a> Fields<'a> {
    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.buf.get(self.pos)?;
            self.pos += 1;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn fixed(&mut self, n: usize) -> Option<u64> {
        let bytes = self.buf.get(self.pos..self.pos + n)?;
        self.pos += n;
        Some(
            bytes
                .iter()
                .rev()
                .fold(0u64, |acc, &b| (acc << 8) | b as u64),
        )
    }

    fn next_field(&mut self) -> Option<(u32, Field<'a>)> {
        let key = self.varint()?;
        let field = (key >> 3) as u32;
        let value = match key & 7 {
            0 => Field::Varint(self.varint()?),
            1 => Field::Fixed(self.fixed(8)?),
            2 => {
                let len = usize::try_from(self.varint()?).ok()?;
                let end = self.pos.checked_add(len)?;
                let b = self.buf.get(self.pos..end)?;
                self.pos = end;
                Field::Bytes(b)
            }
            5 => Field::Fixed(self.fixed(4)?),
            _ => return None,
        };
        Some((field, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = (u32, Field<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.buf.len() || self.error {
            return None;
        }
        let f = self.next_field();
        if f.is_none() {
            self.error = true;
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::proto_encode::Enc;
    use super::*;

    #[test]
    fn reads_what_the_encoder_writes() {
        let mut e = Enc::default();
        e.uint(1, 300);
        e.int(2, -5);
        e.message(3, |m| m.string(1, "hi"));
        let got: Vec<_> = fields(&e.buf).collect();
        assert_eq!(got[0], (1, Field::Varint(300)));
        assert_eq!(got[1].1.int(), Some(-5));
        let inner: Vec<_> = fields(got[2].1.bytes().unwrap()).collect();
        assert_eq!(inner[0].1.text().as_deref(), Some("hi"));
    }

    #[test]
    fn truncated_input_stops() {
        let mut it = fields(&[0x0a, 0x05, 0x01]);
        assert!(it.next().is_none());
        assert!(it.error);
    }
}
