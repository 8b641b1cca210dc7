// The diffserv traffic conditioning block of the Click paper's Figure 15.
//
// Packets are split by DSCP into four streams. A is limited by dropping
// (a Meter sends everything above 7,500 packets/s to Discard); B is shaped
// (its Shaper lets at most 10,000 packets/s out of B's queue); C is limited
// by reclassification (above 12,500 packets/s a Meter re-marks the excess
// with D's code point and sends it to D's queue). A, B and C share the high
// priority level round-robin; D, best effort, gets what is left.
//
// Note that a Meter judges the whole stream: while the stream arrives
// faster than its rate, every packet goes to the Meter's second output.
//
// Network-independent: four RatedSources overload a 40,000 packets/s link
// (RatedUnqueue standing in for ToDevice; the figure's ARPQuerier, which
// would sit in front of the queues, is left out). By default A offers
// 5,000 packets/s, B 15,000, C 10,000 and D 20,000: 50,000 in all. Run it
// in simulated time (two simulated seconds; counts are per two seconds):
//
//   click --simtime conf/diffserv-fig15.click
//   click --simtime conf/diffserv-fig15.click RATEA=10000 RATEC=15000
//
// Expected, first run: A and C are under their meters and all get through
// (10,000 and 20,000), B is shaped to 10,000/s (20,000; the rest overflows
// its queue), and best effort D gets the remaining 15,000/s (30,000 of its
// 40,000). Second run: A is over 7,500/s and is dropped; C is over
// 12,500/s and is re-marked as best effort, competing with D for what the
// 10,000/s of B leave.

define($RATEA 5000, $RATEB 15000, $RATEC 10000, $RATED 20000, $TIME 2s);

srcA :: RatedSource(DATA \<45 28 00 2e 00 00 00 00 40 11 77 8c 01 00 00 0a 02 00 00 02 04 d2 16 2e 00 1a 00 00 64 69 66 66 73 65 72 76 20 74 72 61 66 66 69 63 21 21>, RATE $RATEA);
srcB :: RatedSource(DATA \<45 50 00 2e 00 00 00 00 40 11 77 5a 01 00 00 14 02 00 00 02 04 d2 16 2e 00 1a 00 00 64 69 66 66 73 65 72 76 20 74 72 61 66 66 69 63 21 21>, RATE $RATEB);
srcC :: RatedSource(DATA \<45 78 00 2e 00 00 00 00 40 11 77 28 01 00 00 1e 02 00 00 02 04 d2 16 2e 00 1a 00 00 64 69 66 66 73 65 72 76 20 74 72 61 66 66 69 63 21 21>, RATE $RATEC);
srcD :: RatedSource(DATA \<45 00 00 2e 00 00 00 00 40 11 77 96 01 00 00 28 02 00 00 02 04 d2 16 2e 00 1a 00 00 64 69 66 66 73 65 72 76 20 74 72 61 66 66 69 63 21 21>, RATE $RATED);

in :: MarkIPHeader;
srcA -> in; srcB -> in; srcC -> in; srcD -> in;

// A, B, C and D are DSCP 10, 20, 30 and 0 (best effort).
cl :: IPClassifier(ip dscp 10, ip dscp 20, ip dscp 30, -);
in -> cl;

// (A) limited by dropping
cl[0] -> mA :: Meter(7500);
mA[0] -> qA :: Queue(200);
mA[1] -> dropA :: Counter -> Discard;

// (B) shaped: excess packets wait in B's queue (and overflow it)
cl[1] -> qB :: Queue(200) -> Shaper(10000) -> outB :: Counter;

// (C) limited by reclassification into best effort
cl[2] -> mC :: Meter(12500);
mC[0] -> qC :: Queue(200);
mC[1] -> remarkC :: Counter -> SetIPDSCP(0) -> qD :: Queue(200);

// (D) best effort
cl[3] -> qD;

rr :: RoundRobinSched;
qA -> outA :: Counter -> [0]rr;
outB -> [1]rr;
qC -> outC :: Counter -> [2]rr;
ps :: PrioSched;
rr -> [0]ps;
qD -> outD :: Counter -> [1]ps;

// The link: 40,000 packets per second.
ps -> link :: RatedUnqueue(40000) -> sent :: Counter -> Discard;

DriverManager(wait $TIME,
    print "offered per stream:" $(srcA.count) $(srcB.count) $(srcC.count) $(srcD.count),
    print "A sent" $(outA.count) "metered out" $(dropA.count),
    print "B sent" $(outB.count) "queue drops" $(qB.drops),
    print "C sent" $(outC.count) "re-marked to D" $(remarkC.count),
    print "D sent" $(outD.count) "queue drops" $(qD.drops),
    print "link sent" $(sent.count),
    stop);
