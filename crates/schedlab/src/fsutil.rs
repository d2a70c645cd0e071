//! Writing result files so that a reader never sees a partial one.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Write `FILE.tmp`, flush it to disk, then rename it over `FILE`: readers see either the
/// old file or the complete new one, never a partial document. The temporary file is
/// removed on failure.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let mut tmp_name = OsString::from(path.as_os_str());
    tmp_name.push(".tmp");
    let tmp = PathBuf::from(tmp_name);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}
