// iprouter-linux-4.click -- a four-interface IP router on Linux devices
//
// conf/iprouter-linux.click (the Click paper's Figure 8 IP router) with
// four interfaces, for the namespace testbed with four hosts:
//
//   rclick testbed up --hosts 4
//   ip netns exec rclick-r target/release/click conf/iprouter-linux-4.click
//   ip netns exec rclick-h0 ping -n 203.0.113.130
//
// ethI faces host rclick-hI:
//   eth0 192.0.2.1/24      rclick-h0 (192.0.2.2)
//   eth1 198.51.100.1/24   rclick-h1 (198.51.100.2)
//   eth2 203.0.113.1/25    rclick-h2 (203.0.113.2)
//   eth3 203.0.113.129/25  rclick-h3 (203.0.113.130)
// The router's interfaces have no kernel IP address; this configuration
// answers ARP and pings for the router's addresses, routes between the four
// subnets and sends ICMP errors. MTU0..MTU3 are the devices' MTUs (see
// conf/iprouter-linux.click).

define($MTU0 1500, $MTU1 1500, $MTU2 1500, $MTU3 1500);

AddressInfo(
    eth0 192.0.2.1/24 02:00:00:00:00:01,
    eth1 198.51.100.1/24 02:00:00:00:01:01,
    eth2 203.0.113.1/25 02:00:00:00:02:01,
    eth3 203.0.113.129/25 02:00:00:00:03:01
);

// Input: classify ARP queries, ARP replies, IP, and the rest; one queue
// per output device; ARP answers for our addresses and next-hop lookups.
c0 :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800, -);
FromDevice(eth0) -> c0;
out0 :: Queue(1000) -> td0 :: ToDevice(eth0);
c0[0] -> ARPResponder(eth0:ip eth0:eth) -> out0;
arpq0 :: ARPQuerier(eth0:ip, eth0:eth) -> out0;
c0[1] -> [1]arpq0;
c0[3] -> Discard;

c1 :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800, -);
FromDevice(eth1) -> c1;
out1 :: Queue(1000) -> td1 :: ToDevice(eth1);
c1[0] -> ARPResponder(eth1:ip eth1:eth) -> out1;
arpq1 :: ARPQuerier(eth1:ip, eth1:eth) -> out1;
c1[1] -> [1]arpq1;
c1[3] -> Discard;

c2 :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800, -);
FromDevice(eth2) -> c2;
out2 :: Queue(1000) -> td2 :: ToDevice(eth2);
c2[0] -> ARPResponder(eth2:ip eth2:eth) -> out2;
arpq2 :: ARPQuerier(eth2:ip, eth2:eth) -> out2;
c2[1] -> [1]arpq2;
c2[3] -> Discard;

c3 :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800, -);
FromDevice(eth3) -> c3;
out3 :: Queue(1000) -> td3 :: ToDevice(eth3);
c3[0] -> ARPResponder(eth3:ip eth3:eth) -> out3;
arpq3 :: ARPQuerier(eth3:ip, eth3:eth) -> out3;
c3[1] -> [1]arpq3;
c3[3] -> Discard;

// IP input: remember the input interface (paint), check, look up.
c0[2] -> Paint(1) -> ip :: Strip(14)
    -> CheckIPHeader(INTERFACES eth0:ipnet eth1:ipnet eth2:ipnet eth3:ipnet)
    -> GetIPAddress(16)
    -> rt :: RadixIPLookup(
        eth0:ip/32 0, eth1:ip/32 0, eth2:ip/32 0, eth3:ip/32 0,
        eth0:bcast/32 0, eth1:bcast/32 0, eth2:bcast/32 0, eth3:bcast/32 0,
        192.0.2.0/32 0, 198.51.100.0/32 0, 203.0.113.0/32 0, 203.0.113.128/32 0,
        255.255.255.255/32 0, 0.0.0.0/32 0,
        eth0:ipnet 1, eth1:ipnet 2, eth2:ipnet 3, eth3:ipnet 4);
c1[2] -> Paint(2) -> ip;
c2[2] -> Paint(3) -> ip;
c3[2] -> Paint(4) -> ip;

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

// Forwarding path of eth2.
rt[3] -> DropBroadcasts
    -> cp2 :: PaintTee(3)
    -> gio2 :: IPGWOptions(eth2:ip)
    -> FixIPSrc(eth2:ip)
    -> dt2 :: DecIPTTL
    -> fr2 :: IPFragmenter($MTU2)
    -> [0]arpq2;
dt2[1] -> ICMPError(eth2:ip, timeexceeded) -> rt;
fr2[1] -> ICMPError(eth2:ip, unreachable, needfrag, PMTU $MTU2) -> rt;
gio2[1] -> ICMPError(eth2:ip, parameterproblem) -> rt;
cp2[1] -> ICMPError(eth2:ip, redirect, host) -> rt;

// Forwarding path of eth3.
rt[4] -> DropBroadcasts
    -> cp3 :: PaintTee(4)
    -> gio3 :: IPGWOptions(eth3:ip)
    -> FixIPSrc(eth3:ip)
    -> dt3 :: DecIPTTL
    -> fr3 :: IPFragmenter($MTU3)
    -> [0]arpq3;
dt3[1] -> ICMPError(eth3:ip, timeexceeded) -> rt;
fr3[1] -> ICMPError(eth3:ip, unreachable, needfrag, PMTU $MTU3) -> rt;
gio3[1] -> ICMPError(eth3:ip, parameterproblem) -> rt;
cp3[1] -> ICMPError(eth3:ip, redirect, host) -> rt;
