//! A malformed-packet corpus through every element class that takes
//! packets (issue 17): every truncation length and bad fields of
//! Ethernet, ARP, IPv4 (options of every type with bad lengths and
//! pointers), ICMP, TCP, UDP and fragments (overlapping, tiny, huge
//! offsets), behind MarkIPHeader and behind CheckIPHeader, and as
//! Ethernet frames behind MarkIPHeader(14). For each class a configuration
//! is made with a minimal valid configuration string ([`ARGS`]; none for
//! most), every packet goes in, and the test asserts that nothing panicked
//! and that packets in = packets out + the element's `drops` + what it
//! still holds (`length`), unless [`NOT_CONSERVING`] says why the class
//! cannot keep that count. Classes that cannot be tested here are in
//! [`SKIPPED`] with the reason. `MALFORMED_VERBOSE=1` prints the time each
//! class takes.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;

use rclick_core::args::{Args, Word};
use rclick_core::spec::{OutputRule, PortCount, Processing, ProcessingSpec};
use rclick_core::{BuildOptions, ConfigureCx, Ctx, Element, InitCx, Packet, PacketBatch, Router};

/// Configuration strings for classes that need one (the rest get none).
const ARGS: &[(&str, &str)] = &[
    (
        "ARPFaker",
        "10.0.0.1, 00:00:c0:00:0a:01, 10.0.0.2, 00:00:c0:00:0a:02",
    ),
    ("ARPQuerier", "10.0.0.1, 00:00:c0:00:0a:01"),
    ("ARPResponder", "10.0.0.1 00:00:c0:00:0a:01"),
    ("AggregateFilter", "allow all"),
    ("AggregateIP", "ip src"),
    ("Align", "4, 0"),
    ("BandwidthMeter", "1000"),
    ("BandwidthRatedSplitter", "1000"),
    ("BandwidthRatedUnqueue", "1000"),
    ("BandwidthShaper", "1000"),
    ("Block", "0"),
    ("Burster", "0.001"),
    ("Bypass", ""),
    ("CheckLength", "100"),
    ("CheckPaint", "1"),
    ("Classifier", "12/0800, -"),
    ("CompareBlock", "0, 0, 0"),
    ("DelayShaper", "0.001"),
    ("DelayUnqueue", "0.001"),
    ("DirectIPLookup", "10.0.0.0/8 0, 0.0.0.0/0 1"),
    ("DynamicUDPIPEncap", "10.0.0.1, 1234, 10.0.0.2, 5678"),
    ("EtherEncap", "0x0800, 00:00:c0:00:0a:01, 00:00:c0:00:0a:02"),
    ("EtherRewrite", "00:00:c0:00:0a:01, 00:00:c0:00:0a:02"),
    ("EtherSwitch", ""),
    (
        "EtherVLANEncap",
        "0x0800, 00:00:c0:00:0a:01, 00:00:c0:00:0a:02, 1",
    ),
    (
        "EtherVlanEncap",
        "0x0800, 00:00:c0:00:0a:01, 00:00:c0:00:0a:02, 1",
    ),
    ("FTPPortMapper", "rw, rw, 0"),
    ("FixIPSrc", "10.0.0.1"),
    ("FlowDRR", ""),
    ("GetEtherAddress", "0, 0"),
    ("GetIP6Address", "24"),
    ("GetIPAddress", "16"),
    ("HashSwitch", "0, 1"),
    ("HostEtherFilter", "00:00:c0:00:0a:01"),
    ("ICMP6Error", "2001:db8::1, 1, 0"),
    ("ICMPError", "10.0.0.1, unreachable, host"),
    ("ICMPIPEncap", "10.0.0.1, 10.0.0.2, echo"),
    ("ICMPPingEncap", "10.0.0.1, 10.0.0.2"),
    ("ICMPPingRewriter", "pattern 10.0.0.9 - 0-65535# 0 1, drop"),
    ("ICMPRewriter", "rw"),
    ("IP6Encap", "PROTO 17, SRC 2001:db8::1, DST 2001:db8::2"),
    ("IP6Fragmenter", "1280"),
    ("IPAddrPairRewriter", "pattern 10.0.0.9 - 0 1, drop"),
    ("IPAddrRewriter", "pattern 10.0.0.9 - 0 1, drop"),
    ("IPClassifier", "tcp, udp, -"),
    ("IPEncap", "4, 10.0.0.1, 10.0.0.2"),
    ("IPFilter", "allow tcp, drop all"),
    ("IPFragmenter", "100"),
    ("IPGWOptions", "10.0.0.1"),
    ("IPInputCombo", "1"),
    ("IPOutputCombo", "1, 10.0.0.1, 100"),
    ("IPRewriter", "pattern 10.0.0.9 1024-65535 - - 0 1, drop"),
    ("LinearIPLookup", "10.0.0.0/8 0, 0.0.0.0/0 1"),
    ("LinkUnqueue", "0.001, 1Mbps"),
    ("LookupIP6Route", "::/0 :: 0"),
    ("LookupIPRoute", "10.0.0.0/8 0, 0.0.0.0/0 1"),
    ("LookupIPRouteMP", "10.0.0.0/8 0, 0.0.0.0/0 1"),
    ("MarkIPCE", ""),
    ("Meter", "1000"),
    ("Paint", "1"),
    ("PaintSwitch", ""),
    ("PaintTee", "1"),
    ("RadixIPLookup", "10.0.0.0/8 0, 0.0.0.0/0 1"),
    ("RandomBitErrors", "0.01"),
    ("RandomSample", "0.5"),
    ("RangeIPLookup", "10.0.0.0/8 0, 0.0.0.0/0 1"),
    ("RatedSplitter", "1000"),
    ("RatedUnqueue", "1000"),
    ("RoundRobinIPMapper", "10.0.0.9 1024-65535 - - 0 1"),
    ("SetAnnoByte", "0, 1"),
    ("SetEtherAddress", "00:00:c0:00:0a:01, 0"),
    ("SetIP6Address", "2001:db8::1"),
    ("SetIP6DSCP", "1"),
    ("SetIPAddress", "10.0.0.1"),
    ("SetIPDSCP", "1"),
    ("SetIPECN", "1"),
    ("SetPacketType", "HOST"),
    ("SetRandIPAddress", "10.0.0.0/8"),
    ("SetVLANAnno", "1"),
    ("SetVlanAnno", "1"),
    ("Shaper", "1000"),
    ("SortedIPLookup", "10.0.0.0/8 0, 0.0.0.0/0 1"),
    ("StaticIPLookup", "10.0.0.0/8 0, 0.0.0.0/0 1"),
    ("StaticPullSwitch", "0"),
    ("StaticSwitch", "0"),
    ("StoreData", "0, x"),
    ("StoreEtherAddress", "00:00:c0:00:0a:01, src"),
    ("StoreIPAddress", "10.0.0.1, src"),
    ("StoreTimestamp", "TAIL true"),
    ("StrideSched", "10, 20"),
    ("StrideSwitch", "10, 20"),
    ("Strip", "14"),
    ("TCPFragmenter", "MTU 100"),
    ("TCPRewriter", "pattern 10.0.0.9 1024-65535 - - 0 1, drop"),
    ("TimeFilter", "START 0"),
    ("TimedUnqueue", "0.001, 100"),
    ("ToDump", "/dev/null"),
    ("ToIPFlowDumps", "/dev/null/f%n, TCP_OPT true, IP_ID true"),
    (
        "ToIPSummaryDump",
        "/dev/null, FIELDS ip_src ip_dst ip_opt tcp_opt payload",
    ),
    ("Truncate", "40"),
    ("UDPIPEncap", "10.0.0.1, 1234, 10.0.0.2, 5678"),
    ("UDPRewriter", "pattern 10.0.0.9 1024-65535 - - 0 1, drop"),
    ("Unstrip", "14"),
    ("VLANEncap", "VLAN_ID 1"),
    ("IP6NDSolicitor", "2001:db8::1, 00:00:c0:00:0a:01"),
    ("IPsecEncap", "50"),
    ("IPRateMonitor", "PACKETS, 1, 0"),
    ("StatelessTCPResponder", "hello"),
];

