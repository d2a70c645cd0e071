//! Where trace bytes go: a temporary file beside the target, renamed over it only when the
//! run and the trace are complete (a failed or interrupted run never leaves a partial trace
//! under the requested name), or nowhere (the size estimate's pilot run counts bytes).

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Write buffer: large enough that flushes are rare, small enough to keep memory flat.
const BUF_BYTES: usize = 1 << 20;

pub enum Out {
    File {
        tmp: PathBuf,
        target: PathBuf,
        w: BufWriter<File>,
        bytes: u64,
    },
    /// Count bytes only.
    Null { bytes: u64 },
}

/// `FILE` + `suffix`, in the same folder (so the final rename stays on one file system).
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(suffix);
    PathBuf::from(name)
}

impl Out {
    /// Create `target.tmp` for writing; `target` appears at [`Out::commit`].
    pub fn create(target: &Path, suffix: &str) -> io::Result<Out> {
        let tmp = sibling(target, suffix);
        let f = File::create(&tmp)?;
        Ok(Out::File {
            tmp,
            target: target.to_path_buf(),
            w: BufWriter::with_capacity(BUF_BYTES, f),
            bytes: 0,
        })
    }

    pub fn null() -> Out {
        Out::Null { bytes: 0 }
    }

    pub fn bytes(&self) -> u64 {
        match self {
            Out::File { bytes, .. } | Out::Null { bytes } => *bytes,
        }
    }

    /// Flush, sync and rename over the target.
    pub fn commit(self) -> io::Result<()> {
        match self {
            Out::File { tmp, target, w, .. } => {
                let result = (|| {
                    let f = w.into_inner().map_err(|e| e.into_error())?;
                    f.sync_all()?;
                    fs::rename(&tmp, &target)
                })();
                if result.is_err() {
                    let _ = fs::remove_file(&tmp);
                }
                result
            }
            Out::Null { .. } => Ok(()),
        }
    }

    /// Remove the temporary file (the run failed or the output is not wanted).
    pub fn discard(self) {
        if let Out::File { tmp, w, .. } = self {
            drop(w);
            let _ = fs::remove_file(tmp);
        }
    }

    /// The temporary file's path, if any (the text sink reads its body back).
    pub fn tmp_path(&self) -> Option<&Path> {
        match self {
            Out::File { tmp, .. } => Some(tmp),
            Out::Null { .. } => None,
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::File { w, bytes, .. } => {
                let n = w.write(buf)?;
                *bytes += n as u64;
                Ok(n)
            }
            Out::Null { bytes } => {
                *bytes += buf.len() as u64;
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::File { w, .. } => w.flush(),
            Out::Null { .. } => Ok(()),
        }
    }
}
