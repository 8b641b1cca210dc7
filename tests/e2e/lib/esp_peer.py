#!/usr/bin/env python3
"""A user-level ESP tunnel endpoint for tests/e2e/vpn.sh, for kernels
without ESP (CONFIG_INET_ESP) or without the AEAD ciphers.

It plays the part of a Linux host's `ip xfrm` tunnel with an independent
ESP implementation: scapy's (RFC 4303 framing, RFC 4106 and RFC 7634
layouts) over OpenSSL's AES-GCM and ChaCha20-Poly1305 (python
`cryptography`). Packets the kernel routes into the TUN device TUN are
sealed with the outbound SA and sent as IP protocol 50 to REMOTE through a
raw socket; ESP packets from REMOTE are opened with the inbound SA (after
a 64-packet anti-replay check) and written to the TUN device.

Usage: esp_peer.py TUN LOCAL REMOTE CIPHER SPI_OUT KEY_OUT SPI_IN KEY_IN
(keys as 0x-hexadecimal key material: cipher key then 4-byte salt).
Runs until killed; prints one line when ready.
"""

import fcntl
import os
import select
import socket
import struct
import sys

from scapy.layers.inet import IP
from scapy.layers.ipsec import ESP, SecurityAssociation

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def main():
    tun_name, local, remote, cipher, spi_out, key_out, spi_in, key_in = sys.argv[1:9]
    algo = {"aes-gcm": "AES-GCM", "chacha20-poly1305": "CHACHA20-POLY1305"}[cipher]

    def sa(spi, key, src, dst):
        return SecurityAssociation(
            ESP,
            spi=int(spi, 0),
            crypt_algo=algo,
            crypt_key=bytes.fromhex(key[2:]),
            tunnel_header=IP(src=src, dst=dst),
        )

    out_sa = sa(spi_out, key_out, local, remote)
    in_sa = sa(spi_in, key_in, remote, local)
    in_spi = int(spi_in, 0)

    tun = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(tun, TUNSETIFF, struct.pack("16sH", tun_name.encode(), IFF_TUN | IFF_NO_PI))
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, 50)
    raw.bind((local, 0))
    seq = 0
    top, bits = 0, 0  # 64-packet replay window
    print("ready", flush=True)
    while True:
        ready, _, _ = select.select([tun, raw], [], [])
        if tun in ready:
            pkt = os.read(tun, 65535)
            if pkt and pkt[0] >> 4 == 4:
                seq += 1
                out_sa.seq_num = seq
                esp = out_sa.encrypt(IP(pkt))
                raw.sendto(bytes(esp[ESP]), (remote, 0))
        if raw in ready:
            data, (src, _) = raw.recvfrom(65535)
            if src != remote:
                continue
            p = IP(data)
            if ESP not in p or p[ESP].spi != in_spi:
                continue
            s = p[ESP].seq
            if s == 0 or (s <= top and (top - s >= 64 or bits >> (top - s) & 1)):
                continue
            try:
                inner = in_sa.decrypt(p)
            except Exception:  # a bad ICV: dropped, as the kernel would
                continue
            if s > top:
                bits = ((bits << (s - top)) | 1) & (2**64 - 1)
                top = s
            else:
                bits |= 1 << (top - s)
            os.write(tun, bytes(inner))


if __name__ == "__main__":
    main()