/// Classes that take packets but cannot be run here, and why.
const SKIPPED: &[(&str, &str)] = &[
    ("ToDevice", "needs a network device"),
    ("ToHost", "needs /dev/net/tun and root (a TAP device of its own)"),
    ("KernelTun", "needs /dev/net/tun and root"),
    ("KernelTap", "needs /dev/net/tun and root"),
    ("Socket", "needs a peer socket"),
    ("ToSocket", "needs a peer socket"),
    ("RawSocket", "needs raw sockets (root)"),
    ("ToRawSocket", "needs raw sockets (root)"),
    ("FlowGate", "needs a PluginManager and bound plugin instances"),
    ("HFSC", "its classes need a configured hierarchy (tested in rclick-plugins)"),
    ("FromSocket", "needs a peer socket"),
    ("FromRawSocket", "needs raw sockets (root)"),
    ("DriverManager", "a driver script, not a packet path (its ports are for PACKET scripts)"),
    ("Error", "fails initialization on purpose"),
    ("RED", "needs a Queue downstream (its own tests run it so)"),
    ("AdaptiveRED", "needs a Queue downstream, as RED (its own tests run it so)"),
    ("IPsecESPEncap", "needs an SATable with its security associations (tested in rclick-elements-ipsec and tests/e2e/vpn.sh)"),
    ("IPsecESPUnencap", "needs an SATable with its security associations (tested in rclick-elements-ipsec and tests/e2e/vpn.sh)"),
    ("EtherSpanTree", "needs a Suppressor and an EtherSwitch wired around it (tested in rclick-elements-ethernet)"),
];

