// ip6router-linux.click -- a two-interface dual-stack (IPv4 and IPv6) router
//
// conf/iprouter-linux.click's IPv4 router, unchanged, plus IPv6 routing
// between the same two links, for the namespace testbed with IPv6 turned
// on in the hosts (tests/e2e/ip6router.sh does this):
//
//   rclick testbed up
//   for i in 0 1; do
//     ip netns exec rclick-h$i sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
//         net.ipv6.conf.eth0.disable_ipv6=0 net.ipv6.conf.eth0.accept_dad=0
//     ip -n rclick-h$i addr add 2001:db8:$((i+1))::2/64 dev eth0
//     ip -n rclick-h$i -6 route add default via 2001:db8:$((i+1))::1
//   done
//   ip netns exec rclick-r target/release/click conf/ip6router-linux.click
//   ip netns exec rclick-h0 ping -6 -n 2001:db8:2::2
//
// eth0 faces rclick-h0 (192.0.2.2, 2001:db8:1::2) and eth1 faces rclick-h1
// (198.51.100.2, 2001:db8:2::2). The router's interfaces have no kernel
// address (the router namespace keeps IPv6 off). For IPv6 this
// configuration alone does neighbour discovery (RFC 4861): it answers the
// hosts' solicitations for 2001:db8:1::1 and 2001:db8:2::1
// (IP6NDAdvertiser) and solicits the hosts' link-layer addresses itself
// (IP6NDSolicitor); no neighbour entry is configured anywhere. It
// decrements the hop limit and answers a packet whose hop limit runs out
// with ICMPv6 time exceeded, from the address of the interface the packet
// came in on; a packet longer than the outgoing link's MTU gets ICMPv6
// packet too big (routers do not fragment IPv6). Packets for the router's
// own IPv6 addresses other than neighbour discovery, and multicast
// (router solicitations, MLD reports), are counted and dropped.
//
// MTU0 and MTU1 are the MTUs of eth0 and eth1 (see iprouter-linux.click).

define($MTU0 1500, $MTU1 1500);

define($IP6_0 2001:db8:1::1, $IP6_1 2001:db8:2::1,
       $ETH0 02:00:00:00:00:01, $ETH1 02:00:00:00:01:01);

AddressInfo(
    eth0 192.0.2.1/24 02:00:00:00:00:01,
    eth1 198.51.100.1/24 02:00:00:00:01:01
);

// Input: ARP queries, ARP replies, IPv4, neighbour solicitations,
// neighbour advertisements (next header 58 with hop limit 255, ICMPv6
// type 135 or 136), other IPv6, and the rest.
c0 :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800,
                 12/86dd 20/3aff 54/87, 12/86dd 20/3aff 54/88, 12/86dd, -);
c1 :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800,
                 12/86dd 20/3aff 54/87, 12/86dd 20/3aff 54/88, 12/86dd, -);
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

// IPv4 input: remember the input interface (paint), check, look up.
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
c0[6] -> Discard;
c1[6] -> Discard;

// IPv4 packets for the router itself: answer pings, drop the rest.
rt[0] -> local :: IPClassifier(icmp type echo, -);
local[0] -> ICMPPingResponder -> GetIPAddress(16) -> rt;
local[1] -> Discard;

// IPv4 forwarding path of eth0.
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

// IPv4 forwarding path of eth1.
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

// Neighbour discovery: answer solicitations for our addresses, resolve
// next hops (the hosts' kernels answer our solicitations).
c0[3] -> nda0 :: IP6NDAdvertiser($IP6_0 $ETH0) -> out0;
c1[3] -> nda1 :: IP6NDAdvertiser($IP6_1 $ETH1) -> out1;
nds0 :: IP6NDSolicitor($IP6_0, $ETH0) -> out0;
nds1 :: IP6NDSolicitor($IP6_1, $ETH1) -> out1;
c0[4] -> [1]nds0;
c1[4] -> [1]nds1;

// IPv6 input: paint, check, look up.
c0[5] -> Paint(1) -> ip6 :: Strip(14)
    -> CheckIP6Header
    -> GetIP6Address(24)
    -> rt6 :: LookupIP6Route(
        $IP6_0/128 0, $IP6_1/128 0, ff00::/8 0,
        2001:db8:1::/64 1, 2001:db8:2::/64 2);
c1[5] -> Paint(2) -> ip6;

// IPv6 packets for the router itself and multicast: counted, dropped.
rt6[0] -> local6 :: Counter -> Discard;

// IPv6 forwarding: hop limit, link MTU, neighbour discovery.
rt6[1] -> dh0 :: DecIP6HLIM -> mtu0 :: CheckLength($MTU0) -> [0]nds0;
rt6[2] -> dh1 :: DecIP6HLIM -> mtu1 :: CheckLength($MTU1) -> [0]nds1;

// Hop limit exceeded: time exceeded from the input interface's address.
te6 :: PaintSwitch;
dh0[1] -> te6;
dh1[1] -> te6;
te6[0] -> Discard;
te6[1] -> ICMP6Error($IP6_0, 3, 0) -> rt6;
te6[2] -> ICMP6Error($IP6_1, 3, 0) -> rt6;

// Too long for the outgoing link: packet too big with its MTU.
mtu0[1] -> ICMP6Error($IP6_0, 2, 0, MTU $MTU0) -> rt6;
mtu1[1] -> ICMP6Error($IP6_1, 2, 0, MTU $MTU1) -> rt6;
