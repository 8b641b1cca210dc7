// The Ethernet switch of the Click paper's Figure 16: a learning bridge
// (EtherSwitch) that takes part in the IEEE 802.1d spanning tree
// (EtherSpanTree), here with three ports.
//
// On each port, a Classifier sends 802.1d messages (BPDUs, LLC 42 42) to
// EtherSpanTree and everything else through the input Suppressor into
// EtherSwitch; the switch's outputs pass the output Suppressor and join the
// bridge's own BPDUs in the port's queue. EtherSpanTree controls the
// Suppressors by name (flow-based router context cannot find them): a new
// port listens for one forward delay (15 s; both directions suppressed),
// then learns for another (input open, output suppressed), then forwards.
// EtherSwitch learns the port of each source address; a frame to a learned
// unicast address goes out that port only, any other frame (unknown or
// broadcast destination) is flooded to every other port.
//
// Network-independent: three hosts, A (00-00-C0-00-00-0A) on port 0,
// B (...0B) on port 1 and C (...0C) on port 2, are InfiniteSources that
// DriverManager fires one frame at a time; the ToDevices are replaced by a
// Counter of data frames, one of BPDUs, and a Queue drained by Unqueue.
// Run it in simulated time (the spanning tree needs 30 simulated seconds):
//
//   click --simtime conf/ethernet-switch.click 2>/dev/null
//
// Expected: at 1 s (ports still listening) A's frame to B is dropped; once
// the ports forward, A -> B is flooded to ports 1 and 2 (B is unknown),
// B -> A goes to port 0 only (A was learned), A -> B now goes to port 1
// only, and C's broadcast goes to ports 0 and 1. The bridge, alone, is the
// root and sends a BPDU on every port every 2 seconds. The state changes
// ("Changing port N from S to S", 1 listening, 2 learning, 3 forwarding)
// are reported on standard error.

span :: EtherSpanTree(00-1f-29-4d-f8-31, in_supp, out_supp, switch);
switch :: EtherSwitch;
in_supp, out_supp :: Suppressor;

// Port N input: host frames; BPDUs to the spanning tree, the rest to the switch.
a2b :: InfiniteSource(DATA \<0000c000000b 0000c000000a 0800
        0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000>,
    LIMIT 1, ACTIVE false);
b2a :: InfiniteSource(DATA \<0000c000000a 0000c000000b 0800
        0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000>,
    LIMIT 1, ACTIVE false);
c2all :: InfiniteSource(DATA \<ffffffffffff 0000c000000c 0800
        0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000>,
    LIMIT 1, ACTIVE false);

a2b -> c0 :: Classifier(14/4242, -);
b2a -> c1 :: Classifier(14/4242, -);
c2all -> c2 :: Classifier(14/4242, -);

c0[0] -> [0]span;  c0[1] -> [0]in_supp;
c1[0] -> [1]span;  c1[1] -> [1]in_supp;
c2[0] -> [2]span;  c2[1] -> [2]in_supp;

in_supp[0] -> [0]switch[0] -> [0]out_supp;
in_supp[1] -> [1]switch[1] -> [1]out_supp;
in_supp[2] -> [2]switch[2] -> [2]out_supp;

// Port N output: data frames and BPDUs share the port's queue.
q0 :: Queue(100);  q1 :: Queue(100);  q2 :: Queue(100);
out_supp[0] -> data0 :: Counter -> q0;  span[0] -> bpdu0 :: Counter -> q0;
out_supp[1] -> data1 :: Counter -> q1;  span[1] -> bpdu1 :: Counter -> q1;
out_supp[2] -> data2 :: Counter -> q2;  span[2] -> bpdu2 :: Counter -> q2;
q0 -> Unqueue -> Discard;  // ToDevice(eth0)
q1 -> Unqueue -> Discard;  // ToDevice(eth1)
q2 -> Unqueue -> Discard;  // ToDevice(eth2)

DriverManager(
    wait 1s,
    write a2b.active true, wait 0.5s,
    print "listening, A->B: data out per port" $(data0.count) $(data1.count) $(data2.count),
    wait 33.5s,
    write data0.reset, write data1.reset, write data2.reset,
    write a2b.reset, wait 1s,
    print "forwarding, A->B (B unknown):" $(data0.count) $(data1.count) $(data2.count),
    write data0.reset, write data1.reset, write data2.reset,
    write b2a.active true, wait 1s,
    print "B->A (A learned):" $(data0.count) $(data1.count) $(data2.count),
    write data0.reset, write data1.reset, write data2.reset,
    write a2b.reset, wait 1s,
    print "A->B (B learned):" $(data0.count) $(data1.count) $(data2.count),
    write data0.reset, write data1.reset, write data2.reset,
    write c2all.active true, wait 1s,
    print "C->broadcast:" $(data0.count) $(data1.count) $(data2.count),
    print "BPDUs sent per port:" $(bpdu0.count) $(bpdu1.count) $(bpdu2.count),
    print "learned:",
    print $(switch.table),
    stop);