/// Classes whose packets in need not equal packets out + drops + held,
/// and why. Each is still checked for panics.
const NOT_CONSERVING: &[(&str, &str)] = &[
    ("ARPQuerier", "holds IP packets until their next hop answers, and makes ARP queries"),
    ("AggregateLast", "keeps the last packet of each aggregate until its `clear` handler is written"),
    ("AggregateIPFlows", "holds fragments, and later packets of their host pair, until the first fragment or FRAGMENT_TIMEOUT (30 s; the run lasts 2 s)"),
    ("EtherSwitch", "floods to every port but the input: with one port, to none"),
    ("Hub", "sends to every port but the input: with one port, to none"),
    ("IPFilter", "drops what its rules say to drop (the configuration's choice, as in Click)"),
    ("IPFragmenter", "one packet in, several fragments out"),
    ("TCPFragmenter", "one packet in, several segments out"),
    ("IPReassembler", "holds fragments and merges them into one packet"),
    ("Idle", "never emits: a sink"),
    ("LinkUnqueue", "holds packets in flight on its simulated link"),
    ("Tee", "one packet in, a copy out of each output"),
];

/// The configuration string of `class`.
fn args_of(class: &str) -> &'static str {
    ARGS.iter()
        .find(|(c, _)| *c == class)
        .map_or("", |(_, a)| *a)
}

// ---------------------------------------------------------------------
// The corpus.

fn csum(b: &[u8]) -> u16 {
    rclick_wire::checksum::internet_checksum(b)
}

fn ip4(proto: u8, opts: &[u8], payload: &[u8], frag: u16, ident: u16) -> Vec<u8> {
    let hl = 20 + opts.len();
    let mut h = vec![0u8; hl];
    h[0] = 0x40 | (hl / 4) as u8;
    h[2..4].copy_from_slice(&((hl + payload.len()) as u16).to_be_bytes());
    h[4..6].copy_from_slice(&ident.to_be_bytes());
    h[6..8].copy_from_slice(&frag.to_be_bytes());
    h[8] = 64;
    h[9] = proto;
    h[12..16].copy_from_slice(&[10, 0, 0, 2]);
    h[16..20].copy_from_slice(&[192, 0, 2, 7]);
    h[20..].copy_from_slice(opts);
    let c = csum(&h);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h.extend_from_slice(payload);
    h
}

