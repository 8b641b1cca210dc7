//! `payload-xor`: an example rclick element package (docs/PLUGINS.md).
//!
//! Three classes, written against rclick-sdk in ordinary safe Rust:
//! `PayloadXor` (a per-packet action with keywords and read handlers),
//! `LengthSplit` (two outputs) and `PanicEvery` (panics, caught at the
//! boundary).

use rclick_sdk::{Action, Config, PackageElement, Packet};

/// The PayloadXor element.
pub struct PayloadXor {
    key: u8,
    offset: usize,
    count: u64,
    bytes: u64,
}

impl PackageElement for PayloadXor {
    const CLASS: &'static str = "PayloadXor";
    const HANDLERS: &'static [&'static str] = &["count", "bytes", "key"];
    const WRITE_HANDLERS: &'static [&'static str] = &["key"];
    const MANUAL: &'static str = "\
# PayloadXor

`PayloadXor(KEY [, OFFSET])`

**Category:** example package `payload-xor`. XORs packet bytes with a key.

**Ports:** 1 input, 1 output. **Processing:** agnostic.

## Description

XORs every byte of the packet from OFFSET on with KEY (applying it twice
gives the packet back). Packets shorter than OFFSET pass unchanged. Uses
no annotation; sets none.

Keywords:

* `KEY` (byte, mandatory): the key.
* `OFFSET` (unsigned, default 0): where the XOR starts, in bytes from the
  packet's data start.

## Handlers

* `count` (read): packets XORed.
* `bytes` (read): bytes XORed.
* `key` (read/write): KEY; a write changes it (a bad byte changes
  nothing).
* `drops`, `panics`, `errors`, `last_panic` (read): the router's counters
  for every package element.

## Examples

```text
require(package \"payload-xor\");
FromDump(in.pcap) -> Strip(14) -> PayloadXor(KEY 0x5a, OFFSET 20) -> ...
```
";

    fn new(conf: &mut Config) -> Result<Self, String> {
        let key: String = conf
            .keyword("KEY")?
            .ok_or("KEY: missing (a byte, such as 90 or 0x5a)")?;
        let key = parse_byte(&key).ok_or_else(|| format!("KEY: expected a byte, not '{key}'"))?;
        let offset = conf.keyword("OFFSET")?.unwrap_or(0);
        Ok(PayloadXor {
            key,
            offset,
            count: 0,
            bytes: 0,
        })
    }

    fn action(&mut self, p: &mut Packet) -> Action {
        if self.offset > p.len() {
            return Action::Emit(0);
        }
        self.count += 1;
        if self.offset < p.len() {
            // Only now is the packet made writable (copied if shared).
            let tail = &mut p.data_mut()[self.offset..];
            for b in tail.iter_mut() {
                *b ^= self.key;
            }
            self.bytes += tail.len() as u64;
        }
        Action::Emit(0)
    }

    fn write_handler(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "key" => {
                self.key = parse_byte(value.trim())
                    .ok_or_else(|| format!("KEY: expected a byte, not '{value}'"))?;
                Ok(())
            }
            _ => Err(format!("no handler '{name}'")),
        }
    }

    fn read_handler(&self, name: &str) -> Result<String, String> {
        match name {
            "count" => Ok(self.count.to_string()),
            "bytes" => Ok(self.bytes.to_string()),
            "key" => Ok(self.key.to_string()),
            _ => Err(format!("no handler '{name}'")),
        }
    }
}

/// A byte in decimal or `0x` hexadecimal.
fn parse_byte(s: &str) -> Option<u8> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u8::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The LengthSplit element.
pub struct LengthSplit {
    min: usize,
}

impl PackageElement for LengthSplit {
    const CLASS: &'static str = "LengthSplit";
    const PORT_COUNT: &'static str = "1/2";
    const PROCESSING: &'static str = "h/h";
    const MANUAL: &'static str = "\
# LengthSplit

`LengthSplit(LENGTH)`

**Category:** example package `payload-xor`. Sends short packets one way,
long ones the other.

**Ports:** 1 input, 2 outputs. **Processing:** push.

## Description

Packets shorter than LENGTH bytes leave on output 0, the others on
output 1.
";

    fn new(conf: &mut Config) -> Result<Self, String> {
        let min = conf.positional("LENGTH")?.ok_or("LENGTH: missing")?;
        Ok(LengthSplit { min })
    }

    fn action(&mut self, p: &mut Packet) -> Action {
        Action::Emit(u16::from(p.len() >= self.min))
    }
}

/// The PanicEvery element.
pub struct PanicEvery {
    every: u64,
    seen: u64,
}

impl PackageElement for PanicEvery {
    const CLASS: &'static str = "PanicEvery";
    const HANDLERS: &'static [&'static str] = &["seen"];
    const MANUAL: &'static str = "\
# PanicEvery

`PanicEvery(N)`

**Category:** example package `payload-xor`. Panics on every Nth packet,
to show the package boundary catching it.

**Ports:** 1 input, 1 output. **Processing:** agnostic.

## Description

Passes packets on, but panics on packets N, 2N, 3N... The SDK catches
each panic at the boundary: the router drops that packet and counts it in
`panics`, keeps the message in `last_panic`, and the element goes on.

## Handlers

* `seen` (read): packets seen, the ones it panicked on included.
";

    fn new(conf: &mut Config) -> Result<Self, String> {
        let every: u64 = conf.positional("N")?.ok_or("N: missing")?;
        if every == 0 {
            return Err("N: expected a positive number".into());
        }
        Ok(PanicEvery { every, seen: 0 })
    }

    fn action(&mut self, _p: &mut Packet) -> Action {
        self.seen += 1;
        if self.seen.is_multiple_of(self.every) {
            panic!("packet {} is a multiple of {}", self.seen, self.every);
        }
        Action::Emit(0)
    }

    fn read_handler(&self, _name: &str) -> Result<String, String> {
        Ok(self.seen.to_string())
    }
}

rclick_sdk::export_package!("payload-xor", [PayloadXor, LengthSplit, PanicEvery]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes() {
        assert_eq!(parse_byte("0x5a"), Some(0x5a));
        assert_eq!(parse_byte("255"), Some(255));
        assert_eq!(parse_byte("256"), None);
        let mut c = Config::new(&["KEY 7", "OFFSET 1"]);
        let x = PayloadXor::new(&mut c).unwrap();
        assert!(c.finish().is_ok());
        assert_eq!((x.key, x.offset), (7, 1));
        let mut c = Config::new(&["KEY 0x100"]);
        assert_eq!(
            PayloadXor::new(&mut c).err().unwrap(),
            "KEY: expected a byte, not '0x100'"
        );
    }
}
