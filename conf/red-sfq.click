// Dropping and queueing policies of the Click paper's section 4.1-4.2:
// RED in front of a FIFO Queue, and the stochastic fairness queueing
// virtual queue of Figure 10 (a HashSwitch spreading flows over several
// Queues that a RoundRobinSched serves) written as a compound element.
// Because a Queue and a scheduler both have one pull output, the SFQ
// compound can replace a Queue anywhere.
//
// Network-independent: three UDP flows from 10.0.0.1 (A, 8,000 packets/s),
// 10.0.0.2 (B, 4,000/s) and 10.0.0.3 (C, 1,000/s) to 10.0.1.1 overload a
// 6,000 packets/s link (RatedUnqueue standing in for ToDevice). Each flow
// is copied to two such links: one behind RED + Queue, one behind SFQ.
// The SFQ hashes the IP source and destination addresses (bytes 12-19)
// into four Queues; these three flows land in three different ones.
// Run it in simulated time (two simulated seconds; counts per two seconds):
//
//   click --simtime conf/red-sfq.click
//
// Expected: behind RED + Queue every flow loses the same fraction, so the
// link is shared in proportion to the offered loads (about 7,400, 3,700
// and 900 of 16,000, 8,000 and 2,000). Behind SFQ the light flow C gets
// all its 2,000 packets through and the two heavy flows split the rest
// evenly, about 5,000 each, although A offers twice as much as B; the
// excess overflows A's and B's own queues.
//
// (A RED in front of the SFQ would count all four of its Queues, as the
// paper notes, but it would then throttle every flow alike and undo the
// fairness; so this SFQ relies on its Queues' tail drop.)

define($RATEA 8000, $RATEB 4000, $RATEC 1000, $LINK 6000, $TIME 2s);

elementclass SFQ {
    input -> hash :: HashSwitch(12, 8);
    rr :: RoundRobinSched -> output;
    hash[0] -> q0 :: Queue(50) -> [0]rr;
    hash[1] -> q1 :: Queue(50) -> [1]rr;
    hash[2] -> q2 :: Queue(50) -> [2]rr;
    hash[3] -> q3 :: Queue(50) -> [3]rr;
}

// Per-flow output counters.
elementclass FlowCount {
    input -> cl :: Classifier(12/0a000001, 12/0a000002, 12/0a000003, -);
    cl[0] -> a :: Counter -> output;
    cl[1] -> b :: Counter -> output;
    cl[2] -> c :: Counter -> output;
    cl[3] -> output;
}

srcA :: RatedSource(DATA \<4500002e00000000401165be0a0000010a00010104d2162e001a000066616972207175657565696e672074657374>, RATE $RATEA);
srcB :: RatedSource(DATA \<4500002e00000000401165bd0a0000020a00010104d2162e001a000066616972207175657565696e672074657374>, RATE $RATEB);
srcC :: RatedSource(DATA \<4500002e00000000401165bc0a0000030a00010104d2162e001a000066616972207175657565696e672074657374>, RATE $RATEC);

srcA -> tA :: Tee;  srcB -> tB :: Tee;  srcC -> tC :: Tee;

// Link 1: RED before a FIFO Queue.
red :: RED(20, 60, 0.1);
tA[0] -> red;  tB[0] -> red;  tC[0] -> red;
red -> fifo :: Queue(100) -> RatedUnqueue($LINK) -> fifo_out :: FlowCount -> Discard;

// Link 2: the SFQ virtual queue.
sfq :: SFQ;
tA[1] -> sfq;  tB[1] -> sfq;  tC[1] -> sfq;
sfq -> RatedUnqueue($LINK) -> sfq_out :: FlowCount -> Discard;

DriverManager(wait $TIME,
    print "offered A B C:" $(srcA.count) $(srcB.count) $(srcC.count),
    print "RED+Queue sent A B C:" $(fifo_out/a.count) $(fifo_out/b.count) $(fifo_out/c.count),
    print "RED drops" $(red.drops) "queue drops" $(fifo.drops),
    print "SFQ sent A B C:" $(sfq_out/a.count) $(sfq_out/b.count) $(sfq_out/c.count),
    print "SFQ queue drops" $(sfq/q0.drops) $(sfq/q1.drops) $(sfq/q2.drops) $(sfq/q3.drops),
    stop);
