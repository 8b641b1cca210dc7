//! Trace files: FromDump and ToDump read and write tcpdump (pcap) files;
//! FromTcpdump reads tcpdump's text output.

pub mod file_input;
pub mod from_dump;
pub mod from_tcpdump;
pub mod pcap;
pub mod to_dump;

use rclick_core::Registry;

pub use from_dump::FromDump;
pub use to_dump::ToDump;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "FromDump",
        || Box::new(FromDump::default()),
        include_str!("from_dump.rs"),
    );
    r.add(
        "FromTcpdump",
        || Box::<from_tcpdump::FromTcpdump>::default(),
        include_str!("from_tcpdump.rs"),
    );
    r.add(
        "ToDump",
        || Box::new(ToDump::default()),
        include_str!("to_dump.rs"),
    );
}

/// Fixtures for the tests: pcap files written byte by byte, independently
/// of ToDump, and a plain reader to check ToDump's output.
#[cfg(test)]
pub(crate) mod test_util {
    use rclick_core::Registry;

    /// This crate's classes and the standard ones.
    pub(crate) fn registry() -> Registry {
        let mut r = Registry::new();
        rclick_elements_standard::register(&mut r);
        crate::register(&mut r);
        r
    }

    pub(crate) fn temp_dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("rclick-dump-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Order {
        Little,
        Big,
    }

    /// One record: timestamp, captured bytes, wire length.
    #[derive(Clone, Debug)]
    pub(crate) struct Rec {
        pub sec: u32,
        pub nsec: u32,
        pub data: Vec<u8>,
        pub len: u32,
    }

    impl Rec {
        pub(crate) fn new(sec: u32, nsec: u32, data: &[u8], len: u32) -> Rec {
            Rec {
                sec,
                nsec,
                data: data.to_vec(),
                len,
            }
        }
    }

    /// An IPv4 header (no checksum) with an 8-byte UDP header, ports
    /// 1234 -> 80, `total` bytes long in all.
    pub(crate) fn ip_packet(src: [u8; 4], dst: [u8; 4], total: u16) -> Vec<u8> {
        let mut v = vec![0x45, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0];
        v[2..4].copy_from_slice(&total.to_be_bytes());
        v.extend_from_slice(&src);
        v.extend_from_slice(&dst);
        v.extend_from_slice(&1234u16.to_be_bytes());
        v.extend_from_slice(&80u16.to_be_bytes());
        v.extend_from_slice(&(total.saturating_sub(20)).to_be_bytes());
        v.extend_from_slice(&[0, 0]);
        v.resize(usize::from(total), 0);
        v
    }

    /// An Ethernet frame carrying `ip_packet` (42 bytes).
    pub(crate) fn eth_ip_frame() -> Vec<u8> {
        let mut v = vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00];
        v.extend_from_slice(&ip_packet([10, 0, 0, 1], [10, 0, 0, 2], 28));
        v
    }

    /// Two IP frames and an ARP frame, 42 captured bytes each.
    pub(crate) fn sample_records() -> Vec<Rec> {
        let mut arp = vec![0xFF; 6];
        arp.extend_from_slice(&[6, 7, 8, 9, 10, 11, 0x08, 0x06]);
        arp.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
        arp.resize(42, 0);
        vec![
            Rec::new(1_000_000_000, 1_234, &eth_ip_frame(), 60),
            Rec::new(1_000_000_001, 500_000_999, &eth_ip_frame(), 42),
            Rec::new(1_000_000_002, 500_000_000, &arp, 42),
        ]
    }

    pub(crate) fn pcap_bytes(order: Order, nano: bool, linktype: u32, recs: &[Rec]) -> Vec<u8> {
        let w32 = |v: &mut Vec<u8>, x: u32| match order {
            Order::Little => v.extend_from_slice(&x.to_le_bytes()),
            Order::Big => v.extend_from_slice(&x.to_be_bytes()),
        };
        let w16 = |v: &mut Vec<u8>, x: u16| match order {
            Order::Little => v.extend_from_slice(&x.to_le_bytes()),
            Order::Big => v.extend_from_slice(&x.to_be_bytes()),
        };
        let mut v = Vec::new();
        w32(&mut v, if nano { 0xA1B2_3C4D } else { 0xA1B2_C3D4 });
        w16(&mut v, 2);
        w16(&mut v, 4);
        w32(&mut v, 0);
        w32(&mut v, 0);
        w32(&mut v, 65535);
        w32(&mut v, linktype);
        for r in recs {
            w32(&mut v, r.sec);
            w32(&mut v, if nano { r.nsec } else { r.nsec / 1000 });
            w32(&mut v, r.data.len() as u32);
            w32(&mut v, r.len);
            v.extend_from_slice(&r.data);
        }
        v
    }

    pub(crate) fn write_bytes(name: &str, data: &[u8]) -> String {
        let p = temp_dir().join(name);
        std::fs::write(&p, data).unwrap();
        p.to_string_lossy().into_owned()
    }

    pub(crate) fn write_pcap(
        name: &str,
        order: Order,
        nano: bool,
        linktype: u32,
        recs: &[Rec],
    ) -> String {
        write_bytes(name, &pcap_bytes(order, nano, linktype, recs))
    }

    pub(crate) struct Parsed {
        pub nano: bool,
        pub snaplen: u32,
        pub linktype: u32,
        pub records: Vec<Rec>,
    }

    /// Reads a native-order pcap file (what ToDump writes).
    pub(crate) fn read_pcap(path: &str) -> Parsed {
        let b = std::fs::read(path).unwrap();
        let u32_at = |o: usize| u32::from_ne_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let magic = u32_at(0);
        assert!(
            magic == 0xA1B2_C3D4 || magic == 0xA1B2_3C4D,
            "magic {magic:x}"
        );
        let nano = magic == 0xA1B2_3C4D;
        let mut o = 24;
        let mut records = Vec::new();
        while o + 16 <= b.len() {
            let caplen = u32_at(o + 8) as usize;
            let frac = u32_at(o + 4);
            records.push(Rec {
                sec: u32_at(o),
                nsec: if nano { frac } else { frac * 1000 },
                len: u32_at(o + 12),
                data: b[o + 16..o + 16 + caplen].to_vec(),
            });
            o += 16 + caplen;
        }
        assert_eq!(o, b.len());
        Parsed {
            nano,
            snaplen: u32_at(16),
            linktype: u32_at(20),
            records,
        }
    }
}