fn l4sum(proto: u8, seg: &mut [u8], at: usize) {
    let len = seg.len() as u16;
    let mut ph = vec![10, 0, 0, 2, 192, 0, 2, 7, 0, proto];
    ph.extend_from_slice(&len.to_be_bytes());
    ph.extend_from_slice(seg);
    let c = csum(&ph);
    seg[at..at + 2].copy_from_slice(&c.to_be_bytes());
}

fn tcp(flags: u8, opts: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut s = vec![0u8; 20];
    s[0..2].copy_from_slice(&40000u16.to_be_bytes());
    s[2..4].copy_from_slice(&80u16.to_be_bytes());
    s[4..8].copy_from_slice(&1u32.to_be_bytes());
    s[12] = (((20 + opts.len()) / 4) as u8) << 4;
    s[13] = flags;
    s[14..16].copy_from_slice(&8192u16.to_be_bytes());
    s.extend_from_slice(opts);
    s.extend_from_slice(payload);
    l4sum(6, &mut s, 16);
    s
}

fn udp(payload: &[u8]) -> Vec<u8> {
    let mut s = vec![0u8; 8];
    s[0..2].copy_from_slice(&1234u16.to_be_bytes());
    s[2..4].copy_from_slice(&53u16.to_be_bytes());
    s[4..6].copy_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    s.extend_from_slice(payload);
    l4sum(17, &mut s, 6);
    s
}

fn icmp(ty: u8, code: u8, rest: [u8; 4], data: &[u8]) -> Vec<u8> {
    let mut m = vec![ty, code, 0, 0];
    m.extend_from_slice(&rest);
    m.extend_from_slice(data);
    let c = csum(&m);
    m[2..4].copy_from_slice(&c.to_be_bytes());
    m
}

