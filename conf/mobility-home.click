// The home node of the Click paper's Figure 14 (IP mobility, section 4.4):
// host 1.0.0.10 stands in for a mobile host, home address 1.0.0.11, that
// is away at care-of address 43.0.0.9 (the remote node of Figure 13).
//
// The home node proxy-ARPs for the mobile host (ARPResponder answers for
// both 1.0.0.10 and 1.0.0.11 with its own Ethernet address), so local
// hosts send the mobile host's packets to it. Those packets are
// encapsulated (IPEncap, IP-in-IP, protocol 4, from 1.0.0.10 to 43.0.0.9)
// and sent via the gateway 1.0.0.1 (SetIPAddress sets the next hop for
// ARPQuerier). IP-in-IP packets from 43.0.0.9 are unencapsulated
// (StripIPHeader, CheckIPHeader) and sent onto the local network to the
// inner destination (GetIPAddress(16)). Other IP packets would go to the
// host's own stack ("to Linux", here a Counter and Discard).
//
// Network-independent: five frames arrive on "eth0", one a second, fired
// by DriverManager: (1) 1.0.0.2 asks who has 1.0.0.11; (2) 1.0.0.2 sends
// a UDP packet to 1.0.0.11; (3) the gateway's ARP reply (the home node
// asked for it after (2)); (4) an IP-in-IP packet from 43.0.0.9 carrying
// a UDP packet from 1.0.0.11 to 1.0.0.2; (5) 1.0.0.2's ARP reply. Every
// frame the home node sends is printed on standard error (ARPPrint,
// IPPrint; for tunneled packets the whole outer header in hex, then the
// inner packet). Run it in simulated time:
//
//   click --simtime conf/mobility-home.click
//
// Expected on standard error: a proxy ARP reply "1.0.0.11 is-at
// 00-00-C0-AA-00-0A"; an ARP query for the gateway 1.0.0.1; after the
// gateway's reply, the packet for 1.0.0.11 tunneled to the gateway's
// Ethernet address in a header 45 00 (length 20 + 46) ... protocol 04,
// TTL 250 (IPEncap's default), source 1.0.0.10, destination 43.0.0.9,
// with a valid checksum, around the unchanged inner packet; then an ARP
// query for 1.0.0.2, and after its reply the unencapsulated packet from
// 1.0.0.11 to 1.0.0.2 with the inner header untouched (TTL 64).

define($HOME_ETH 00-00-c0-aa-00-0a);

// Frames arriving on eth0.
arp_q :: InfiniteSource(DATA \<ffffffffffff0000c0aa0002080600010800060400010000c0aa0002010000020000000000000100000b>,
    LIMIT 1, ACTIVE false);
to_mobile :: InfiniteSource(DATA \<0000c0aa000a0000c0aa000208004500002e00000000401178b3010000020100000b04d2162e001a0000746f20746865206d6f62696c6520686f7374>,
    LIMIT 1, ACTIVE false);
gw_reply :: InfiniteSource(DATA \<0000c0aa000a0000c0aa0001080600010800060400020000c0aa0001010000010000c0aa000a0100000a>,
    LIMIT 1, ACTIVE false);
tunneled :: InfiniteSource(DATA \<0000c0aa000a0000c0aa0001080045000044000700003c04529d2b0000090100000a4500003000000000401178b10100000b01000002162e04d2001c000066726f6d20746865206d6f62696c6520686f7374>,
    LIMIT 1, ACTIVE false);
h2_reply :: InfiniteSource(DATA \<0000c0aa000a0000c0aa0002080600010800060400020000c0aa0002010000020000c0aa000a0100000a>,
    LIMIT 1, ACTIVE false);

from_eth0 :: Null;
arp_q -> from_eth0;  to_mobile -> from_eth0;  gw_reply -> from_eth0;
tunneled -> from_eth0;  h2_reply -> from_eth0;

// What the home node sends on eth0 (ToDevice(eth0)).
to_eth0 :: Queue(100);
to_eth0 -> Unqueue -> sent :: Counter -> oc :: Classifier(12/0806, 12/0800);
oc[0] -> ARPPrint(out, TIMESTAMP false, ETHER true) -> Discard;
oc[1] -> Print(out-eth, 14) -> Strip(14) -> CheckIPHeader
    -> IPPrint(out, TTL true, ID true, LENGTH true, TIMESTAMP false)
    -> encap :: IPClassifier(ip proto 4, -);
encap[0] -> IPPrint(out-outer-header, CONTENTS hex, MAXLENGTH 20, TIMESTAMP false)
    -> StripIPHeader -> CheckIPHeader -> IPPrint(out-inner, TTL true, LENGTH true, TIMESTAMP false)
    -> Discard;
encap[1] -> Discard;

// Figure 14.
arpq :: ARPQuerier(1.0.0.10, $HOME_ETH);
arpq -> to_eth0;

c :: Classifier(12/0806 20/0001, 12/0806 20/0002, 12/0800, -);
from_eth0 -> c;
c[0] -> ARPResponder(1.0.0.10/32 $HOME_ETH, 1.0.0.11/32 $HOME_ETH) -> to_eth0;  // ARP queries
c[1] -> [1]arpq;                                                               // ARP responses
c[3] -> to_linux :: Counter -> Discard;

c[2] -> Strip(14) -> CheckIPHeader
    -> ipc :: Classifier(9/04 12/2b000009 16/0100000a,   // IP-in-IP from 43.0.0.9
                         16/0100000b,                    // IP for 1.0.0.11
                         16/0100000a,                    // other IP for 1.0.0.10
                         -);                             // other IP
ipc[0] -> StripIPHeader -> CheckIPHeader -> GetIPAddress(16) -> [0]arpq;
ipc[1] -> IPEncap(4, 1.0.0.10, 43.0.0.9) -> SetIPAddress(1.0.0.1) -> [0]arpq;
ipc[2] -> to_linux;
ipc[3] -> to_linux;

DriverManager(
    wait 1s, write arp_q.active true,
    wait 1s, write to_mobile.active true,
    wait 1s, write gw_reply.active true,
    wait 1s, write tunneled.active true,
    wait 1s, write h2_reply.active true,
    wait 1s,
    print "frames sent on eth0:" $(sent.count) "to the host's stack:" $(to_linux.count),
    print "ARP queries sent:" $(arpq.queries) "responses received:" $(arpq.responses),
    print $(arpq.table),
    stop);
