// vpn-gateway.click -- an IPsec ESP tunnel-mode VPN gateway on Linux devices
//
// The SMP Click paper's VPN gateway (section 5.3, Figures 5 and 6): the IP
// router with, on its link to the outside world, a path that seals packets
// for the remote site into ESP (here one AEAD step: AES-GCM or
// ChaCha20-Poly1305 instead of SHA-1 then 3DES) and encapsulates them for
// the tunnel, and the inverse path for ESP packets arriving from it. As in
// the paper (Figure 3), each cryptographic path starts at a Queue and an
// Unqueue (a PullToPush), so with `-j 2` or more another thread can do the
// encryption and decryption.
//
// For the namespace testbed (`rclick testbed up`, tests/e2e/vpn.sh):
//
//   eth0 192.0.2.1    outside: the tunnel's far end, 192.0.2.2, a Linux
//                     host whose kernel does ESP (ip xfrm), protecting the
//                     remote site 203.0.113.0/24
//   eth1 198.51.100.1 the local LAN, 198.51.100.0/24, plain hosts
//
//   ip netns exec rclick-r target/release/click conf/vpn-gateway.click
//
// Security associations (RFC 4303), one per direction, with Linux's key
// layout (cipher key then 4-byte salt):
//
//   SPI_IN  (0x1001): remote site -> LAN, opened here
//   SPI_OUT (0x2001): LAN -> remote site, sealed here
//
// Set CIPHER (aes-gcm or chacha20-poly1305), KEY_IN and KEY_OUT on the
// command line to match the far end's `ip xfrm state`; the defaults are
// AES-128-GCM test keys (never use them for real traffic).
//
// Policy (RFC 4301 5.2): from the outside, only packets for the gateway
// itself are taken in clear (ESP, pings); anything else is dropped and
// counted (`unprotected.count`). Packets out of the tunnel must go from
// the remote site to the LAN, else they are dropped (`badinner.count`).
// LAN packets too big for the tunnel with the don't-fragment bit get ICMP
// "fragmentation needed" with the tunnel's MTU (TUNNEL_MTU), so TCP over
// the tunnel finds its segment size.

define(
    $CIPHER aes-gcm,
    $SPI_IN 0x1001,
    $SPI_OUT 0x2001,
    $KEY_IN 0x0102030405060708090a0b0c0d0e0f10a1a2a3a4,
    $KEY_OUT 0x1112131415161718191a1b1c1d1e1f20b1b2b3b4,
    $REMOTE_GW 192.0.2.2,
    $REMOTE_NET 203.0.113.0/24,
    $TUNNEL_MTU 1438,
    $MTU0 1500,
    $MTU1 1500
);

AddressInfo(
    eth0 192.0.2.1/24 02:00:00:00:00:01,
    eth1 198.51.100.1/24 02:00:00:00:01:01
);

sa :: SATable($SPI_IN $CIPHER $KEY_IN WINDOW 64,
              $SPI_OUT $CIPHER $KEY_OUT);

// Input: classify ARP queries, ARP replies, IP, and the rest.
c0 :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800, -);
c1 :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800, -);
fd0 :: FromDevice(eth0) -> c0;
fd1 :: FromDevice(eth1) -> c1;

// Output: one queue per device.
out0 :: Queue(1000) -> td0 :: ToDevice(eth0);
out1 :: Queue(1000) -> td1 :: ToDevice(eth1);

// ARP: answer queries for our addresses, resolve next hops.
c0[0] -> ARPResponder(eth0:ip eth0:eth) -> out0;
c1[0] -> ARPResponder(eth1:ip eth1:eth) -> out1;
arpq0 :: ARPQuerier(eth0:ip, eth0:eth) -> out0;
arpq1 :: ARPQuerier(eth1:ip, eth1:eth) -> out1;
c0[1] -> [1]arpq0;
c1[1] -> [1]arpq1;
c0[3] -> Discard;
c1[3] -> Discard;

