//! Buffered reading of a trace file that knows the byte offset of what it
//! hands out (Click's `FromFile`): a regular file, standard input (`-`), or
//! the output of `gzip -dc`/`bzip2 -dc`/`xz -dc` for a compressed file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::process::{Child, ChildStdout, Command, Stdio};

/// Bytes read from the source at a time.
const BUFFER_SIZE: usize = 64 * 1024;

enum Source {
    File(File),
    Stdin(io::Stdin),
    Pipe(Child, ChildStdout),
}

impl Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::File(f) => f.read(buf),
            Source::Stdin(s) => s.read(buf),
            Source::Pipe(_, o) => o.read(buf),
        }
    }
}

/// A trace file being read.
pub struct FileInput {
    name: String,
    src: Source,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    /// File offset of `buf[0]`.
    offset: u64,
}

/// An I/O error's text without Rust's `(os error N)` suffix, as `strerror`.
pub fn strerror(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// The name Click prints for `filename` (`<stdin>` for `-`).
pub fn print_name(filename: &str) -> String {
    if filename.is_empty() || filename == "-" {
        "<stdin>".to_string()
    } else {
        filename.to_string()
    }
}

fn decompressor(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0x1F, 0x8B]) {
        Some("gzip")
    } else if head.starts_with(b"BZh") {
        Some("bzip2")
    } else if head.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0]) {
        Some("xz")
    } else {
        None
    }
}

impl FileInput {
    /// Opens `filename` (`-` for standard input) and reads its first buffer.
    /// Errors read `NAME: reason`.
    pub fn open(filename: &str) -> Result<FileInput, String> {
        let name = print_name(filename);
        let src = if name == "<stdin>" {
            Source::Stdin(io::stdin())
        } else {
            Source::File(File::open(filename).map_err(|e| format!("{name}: {}", strerror(&e)))?)
        };
        let mut fi = FileInput {
            name,
            src,
            buf: vec![0; BUFFER_SIZE],
            pos: 0,
            len: 0,
            offset: 0,
        };
        fi.fill(1).map_err(|e| fi.error(&strerror(&e)))?;
        if fi.len == 0 {
            return Err(fi.error("empty file"));
        }
        if let (Source::File(_), Some(prog)) = (&fi.src, decompressor(&fi.buf[..fi.len])) {
            let mut child = Command::new(prog)
                .arg("-dc")
                .arg(filename)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .spawn()
                .map_err(|e| fi.error(&format!("{} while executing '{prog} -dc'", strerror(&e))))?;
            let Some(out) = child.stdout.take() else {
                let _ = child.kill();
                let _ = child.wait();
                return Err(fi.error("cannot read decompressor output"));
            };
            fi.src = Source::Pipe(child, out);
            fi.pos = 0;
            fi.len = 0;
            fi.offset = 0;
            fi.fill(1).map_err(|e| fi.error(&strerror(&e)))?;
            if fi.len == 0 {
                return Err(fi.error("empty file"));
            }
        }
        Ok(fi)
    }

    /// `NAME: msg`.
    pub fn error(&self, msg: &str) -> String {
        format!("{}: {msg}", self.name)
    }

    /// The name printed in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The (uncompressed) file offset of the next byte.
    pub fn position(&self) -> u64 {
        self.offset + self.pos as u64
    }