/// IP options of every type, well formed, then with bad lengths and
/// pointers (each padded to a multiple of 4 with EOL).
fn options() -> Vec<Vec<u8>> {
    let good: Vec<Vec<u8>> = vec![
        vec![1, 1, 1, 0],
        vec![7, 7, 4, 0, 0, 0, 0],
        vec![0x83, 7, 4, 192, 0, 2, 9],
        vec![0x89, 7, 4, 192, 0, 2, 9],
        vec![0x44, 12, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        vec![0x44, 12, 5, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        vec![0x44, 12, 5, 3, 10, 0, 0, 1, 0, 0, 0, 0],
        vec![0x44, 12, 5, 0x0f, 0, 0, 0, 0, 0, 0, 0, 0],
        vec![0x94, 4, 0, 0],
        vec![0x82, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        vec![0x88, 4, 0, 1],
        vec![0x1e, 4, 0, 0],
    ];
    let mut v = Vec::new();
    for o in &good {
        v.push(o.clone());
        if o.len() < 2 || o[0] == 1 {
            continue;
        }
        for len in [0u8, 1, 2, 3, 5, 39, 40, 255] {
            let mut m = o.clone();
            m[1] = len;
            v.push(m);
        }
        if o.len() > 2 {
            for ptr in [0u8, 1, 3, 4, 5, 6, 8, 9, 13, 40, 255] {
                let mut m = o.clone();
                m[2] = ptr;
                v.push(m);
            }
        }
        if o[0] == 0x44 {
            // Overflow counts and flags.
            for b in [0x10u8, 0xf0, 0xf1, 0x02, 0x04] {
                let mut m = o.clone();
                m[3] = b;
                v.push(m);
            }
        }
    }
    for o in &mut v {
        while o.len() % 4 != 0 {
            o.push(0);
        }
        o.truncate(40);
    }
    v
}

/// The well-formed IP packets the mutations start from.
fn ip_bases() -> Vec<Vec<u8>> {
    let inner = ip4(17, &[], &udp(b"quoted"), 0, 5);
    let big = udp(&[0x5a; 600]);
    vec![
        ip4(17, &[], &udp(b"hello"), 0, 1),
        ip4(
            6,
            &[],
            &tcp(0x02, &[2, 4, 5, 0xb4, 1, 3, 3, 7, 4, 2, 1, 1], b""),
            0,
            2,
        ),
        ip4(
            6,
            &[],
            &tcp(
                0x18,
                &[1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0],
                b"PORT 10,0,0,2,4,1\r\n",
            ),
            0,
            3,
        ),
        ip4(
            6,
            &[],
            &tcp(0x10, &[1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 9], b"x"),
            0,
            3,
        ),
        ip4(1, &[], &icmp(8, 0, [0, 7, 0, 1], b"ping"), 0, 4),
        ip4(1, &[], &icmp(0, 0, [0, 7, 0, 1], b"pong"), 0, 4),
        ip4(1, &[], &icmp(3, 4, [0, 0, 5, 0xdc], &inner[..28]), 0, 6),
        ip4(1, &[], &icmp(11, 0, [0; 4], &inner), 0, 6),
        ip4(1, &[], &icmp(12, 0, [20, 0, 0, 0], &inner[..28]), 0, 6),
        ip4(1, &[], &icmp(5, 1, [10, 0, 0, 1], &inner[..28]), 0, 6),
        ip4(17, &[7, 7, 4, 0, 0, 0, 0, 0], &udp(b"rr"), 0, 7),
        ip4(
            17,
            &[0x44, 12, 5, 1, 0, 0, 0, 0, 0, 0, 0, 0],
            &udp(b"ts"),
            0,
            7,
        ),
        ip4(17, &[], &big, 0x4000, 8),
        ip4(17, &[], &big[..64], 0x2000, 9),
        ip4(17, &[], &big[64..200], 0x2008, 9),
        ip4(17, &[], &big[56..80], 0x0007, 9),
        ip4(17, &[], &big[200..], 0x0019, 9),
        ip4(6, &[], &[0u8; 8], 0x2000, 10),
        ip4(17, &[], &[0u8; 8], 0x1fff, 11),
        ip4(17, &[], &[0u8; 8], 0x3fff, 11),
        ip4(47, &[], &[0u8; 12], 0, 12),
    ]
}

/// Every bad value of every IPv4, TCP, UDP and ICMP field of `p`.
fn field_mutations(p: &[u8], out: &mut Vec<Vec<u8>>) {
    let hl = usize::from(p[0] & 15) * 4;
    let set = |at: usize, vals: &[u8], out: &mut Vec<Vec<u8>>| {
        if at >= p.len() {
            return;
        }
        for &v in vals {
            let mut m = p.to_vec();
            m[at] = v;
            out.push(m);
        }
    };
    let set16 = |at: usize, vals: &[u16], out: &mut Vec<Vec<u8>>| {
        if at + 2 > p.len() {
            return;
        }
        for &v in vals {
            let mut m = p.to_vec();
            m[at..at + 2].copy_from_slice(&v.to_be_bytes());
            out.push(m);
        }
    };
    // IPv4: version/header length, TOS, total length, flags and offset,
    // TTL, protocol, checksum, addresses.
    set(
        0,
        &[0x00, 0x05, 0x44, 0x46, 0x4f, 0x55, 0x65, 0xf5, 0x45],
        out,
    );
    set(1, &[0xff, 0x03], out);
    let len = p.len() as u16;
    set16(
        2,
        &[
            0,
            1,
            19,
            20,
            (hl as u16).saturating_sub(1),
            len - 1,
            len + 1,
            0xffff,
        ],
        out,
    );
    set16(6, &[0x2000, 0x1fff, 0x4001, 0x8000, 0xffff], out);
    set(8, &[0, 1, 255], out);
    set(9, &[0, 1, 2, 4, 6, 17, 41, 50, 58, 132, 255], out);
    set16(10, &[0, 0xffff, 0x1234], out);
    set(12, &[0, 127, 224, 255], out);
    set(16, &[0, 127, 224, 255], out);
    if p.len() <= hl {
        return;
    }
    let t = hl;
    match p[9] {
        6 => {
            set(t + 12, &[0x00, 0x10, 0x40, 0x50, 0x60, 0xf0, 0xa0], out);
            set(t + 13, &[0x00, 0xff, 0x03, 0x06, 0x29], out);
            set16(t + 16, &[0, 0xffff], out);
            set16(t + 18, &[0xffff], out);
            if p.len() > t + 21 {
                set(t + 20, &[0, 1, 2, 3, 4, 5, 8, 30, 255], out);
                set(t + 21, &[0, 1, 2, 3, 9, 10, 40, 255], out);
            }
        }
        17 => {
            set16(t + 4, &[0, 7, 8, 9, 0xffff], out);
            set16(t + 6, &[0, 0xffff, 1], out);
        }
        1 => {
            set(
                t,
                &[0, 3, 4, 5, 8, 11, 12, 13, 14, 15, 16, 17, 18, 40, 255],
                out,
            );
            set(t + 1, &[0, 1, 4, 255], out);
            set16(t + 2, &[0, 0xffff], out);
            if p.len() > t + 8 {
                // The quoted header of an error: version/length, length,
                // protocol.
                set(t + 8, &[0x00, 0x41, 0x4f, 0x46], out);
                set16(t + 10, &[0, 0xffff], out);
                set(t + 17, &[0, 1, 6, 255], out);
            }
        }
        _ => {}
    }
}

fn corpus_ip() -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    for b in ip_bases() {
        for cut in 0..b.len() {
            v.push(b[..cut].to_vec());
        }
        field_mutations(&b, &mut v);
        v.push(b);
    }
    for o in options() {
        let p = ip4(17, &o, &udp(b"opt"), 0, 20);
        v.push(p[..20 + o.len() / 2].to_vec());
        v.push(p.clone());
        // The same option behind a TCP header, and with a header length
        // that cuts it.
        v.push(ip4(6, &o, &tcp(0x02, &[], b""), 0, 21));
        let mut m = p;
        m[0] = 0x46;
        v.push(m);
    }
    v
}

fn eth(ty: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0, 0xc0, 0, 0x0a, 1, 0, 0, 0xc0, 0, 0x0a, 2];
    f.extend_from_slice(&ty.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

fn arp(op: u16) -> Vec<u8> {
    let mut a = vec![0, 1, 8, 0, 6, 4];
    a.extend_from_slice(&op.to_be_bytes());
    a.extend_from_slice(&[0, 0, 0xc0, 0, 0x0a, 2, 10, 0, 0, 2]);
    a.extend_from_slice(&[0, 0, 0, 0, 0, 0, 10, 0, 0, 1]);
    a
}

fn corpus_eth() -> Vec<Vec<u8>> {
    let mut bases = vec![eth(0x0806, &arp(1)), eth(0x0806, &arp(2))];
    for p in ip_bases().iter().take(8) {
        bases.push(eth(0x0800, p));
    }
    let mut vlan = eth(0x8100, &[0, 5, 8, 0]);
    vlan.extend_from_slice(&ip_bases()[0]);
    bases.push(vlan);
    let mut v = Vec::new();
    for b in &bases {
        for cut in 0..b.len().min(80) {
            v.push(b[..cut].to_vec());
        }
        // Ethernet type; ARP's hardware and protocol types, lengths and
        // operation.
        for ty in [0u16, 0x0800, 0x0806, 0x8100, 0x86dd, 0x8808, 0xffff] {
            let mut m = b.clone();
            m[12..14].copy_from_slice(&ty.to_be_bytes());
            v.push(m);
        }
        if b[12..14] == [8, 6] {
            for (at, vals) in [
                (14, &[0u8, 0xff][..]),
                (16, &[0, 0x86, 0xff]),
                (18, &[0, 4, 5, 7, 255]),
                (19, &[0, 3, 6, 255]),
                (21, &[0, 3, 4, 255]),
            ] {
                for &x in vals {
                    let mut m = b.clone();
                    m[at] = x;
                    v.push(m);
                }
            }
        }
        v.push(b.clone());
    }
    // Broadcast and multicast destinations.
    let mut m = bases[2].clone();
    m[..6].copy_from_slice(&[0xff; 6]);
    v.push(m);
    let mut m = bases[2].clone();
    m[0] = 1;
    v.push(m);
    v
}

// ---------------------------------------------------------------------
// The source and the runs.

thread_local! {
    static CORPUS: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// `MalSource`: pushes every packet of the thread's corpus, one batch
/// each, when its task first runs.
#[derive(Default)]
struct MalSource {
    packets: Vec<Vec<u8>>,
}

impl Element for MalSource {
    fn class_name(&self) -> &'static str {
        "MalSource"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf)
            .read("X", &mut Word::default())
            .complete()
            .map_err(|e| e.to_string())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.packets = CORPUS.with(|c| c.borrow().clone());
        cx.new_task(true);
        Ok(())
    }
    fn run_task(&mut self, _t: rclick_core::TaskId, cx: &mut Ctx) -> bool {
        for bytes in std::mem::take(&mut self.packets) {
            let mut p = Packet::from_slice(&bytes);
            p.set_timestamp_anno(cx.now());
            let mut b = PacketBatch::new();
            b.push(p);
            cx.checked_push(0, b);
        }
        true
    }
}

fn registry() -> rclick_core::Registry {
    let mut r = rclick_cli::registry();
    r.add("MalSource", || Box::<MalSource>::default(), "");
    r
}

fn build(reg: &rclick_core::Registry, text: &str) -> Result<Router, String> {
    rclick_core::testing::build_with(
        text,
        reg,
        BuildOptions {
            simtime: true,
            threads: 1,
            capture_log: true,
            ..Default::default()
        },
    )
}

/// The configuration for `class` with `nin` inputs (input 0 fed, the rest
/// from Idle) and `nout` outputs, each counted; `front` marks or checks
/// the IP header. Pull inputs get a Queue in front, pull outputs an
/// Unqueue behind.
fn config(
    class: &str,
    pin: Processing,
    pout: Processing,
    nin: usize,
    nout: usize,
    front: &str,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "src :: MalSource -> {front} -> cin :: Counter;");
    if front.starts_with("ck ::") {
        // Bad headers leave by CheckIPHeader's output 1.
        let _ = writeln!(s, "ck[1] -> Discard;");
    }
    let _ = writeln!(
        s,
        "rw :: IPRewriter(pattern 10.0.0.9 1024-65535 - - 0 0); rw -> Discard; Idle -> rw;"
    );
    let _ = writeln!(s, "a :: AddressInfo(x 10.0.0.1);");
    let _ = writeln!(s, "x :: {class}({});", args_of(class));
    if pin == Processing::Pull {
        let _ = writeln!(s, "cin -> fq :: Queue(1000000) -> x;");
    } else {
        let _ = writeln!(s, "cin -> x;");
    }
    for i in 1..nin {
        if pin == Processing::Pull {
            let _ = writeln!(s, "Idle -> Queue -> [{i}]x;");
        } else {
            let _ = writeln!(s, "Idle -> [{i}]x;");
        }
    }
    for o in 0..nout {
        if pout == Processing::Pull {
            let _ = writeln!(
                s,
                "x[{o}] -> TimedUnqueue(0.001, 100000) -> o{o} :: Counter -> Discard;"
            );
        } else {
            let _ = writeln!(s, "x[{o}] -> o{o} :: Counter -> Discard;");
        }
    }
    let _ = writeln!(s, "DriverManager(wait 2s, stop);");
    s
}

fn num(r: &Router, h: &str) -> u64 {
    r.read_handler(h, "")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0)
}