// The route table. Outputs (0, 1 and 2 as Click's RadixIPsecLookup has
// them): 0 ESP for the gateway (with a known SPI), 1 into the tunnel
// (sets the SPI annotation; the gateway is the tunnel's far end), 2 other
// packets for the gateway, 3 forwarding on eth0, 4 forwarding on eth1.
rt :: RadixIPsecLookup(
    eth0:ip/32 0, eth1:ip/32 0,
    eth0:bcast/32 2, eth1:bcast/32 2,
    192.0.2.0/32 2, 198.51.100.0/32 2,
    255.255.255.255/32 2, 0.0.0.0/32 2,
    $REMOTE_NET $REMOTE_GW 1 $SPI_OUT,
    eth0:ipnet 3, eth1:ipnet 4);

// IP input. From the outside, only what is addressed to the gateway.
c0[2] -> Paint(1) -> Strip(14)
    -> CheckIPHeader(INTERFACES eth0:ipnet eth1:ipnet)
    -> outside :: IPClassifier(dst host eth0:ip, -)
    -> GetIPAddress(16)
    -> rt;
outside[1] -> unprotected :: Counter -> Discard;
c1[2] -> Paint(2) -> Strip(14)
    -> CheckIPHeader(INTERFACES eth0:ipnet eth1:ipnet)
    -> GetIPAddress(16)
    -> rt;

// Packets for the gateway itself: answer pings, drop the rest.
rt[2] -> local :: IPClassifier(icmp type echo, -);
local[0] -> ICMPPingResponder -> GetIPAddress(16) -> rt;
local[1] -> Discard;

// Figure 6: ESP from the tunnel: strip the outer header, open (replay
// window, ICV, decryption, trailer), check the inner packet against the
// SA's policy, and route it.
rt[0] -> StripIPHeader
    -> decq :: Queue(1000) -> Unqueue
    -> esp_in :: IPsecESPUnencap
    -> CheckIPHeader
    -> inner :: IPClassifier(src net $REMOTE_NET and dst net eth1:ipnet, -)
    -> rt;
inner[1] -> badinner :: Counter -> Discard;

// Figure 5: into the tunnel: forward (TTL, size against the tunnel's
// MTU), then seal and encapsulate, and route the ESP packet out eth0.
rt[1] -> DropBroadcasts
    -> dtt :: DecIPTTL
    -> frt :: IPFragmenter($TUNNEL_MTU)
    -> encq :: Queue(1000) -> Unqueue
    -> esp_out :: IPsecESPEncap
    -> IPsecEncap(esp)
    -> rt;
dtt[1] -> ICMPError(eth1:ip, timeexceeded) -> rt;
frt[1] -> ICMPError(eth1:ip, unreachable, needfrag, PMTU $TUNNEL_MTU) -> rt;

// Forwarding path of eth0 (the outside: ESP packets to the far end).
rt[3] -> DropBroadcasts
    -> cp0 :: PaintTee(1)
    -> gio0 :: IPGWOptions(eth0:ip)
    -> FixIPSrc(eth0:ip)
    -> dt0 :: DecIPTTL
    -> fr0 :: IPFragmenter($MTU0)
    -> [0]arpq0;
dt0[1] -> ICMPError(eth0:ip, timeexceeded) -> rt;
fr0[1] -> ICMPError(eth0:ip, unreachable, needfrag, PMTU $MTU0) -> rt;
gio0[1] -> ICMPError(eth0:ip, parameterproblem) -> rt;
cp0[1] -> Discard;

// Forwarding path of eth1 (the LAN).
rt[4] -> DropBroadcasts
    -> cp1 :: PaintTee(2)
    -> gio1 :: IPGWOptions(eth1:ip)
    -> FixIPSrc(eth1:ip)
    -> dt1 :: DecIPTTL
    -> fr1 :: IPFragmenter($MTU1)
    -> [0]arpq1;
dt1[1] -> ICMPError(eth1:ip, timeexceeded) -> rt;
fr1[1] -> ICMPError(eth1:ip, unreachable, needfrag, PMTU $MTU1) -> rt;
gio1[1] -> ICMPError(eth1:ip, parameterproblem) -> rt;
cp1[1] -> ICMPError(eth1:ip, redirect, host) -> rt;
