#!/usr/bin/env python3
"""Sends bad ESP packets to a VPN gateway, for tests/e2e/vpn.sh.

Usage: esp_inject.py EARLY.pcap LATE.pcap DST

The pcap files hold ESP packets that the far end of the tunnel really
sent (captured on its outside interface, Ethernet frames): EARLY's long
before LATE's. From them, through a raw IP socket (protocol 50) to DST:

  replayed     LATE's last packet, twice, as it is
  too_old      EARLY's first packet (far left of the 64-packet window)
  bad_icv      LATE's last packet with a new, higher sequence number (the
               ICV covers it) and a flipped ICV bit
  truncated    the first 20 bytes of LATE's last packet
  unknown_spi  LATE's last packet with SPI 0x9999

Prints what it sent, one line each.
"""

import socket
import struct
import sys


def esp_payloads(path):
    """The ESP payloads (after the IP header) of the IPv4 frames in a
    classic pcap file with Ethernet link type."""
    out = []
    with open(path, "rb") as f:
        head = f.read(24)
        magic = struct.unpack("<I", head[:4])[0]
        order = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            _, _, incl, _ = struct.unpack(order + "IIII", rec)
            frame = f.read(incl)
            if len(frame) < 34 or frame[12:14] != b"\x08\x00":
                continue
            ip = frame[14:]
            if ip[9] != 50:
                continue
            hl = (ip[0] & 15) * 4
            total = struct.unpack(">H", ip[2:4])[0]
            out.append(bytes(ip[hl:total]))
    return out


def main():
    early, late, dst = sys.argv[1], sys.argv[2], sys.argv[3]
    e = esp_payloads(early)
    lt = esp_payloads(late)
    if not e or not lt:
        sys.exit("no ESP packets captured")
    last = lt[-1]
    seq = struct.unpack(">I", last[4:8])[0]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 50)

    def send(what, data):
        s.sendto(data, (dst, 0))
        print(f"sent {what}: {len(data)} bytes, SPI {data[:4].hex()}, seq {int.from_bytes(data[4:8], 'big') if len(data) >= 8 else '-'}")

    send("replayed", last)
    send("replayed", last)
    send("too_old", e[0])
    bad = bytearray(last)
    bad[4:8] = struct.pack(">I", seq + 1000)
    bad[-1] ^= 1
    send("bad_icv", bytes(bad))
    send("truncated", last[:20])
    send("unknown_spi", struct.pack(">I", 0x9999) + last[4:])


if __name__ == "__main__":
    main()
