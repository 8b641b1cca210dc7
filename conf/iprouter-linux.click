// iprouter-linux.click -- a two-interface IP router on Linux devices
//
// The IP router of the Click paper's Figure 8, for the namespace testbed:
//
//   rclick testbed up
//   ip netns exec rclick-r target/release/click conf/iprouter-linux.click
//   ip netns exec rclick-h0 ping -n 198.51.100.2
//
// eth0 faces host rclick-h0 (192.0.2.2) and eth1 faces rclick-h1
// (198.51.100.2). The router's interfaces have no kernel IP address: this
// configuration alone answers ARP for 192.0.2.1 and 198.51.100.1, routes
// between the two subnets, sends ICMP errors (time exceeded, unreachable,
// parameter problem, redirect) and answers pings to its own addresses.
//
// MTU0 and MTU1 are the MTUs of eth0 and eth1: the router fragments
// packets bigger than the outgoing interface's MTU and answers those with
// the don't-fragment flag with ICMP "fragmentation needed" carrying that
// MTU. Set them to the devices' MTUs on the command line, e.g.
//
//   ip -n rclick-r link set eth1 mtu 1000; ip -n rclick-h1 link set eth0 mtu 1000
//   ip netns exec rclick-r target/release/click conf/iprouter-linux.click MTU1=1000

define($MTU0 1500, $MTU1 1500);

AddressInfo(
    eth0 192.0.2.1/24 02:00:00:00:00:01,
    eth1 198.51.100.1/24 02:00:00:00:01:01
);

// Input: classify ARP queries, ARP replies, IP, and the rest.
c0 :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800, -);
c1 :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800, -);
// SNIFFER false: the kernel's own stack does not handle these frames as
// well (with rclick: a tc program drops them after FromDevice has them;
// the reference Click installs iptables rules, or warns and goes on
// sniffing without iptables).
fd0 :: FromDevice(eth0, SNIFFER false) -> c0;
fd1 :: FromDevice(eth1, SNIFFER false) -> c1;

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

// IP input: remember the input interface (paint), check, look up.
c0[2] -> Paint(1) -> ip :: Strip(14)
    -> CheckIPHeader(INTERFACES eth0:ipnet eth1:ipnet)
    -> GetIPAddress(16)
    -> rt :: RadixIPLookup(
        eth0:ip/32 0, eth1:ip/32 0,
        eth0:bcast/32 0, eth1:bcast/32 0,
        192.0.2.0/32 0, 198.51.100.0/32 0,
        255.255.255.255/32 0, 0.0.0.0/32 0,
        eth0:ipnet 1, eth1:ipnet 2);
c1[2] -> Paint(2) -> ip;
c0[3] -> Discard;
c1[3] -> Discard;

// Packets for the router itself: answer pings, drop the rest.
rt[0] -> local :: IPClassifier(icmp type echo, -);
local[0] -> ICMPPingResponder -> GetIPAddress(16) -> rt;
local[1] -> Discard;

// Forwarding path of eth0.
rt[1] -> DropBroadcasts
    -> cp0 :: PaintTee(1)
    -> gio0 :: IPGWOptions(eth0:ip)
    -> FixIPSrc(eth0:ip)
    -> dt0 :: DecIPTTL
    -> fr0 :: IPFragmenter($MTU0)
    -> [0]arpq0;
dt0[1] -> ICMPError(eth0:ip, timeexceeded) -> rt;
fr0[1] -> ICMPError(eth0:ip, unreachable, needfrag, PMTU $MTU0) -> rt;
gio0[1] -> ICMPError(eth0:ip, parameterproblem) -> rt;
cp0[1] -> ICMPError(eth0:ip, redirect, host) -> rt;

// Forwarding path of eth1.
rt[2] -> DropBroadcasts
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