/// Runs `class` on the thread's corpus; `Err` describes a broken count.
/// `None` when no port arrangement builds (with the last error).
fn run_class(
    reg: &rclick_core::Registry,
    class: &str,
    front: &str,
) -> Result<Result<(), String>, String> {
    let el = reg.create(class).expect("class exists");
    let pc = PortCount::parse(el.port_count()).expect("port count");
    let ps = ProcessingSpec::parse(el.processing()).expect("processing");
    let pin = ps.input(0);
    let pout = ps.output(0);
    let ins: Vec<usize> =
        (pc.inputs.lo.max(1)..=pc.inputs.hi.min(pc.inputs.lo.max(1) + 2)).collect();
    let mut last = String::new();
    for &nin in &ins {
        let outs: Vec<usize> = match pc.outputs {
            // Most outputs first: with fewer, some classes drop what
            // their missing outputs would get.
            OutputRule::Range(r) => (r.lo..=r.hi.min(r.lo + 3)).rev().collect(),
            OutputRule::SameAsInputs(k) => vec![nin + k],
        };
        for nout in outs {
            let text = config(class, pin, pout, nin, nout, front);
            let r = match build(reg, &text) {
                Ok(r) => r,
                Err(e) => {
                    last = e;
                    continue;
                }
            };
            r.run();
            let panics = r.stats().panics.load(Ordering::Relaxed);
            if panics != 0 {
                return Ok(Err(format!(
                    "{panics} panics: {}",
                    r.read_handler("router_drops", "").unwrap_or_default()
                )));
            }
            let fed = num(&r, "cin.count") - num(&r, "fq.length");
            let out: u64 = (0..nout).map(|o| num(&r, &format!("o{o}.count"))).sum();
            let drops = num(&r, "x.drops");
            // Packets a queue-like element still holds.
            let held = if r.handler_flags("x.capacity").is_some() {
                num(&r, "x.length")
            } else {
                0
            };
            let drops_text = r.read_handler("router_drops", "").unwrap_or_default();
            // Packets the router dropped for the element: pushed into a
            // busy element, or sent to an output it does not have.
            let lost: u64 = drops_text
                .lines()
                .filter_map(|l| {
                    l.strip_prefix("lost_packets ")
                        .or_else(|| l.strip_prefix("no_output_packets "))
                })
                .filter_map(|v| v.trim().parse::<u64>().ok())
                .sum();
            // A sink (no outputs) consumes what it gets.
            // Elements with an error output count what they send there
            // in `drops` too.
            let balanced = fed == out + drops + held + lost || fed == out + held + lost;
            if nout > 0 && !balanced {
                return Ok(Err(format!(
                    "{nin} in/{nout} out: {fed} in, {out} out, {drops} drops, {held} held, {lost} lost"
                )));
            }
            return Ok(Ok(()));
        }
    }
    Err(last)
}

