// sealing with aes-gcm: the gateway's outbound path
// 64-byte IP packets (198.51.100.2 -> 203.0.113.1, UDP) through the VPN
// gateway's path into the tunnel (route, TTL, ESP aes-gcm, outer IP header).
// Run with scripts/bench ipsec (docs/IPSEC.md); `rclick bench` pairs each file
// with vpn_baseline_64 (the same forwarding without ESP).
define($N 2000000);
SATable(0x2001 aes-gcm 0x0102030405060708090a0b0c0d0e0f10a1a2a3a4 WINDOW 64);
src :: InfiniteSource(DATA \<450000400000000040111476c6336402cb00710104d2162e002c0000000000000000000000000000000000000000000000000000000000000000000000000000>, LIMIT $N, STOP true, TIMESTAMP false)
    -> CheckIPHeader -> GetIPAddress(16)
    -> rt :: RadixIPsecLookup(203.0.113.0/24 192.0.2.2 1 0x2001, 0.0.0.0/0 0);
rt[0] -> Discard;
rt[1] -> DecIPTTL
    -> IPsecESPEncap -> IPsecEncap(esp, SRC 192.0.2.1)
    -> d :: Discard;
