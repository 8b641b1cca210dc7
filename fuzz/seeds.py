#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz targets in fuzz/corpus/TARGET/.

Seeds come from the tree (conf/*.click, tests/clicktest/*.clicktest, the
classifier patterns and frames written in them) and from packets built
here: Ethernet, ARP, VLAN, IPv4 with each option type, ICMP echo and
errors, TCP with options, UDP, fragments, IPv6 with ICMPv6. Nothing is
downloaded; the corpora are small (a few hundred files) and not committed
(fuzz/.gitignore). Run from anywhere: python3 fuzz/seeds.py
"""

import hashlib
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ip4(src, dst, proto, payload, opts=b"", ttl=64, frag=0, ident=1, tos=0):
    hl = 20 + len(opts)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | hl // 4, tos, hl + len(payload), ident,
                    frag, ttl, proto, 0, bytes(src), bytes(dst)) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def l4sum(src, dst, proto, seg):
    ph = bytes(src) + bytes(dst) + struct.pack("!BBH", 0, proto, len(seg))
    return csum(ph + seg)


def tcp(src, dst, sport, dport, flags=0x02, opts=b"", payload=b"", seq=1, ack=0):
    off = (20 + len(opts)) // 4
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, flags, 8192, 0, 0) + opts + payload
    c = l4sum(src, dst, 6, seg)
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def udp(src, dst, sport, dport, payload=b""):
    seg = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    c = l4sum(src, dst, 17, seg)
    return seg[:6] + struct.pack("!H", c) + seg[8:]


def icmp(t, code, rest=b"\0\0\0\0", data=b""):
    m = struct.pack("!BBH", t, code, 0) + rest + data
    return m[:2] + struct.pack("!H", csum(m)) + m[4:]


def eth(dst, src, etype, payload):
    return bytes(dst) + bytes(src) + struct.pack("!H", etype) + payload


def arp(op, sha, spa, tha, tpa):
    return struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + bytes(sha) + bytes(spa) + bytes(tha) + bytes(tpa)


MAC_R0 = [0, 0, 0xC0, 0, 1, 1]
MAC_H0 = [0, 0, 0xC0, 0, 1, 2]
MAC_R1 = [0, 0, 0xC0, 0, 2, 1]
MAC_H1 = [0, 0, 0xC0, 0, 2, 2]
BCAST = [0xFF] * 6
H0, R0, H1, R1 = [1, 0, 0, 2], [1, 0, 0, 1], [2, 0, 0, 2], [2, 0, 0, 1]
IN, EXT = [10, 0, 0, 2], [198, 51, 100, 7]

OPTIONS = [
    b"\x01\x01\x01\x00",                                  # NOP NOP NOP EOL
    b"\x07\x07\x04\x00\x00\x00\x00\x00",                  # record route, room for one
    b"\x83\x07\x04\x02\x00\x00\x02\x00",                  # loose source route
    b"\x89\x07\x04\x02\x00\x00\x02\x00",                  # strict source route
    b"\x44\x0c\x05\x00" + b"\0" * 8,                      # timestamp, flag 0
    b"\x44\x0c\x05\x01" + b"\0" * 8,                      # timestamp, flag 1
    b"\x44\x0c\x05\x03\x02\x00\x00\x02\x00\x00\x00\x00",  # timestamp, flag 3
    b"\x44\x0c\x05\x0f" + b"\0" * 8,                      # timestamp, undefined flag
    b"\x94\x04\x00\x00",                                  # router alert
    b"\x07\x02\x04\x00",                                  # record route, bad length
    b"\x44\x28\x05\x00",                                  # timestamp, length past the header
    b"\x07\x07\x09\x00\x00\x00\x00\x00",                  # record route, pointer past the end
]

TCP_OPTIONS = [
    b"\x02\x04\x05\xb4",                                   # MSS
    b"\x02\x04\x05\xb4\x01\x03\x03\x07\x04\x02\x01\x01",   # MSS, window scale, SACK permitted
    b"\x01\x01\x08\x0a\x00\x00\x00\x01\x00\x00\x00\x00",   # timestamps
    b"\x01\x01\x05\x0a\x00\x00\x00\x01\x00\x00\x00\x05",   # SACK block
    b"\x02\x00\x00\x00",                                   # MSS with length 0
]


def ip_packets(src, dst):
    """IP packets of every kind from src to dst."""
    v = []
    v.append(ip4(src, dst, 17, udp(src, dst, 1234, 5678, b"Routed by rclick")))
    v.append(ip4(src, dst, 17, udp(src, dst, 53, 53, b"\0" * 12)))
    for fl, o in [(0x02, TCP_OPTIONS[1]), (0x12, TCP_OPTIONS[2]), (0x18, TCP_OPTIONS[3]), (0x11, b""), (0x04, TCP_OPTIONS[4])]:
        v.append(ip4(src, dst, 6, tcp(src, dst, 40000, 80, fl, o, b"GET / HTTP/1.0\r\n\r\n" if fl == 0x18 else b"")))
    v.append(ip4(src, dst, 6, tcp(src, dst, 40001, 21, 0x18, b"", b"PORT 10,0,0,2,4,1\r\n")))
    v.append(ip4(src, dst, 1, icmp(8, 0, b"\x12\x34\x00\x01", b"ping data")))
    v.append(ip4(src, dst, 1, icmp(0, 0, b"\x12\x34\x00\x01", b"ping data")))
    inner = ip4(dst, src, 17, udp(dst, src, 5678, 1234, b"quoted"))
    for t, c in [(3, 1), (3, 4), (11, 0), (12, 0), (5, 1), (4, 0)]:
        v.append(ip4(src, dst, 1, icmp(t, c, b"\0\0\x05\xdc", inner[:28])))
    for o in OPTIONS:
        v.append(ip4(src, dst, 17, udp(src, dst, 1, 2, b"opt"), opts=o))
    big = udp(src, dst, 7, 9, bytes(range(256)) * 7)
    v.append(ip4(src, dst, 17, big))
    v.append(ip4(src, dst, 17, big, frag=0x4000))                 # DF, too big for 1500
    v.append(ip4(src, dst, 17, big[:64], frag=0x2000, ident=7))   # first fragment
    v.append(ip4(src, dst, 17, big[64:128], frag=0x2008, ident=7))
    v.append(ip4(src, dst, 17, big[60:128], frag=0x0007, ident=7))  # overlapping last fragment
    v.append(ip4(src, dst, 17, b"\0" * 4, frag=0x1FFF, ident=8))  # huge offset
    v.append(ip4(src, dst, 6, b"\0" * 8, frag=0x2000, ident=9))   # tiny TCP fragment
    v.append(ip4(src, dst, 17, udp(src, dst, 1, 2), ttl=1))
    v.append(ip4(src, dst, 17, udp(src, dst, 1, 2), ttl=0))
    v.append(ip4(src, dst, 47, b"\0" * 8))
    v.append(ip4(src, [255, 255, 255, 255], 17, udp(src, dst, 67, 68)))
    return v


def ip6_packets():
    s = bytes([0x20, 0x01, 0x0D, 0xB8] + [0] * 11 + [1])
    d = bytes([0x20, 0x01, 0x0D, 0xB8] + [0] * 11 + [2])
    m = struct.pack("!BBHHH", 128, 0, 0, 1, 1) + b"ping6"
    ph = s + d + struct.pack("!IxxxB", len(m), 58)
    m = m[:2] + struct.pack("!H", csum(ph + m)) + m[4:]
    h = struct.pack("!IHBB", 0x60000000, len(m), 58, 64) + s + d
    return [h + m]


def frames_of(pairs, delay=1):
    """Router-target input: (port, frame) pairs in fuzz/src/lib.rs's format."""
    out = b""
    for port, f in pairs:
        out += struct.pack("!BBH", port, delay, len(f)) + f
    return out


def pcap(records, linktype=1, nano=False):
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = struct.pack("<IHHiIII", magic, 2, 4, 0, 0, 65535, linktype)
    for i, r in enumerate(records):
        out += struct.pack("<IIII", 1000 + i, 500, len(r), len(r)) + r
    return out


def hexdata(s):
    return bytes(int(x, 16) for x in s.split())


def main():
    confs = []
    for d in ("conf", "tests/clicktest"):
        for n in sorted(os.listdir(os.path.join(ROOT, d))):
            with open(os.path.join(ROOT, d, n), encoding="utf-8", errors="replace") as f:
                confs.append(f.read())
    # The language targets: every configuration in the tree.
    for c in confs:
        put("lang_lex", c)
        put("lang_parse", c)
        put("lang_expand", "a 1\nb $a$a\n\n" + c)
    for s in ["define($a 1) x :: Counter($a) -> y :: Discard",
              "elementclass C { $x | input -> Counter($x) -> output } Idle -> C(5) -> Discard",
              "elementclass A { input -> output } elementclass A { [0] -> output; input[1] -> Discard } Idle -> A -> Discard",
              "a :: Tee; a[0] -> [0]b :: Null; a[1] -> b; b -> c :: { input -> x :: Null -> output }; c -> Discard",
              "require(package \"x\"); x => (a; b) -> y;"]:
        put("lang_parse", s)
        put("lang_lex", s)
    for s in ["x $x\ny ${x}-${z-def}\n\n$x ${y} \"$x\" '$x' ${x[0]} $(x)",
              "a $a$a$a$a\n\n$a"]:
        put("lang_expand", s)

    # Packets.
    fwd = ip_packets(H0, H1)
    nat_in = ip_packets(IN, EXT)
    nat_out = ip_packets(EXT, [192, 0, 2, 1])
    eth0 = [eth(MAC_R0, MAC_H0, 0x0800, p) for p in fwd]
    arps = [eth(BCAST, MAC_H0, 0x0806, arp(1, MAC_H0, H0, [0] * 6, R0)),
            eth(MAC_R0, MAC_H0, 0x0806, arp(2, MAC_H0, H0, MAC_R0, R0)),
            eth(BCAST, MAC_H1, 0x0806, arp(1, MAC_H1, H1, [0] * 6, [2, 0, 0, 9]))]
    vlan = bytes(MAC_R0 + MAC_H0) + b"\x81\x00\x00\x05\x08\x00" + fwd[0]
    v6 = [eth(MAC_R0, MAC_H0, 0x86DD, p) for p in ip6_packets()]
    for f in eth0 + arps + [vlan] + v6:
        put("wire", f)
    for c in confs:
        for m in re.finditer(r"\\<([0-9a-fA-F \n]+)>", c):
            try:
                put("wire", hexdata(m.group(1)))
            except ValueError:
                pass

    # Classifier patterns: IPClassifier/IPFilter/Classifier arguments in
    # the tree and a few of each kind, each with a packet.
    pats = ["tcp dst port 21, icmp type echo, udp, -",
            "src host 1.0.0.2 and dst net 2.0.0.0/8, ip frag, tcp opt mss, -",
            "allow tcp syn && !ack, deny src 10.0.0.0/8, 1 ip[9] = 17, drop all",
            "ip vers 4 and ip hl > 5, ip[0:2] & 0x0fff != 0, transp[0:4] = 0x04d2162e, -",
            "12/0806 20/0001, 12/0806 20/0002, 12/0800, -",
            "12/0800 23/11 36/162e, 0/ffffffffffff, !12/0800, -",
            "ether src 00:00:c0:00:01:02, ip tos 0, icmp code 1, dscp 46, ip ect, -"]
    for c in confs:
        for m in re.finditer(r"(?:IPClassifier|IPFilter|Classifier)\(([^()]*)\)", c):
            pats.append(re.sub(r"//[^\n]*", "", m.group(1)))
    for i, p in enumerate(pats):
        pk = fwd[i % len(fwd)]
        put("classifier", p.encode() + b"\0" + pk)
        put("classifier", p.encode() + b"\0" + eth0[i % len(eth0)])

    # pcap files.
    put("pcap", pcap(eth0[:8] + arps))
    put("pcap", pcap(fwd[:8], linktype=101))
    put("pcap", pcap(fwd[8:16], linktype=12, nano=True))
    put("pcap", pcap([vlan] + v6))
    put("pcap", pcap([b"\0" * 10, eth0[0][:20]]))

    # IP summary dumps, text and binary.
    put("ipsumdump", "!IPSummaryDump 1.3\n!data ts ip_src ip_dst ip_len ip_proto sport dport\n"
        "1.000001 1.0.0.2 2.0.0.2 50 U 1234 5678\n1.5 1.0.0.2 2.0.0.2 40 T 40000 80\n")
    put("ipsumdump", "!IPSummaryDump 1.3\n!data ip_src ip_dst ip_proto tcp_flags tcp_seq tcp_opt ip_opt payload\n"
        "1.0.0.2 2.0.0.2 T SA 100 mss1460;wscale7;sackok rr{1.0.0.1} \"GET /\"\n"
        "1.0.0.2 2.0.0.2 I - - - - -\n")
    put("ipsumdump", "!IPSummaryDump 1.3\n!data ip_src ip_dst ip_frag ip_fragoff ip_id icmp_type icmp_code\n"
        "1.0.0.2 2.0.0.2 F 8 7 - -\n1.0.0.2 2.0.0.2 . 0 9 8 0\n")
    put("ipsumdump", b"!IPSummaryDump 1.3\n!data ip_src ip_dst sport dport\n!binary\n"
        + struct.pack("!I4s4sHH", 16, bytes(H0), bytes(H1), 1, 2))

    # ControlSocket sessions.
    for s in ["READ c.count\r\nWRITE c.reset\r\nREAD list\r\nREAD config\r\nQUIT\r\n",
              "CHECKREAD q.length\r\nWRITEDATA q.capacity 2\r\n20READ q.capacity\r\n",
              "READ ic.program\r\nWRITE ic.pattern0 udp port 53\r\nREAD ic.program\r\n",
              "READUNTIL s.run\r\nWRITEUNTIL rt.add x\r\n1.2.3.0/24 1\r\nx\r\nREAD rt.table\r\n",
              "READ arp.table\r\nWRITE arp.insert 1.0.0.2 00:00:c0:00:01:02\r\nREAD 1.name\r\nREAD 0.handlers\r\n",
              "LLRPC c#0x12345\r\nREADDATA c.count 0\r\nCHECKWRITE c.count\r\nREAD s.run\r\nWRITE stop\r\n"]:
        put("control", b"\x00" + s.encode())
        put("control", b"\x05" + s.encode())

    # Whole routers.
    arp_frames = [(0, a) for a in arps[:2]]
    put("router_ip", frames_of(arp_frames + [(0, f) for f in eth0]))
    put("router_ip", frames_of([(1, eth(MAC_R1, MAC_H1, 0x0800, p)) for p in ip_packets(H1, H0)]))
    put("router_ip", frames_of([(0, f) for f in eth0[:6]] + [(0, vlan)] + [(0, x) for x in v6], delay=0))
    in_frames = [(0, eth([0, 0, 0xC0, 0, 10, 1], [0, 0, 0xC0, 0, 10, 2], 0x0800, p)) for p in nat_in]
    out_frames = [(1, eth([0, 0, 0xC0, 0, 0xC0, 1], [0, 0, 0xC0, 0, 0xC0, 2], 0x0800, p)) for p in nat_out]
    put("router_nat", frames_of(in_frames))
    put("router_nat", frames_of(in_frames[:8] + out_frames[:8]))
    put("router_nat", frames_of([(0, eth(BCAST, [0, 0, 0xC0, 0, 10, 2], 0x0806, arp(1, [0, 0, 0xC0, 0, 10, 2], IN, [0] * 6, [10, 0, 0, 1])))] + out_frames))
    put("router_analysis", frames_of([(i % 2, p) for i, p in enumerate(fwd)]))
    put("router_analysis", frames_of([(0, p) for p in nat_in], delay=200))
    total = sum(len(os.listdir(os.path.join(OUT, d))) for d in os.listdir(OUT))
    print(f"seeds: {total} files in {os.path.relpath(OUT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