#[test]
fn malformed_packets_through_every_class() {
    let reg = registry();
    let ip = corpus_ip();
    let eth = corpus_eth();
    assert!(ip.len() > 1500, "{} IP packets", ip.len());
    assert!(eth.len() > 300, "{} Ethernet frames", eth.len());
    let mut failures = Vec::new();
    let mut unbuilt = Vec::new();
    let mut tested = 0;
    for class in reg.names() {
        if class == "MalSource" || SKIPPED.iter().any(|(c, _)| *c == class) {
            continue;
        }
        let el = reg.create(class).expect("class exists");
        let pc = PortCount::parse(el.port_count()).expect("port count");
        if pc.inputs.hi == 0 {
            continue; // takes no packets
        }
        tested += 1;
        let t0 = std::time::Instant::now();
        for (front, corpus) in [
            ("MarkIPHeader", &ip),
            ("ck :: CheckIPHeader(VERBOSE false)", &ip),
            ("MarkIPHeader(14)", &eth),
        ] {
            CORPUS.with(|c| *c.borrow_mut() = corpus.clone());
            match run_class(&reg, class, front) {
                Err(e) => {
                    unbuilt.push(format!("{class}: {e}"));
                    break;
                }
                Ok(Err(e)) => {
                    if !NOT_CONSERVING.iter().any(|(c, _)| *c == class) || e.contains("panics") {
                        failures.push(format!("{class} behind {front}: {e}"));
                    }
                }
                Ok(Ok(())) => {}
            }
        }
        if std::env::var_os("MALFORMED_VERBOSE").is_some() {
            eprintln!("{class}: {:?}", t0.elapsed());
        }
    }
    eprintln!("{tested} classes tested");
    assert!(
        unbuilt.is_empty(),
        "classes with no configuration here:\n{}",
        unbuilt.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
