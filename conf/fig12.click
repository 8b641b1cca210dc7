// Figure 12 of the Click paper (section 4.3): a complex combination of
// dropping, queueing and scheduling for a router with
//  - two parallel (T1-like) links to a backbone, load-balanced;
//  - two priority levels;
//  - fairness among the flows within each priority level;
//  - RED dropping driven by the total number of packets queued.
// A Classifier splits packets by priority into two virtual queues, each a
// stochastic fairness queue (Figure 10: HashSwitch over two Queues served
// by a RoundRobinSched). A PrioSched always prefers the high-priority
// virtual queue. One RED in front of the Classifier finds, by flow-based
// router context, all four Queues and drops on their total length.
//
// In the paper both ToDevices pull from the PrioSched. A Click pull output
// can feed only one input, so here a RatedUnqueue at the two links'
// combined rate ($LINKS) pulls from the PrioSched and a RoundRobinSwitch
// alternates packets between the two lines, each a small Queue drained by a
// RatedUnqueue at $LINE packets/s (standing in for ToDevice).
//
// Network-independent: four UDP flows to 10.0.1.1. High priority (DSCP EF,
// TOS 0xb8): H1 from 10.0.0.1 ($RH1 packets/s) and H2 from 10.0.0.4
// ($RH2). Low priority (TOS 0): L1 from 10.0.0.5 ($RL1) and L2 from
// 10.0.0.6 ($RL2). Within each class the two flows hash (IP source and
// destination, bytes 12-19) into different Queues. Run it in simulated
// time (counts over $TIME):
//
//   click --simtime conf/fig12.click
//
// Expected (defaults: 2,000 high + 3,300 low packets/s into 2 x 1,500):
// the high-priority class gets (nearly) everything through; the low class
// gets what is left, about 1,000 packets/s, where the light flow L2 keeps
// its 300 packets/s and the heavy L1 gets the rest; the two lines carry
// equal shares. RED, seeing the low Queues fill, drops some packets of
// every class; the low Queues' tail drop removes the rest of the excess.
// With RL2=800 both low flows exceed their fair share: they split the low
// class's share evenly, and as both low Queues now stay full, RED (which
// counts all four Queues) drops harder, high-priority packets included.

define($RH1 1500, $RH2 500, $RL1 3000, $RL2 300, $LINE 1500, $LINKS 3000, $TIME 4s);

elementclass SFQ {
    input -> hash :: HashSwitch(12, 8);
    rr :: RoundRobinSched -> output;
    hash[0] -> q0 :: Queue(50) -> [0]rr;
    hash[1] -> q1 :: Queue(50) -> [1]rr;
}

// Per-flow output counters.
elementclass FlowCount {
    input -> cl :: Classifier(12/0a000001, 12/0a000004, 12/0a000005, 12/0a000006, -);
    cl[0] -> h1 :: Counter -> output;
    cl[1] -> h2 :: Counter -> output;
    cl[2] -> l1 :: Counter -> output;
    cl[3] -> l2 :: Counter -> output;
    cl[4] -> output;
}

srcH1 :: RatedSource(DATA \<45b8002e00000000401165060a0000010a00010104d2162e001a000066616972207175657565696e672074657374>, RATE $RH1);
srcH2 :: RatedSource(DATA \<45b8002e00000000401165030a0000040a00010104d2162e001a000066616972207175657565696e672074657374>, RATE $RH2);
srcL1 :: RatedSource(DATA \<4500002e00000000401165ba0a0000050a00010104d2162e001a000066616972207175657565696e672074657374>, RATE $RL1);
srcL2 :: RatedSource(DATA \<4500002e00000000401165b90a0000060a00010104d2162e001a000066616972207175657565696e672074657374>, RATE $RL2);

red :: RED(30, 90, 0.02);
srcH1 -> red;  srcH2 -> red;  srcL1 -> red;  srcL2 -> red;

red -> cl :: Classifier(1/b8%fc, -);
cl[0] -> high :: SFQ;
cl[1] -> low :: SFQ;

high -> [0]prio :: PrioSched;
low -> [1]prio;

// The two lines.
out :: FlowCount -> Discard;
prio -> RatedUnqueue($LINKS) -> lb :: RoundRobinSwitch;
lb[0] -> line0 :: Queue(10) -> RatedUnqueue($LINE) -> c0 :: Counter -> out;
lb[1] -> line1 :: Queue(10) -> RatedUnqueue($LINE) -> c1 :: Counter -> out;

DriverManager(wait $TIME,
    print "offered H1 H2 L1 L2:" $(srcH1.count) $(srcH2.count) $(srcL1.count) $(srcL2.count),
    print "sent H1 H2 L1 L2:" $(out/h1.count) $(out/h2.count) $(out/l1.count) $(out/l2.count),
    print "lines:" $(c0.count) $(c1.count) "line drops" $(line0.drops) $(line1.drops),
    print "RED drops" $(red.drops),
    print "queue drops high:" $(high/q0.drops) $(high/q1.drops) "low:" $(low/q0.drops) $(low/q1.drops),
    print "queued high:" $(high/q0.length) $(high/q1.length) "low:" $(low/q0.length) $(low/q1.length),
    stop);