    /// The file's size, when it is a regular file read directly.
    pub fn size(&self) -> Option<u64> {
        match &self.src {
            Source::File(f) => f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len()),
            _ => None,
        }
    }

    /// Bytes buffered and not yet handed out.
    fn buffered(&self) -> usize {
        self.len - self.pos
    }

    /// Makes at least `need` bytes available unless the source ends first.
    fn fill(&mut self, need: usize) -> io::Result<()> {
        if self.buffered() >= need {
            return Ok(());
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.len, 0);
            self.offset += self.pos as u64;
            self.len -= self.pos;
            self.pos = 0;
        }
        if self.buf.len() < need {
            self.buf.resize(need.max(BUFFER_SIZE), 0);
        }
        while self.len < need {
            match self.src.read(&mut self.buf[self.len..]) {
                Ok(0) => break,
                Ok(n) => self.len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next `n` bytes, consumed. `Ok(Err(got))` when the source ends
    /// after `got < n` bytes (which are consumed too).
    pub fn take(&mut self, n: usize) -> io::Result<Result<&[u8], usize>> {
        self.fill(n)?;
        let start = self.pos;
        if self.buffered() < n {
            let got = self.buffered();
            self.pos = self.len;
            return Ok(Err(got));
        }
        self.pos += n;
        Ok(Ok(&self.buf[start..start + n]))
    }

    /// The next line without its line ending (`\n`, `\r\n` or `\r`),
    /// consumed; `None` at the end of the source. A last line without an
    /// ending counts as a line.
    pub fn read_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut line = Vec::new();
        loop {
            self.fill(1)?;
            if self.buffered() == 0 {
                return Ok((!line.is_empty()).then_some(line));
            }
            let avail = &self.buf[self.pos..self.len];
            match avail.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(i) => {
                    line.extend_from_slice(&avail[..i]);
                    let cr = avail[i] == b'\r';
                    self.pos += i + 1;
                    if cr {
                        self.fill(1)?;
                        if self.buffered() > 0 && self.buf[self.pos] == b'\n' {
                            self.pos += 1;
                        }
                    }
                    return Ok(Some(line));
                }
                None => {
                    line.extend_from_slice(avail);
                    self.pos = self.len;
                }
            }
        }
    }

    /// Skips `n` bytes (seeking when possible).
    pub fn skip(&mut self, n: u64) -> io::Result<()> {
        let b = self.buffered() as u64;
        if n <= b {
            self.pos += n as usize;
            return Ok(());
        }
        let target = self.position() + n;
        self.seek_to(target).map_err(io::Error::other)
    }

    /// Moves to file offset `want`. Pipes and standard input can only move
    /// forward.
    pub fn seek_to(&mut self, want: u64) -> Result<(), String> {
        if want >= self.offset && want <= self.offset + self.len as u64 {
            self.pos = (want - self.offset) as usize;
            return Ok(());
        }
        if let Source::File(f) = &mut self.src {
            f.seek(SeekFrom::Start(want))
                .map_err(|e| format!("{}: {}", self.name, strerror(&e)))?;
            self.offset = want;
            self.pos = 0;
            self.len = 0;
            return Ok(());
        }
        let here = self.position();
        if want < here {
            return Err(self.error("cannot seek backwards in a pipe"));
        }
        let mut left = want - here;
        self.offset += self.len as u64;
        self.pos = 0;
        self.len = 0;
        while left > 0 {
            let chunk = left.min(self.buf.len() as u64) as usize;
            let got = loop {
                match self.src.read(&mut self.buf[..chunk]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    r => break r,
                }
            }
            .map_err(|e| self.error(&strerror(&e)))?;
            if got == 0 {
                break;
            }
            self.offset += got as u64;
            left -= got as u64;
        }
        Ok(())
    }
}

impl Drop for FileInput {
    fn drop(&mut self) {
        if let Source::Pipe(child, _) = &mut self.src {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, data: &[u8]) -> String {
        let dir = std::env::temp_dir().join(format!("rclick-fileinput-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, data).unwrap();
        p.to_string_lossy().into_owned()
    }

    #[test]
    fn take_skip_seek() {
        let data: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let f = temp("a", &data);
        let mut fi = FileInput::open(&f).unwrap();
        assert_eq!(fi.size(), Some(200_000));
        assert_eq!(fi.take(3).unwrap().unwrap(), &[0, 1, 2]);
        fi.skip(100_000).unwrap();
        assert_eq!(fi.position(), 100_003);
        assert_eq!(fi.take(1).unwrap().unwrap(), &[(100_003u32 as u8)]);
        let big = fi.take(90_000).unwrap().unwrap().len();
        assert_eq!(big, 90_000);
        fi.seek_to(10).unwrap();
        assert_eq!(fi.take(1).unwrap().unwrap(), &[10]);
        fi.seek_to(199_998).unwrap();
        assert_eq!(fi.take(5).unwrap(), Err(2));
        assert_eq!(fi.take(1).unwrap(), Err(0));
    }

    #[test]
    fn open_errors() {
        let e = FileInput::open("/nonexistent/rclick/x").err().unwrap();
        assert_eq!(e, "/nonexistent/rclick/x: No such file or directory");
        let f = temp("empty", b"");
        let e = FileInput::open(&f).err().unwrap();
        assert!(e.ends_with(": empty file"), "{e}");
    }
}
