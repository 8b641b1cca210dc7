// The diffserv traffic conditioning block of the Click paper's Figure 19,
// used in Section 6.5: strict priority over three levels, with the high
// priority stream rate-limited to 30,000 packets per second by a Shaper.
//
// Network-independent: three RatedSources (high = DSCP 46, medium = DSCP
// 10, low = everything else) each offer $RATE packets per second to a
// 100,000 packets/s link (RatedUnqueue standing in for ToDevice; the
// figure's ARPQuerier, in front of the queues, is left out). Run it in
// simulated time (one simulated second):
//
//   click --simtime conf/diffserv-fig19.click            # 50,000/s each
//   click --simtime conf/diffserv-fig19.click RATE=20000
//
// Expected, as in the paper's Figure 20: high priority never gets more than
// 30,000/s, medium gets everything it offers as long as the link has room,
// low gets what is left: at 50,000/s each, 30,000 + 50,000 + 20,000. Below
// overload (20,000/s each) everything gets through.

define($RATE 50000, $TIME 1s);

RatedSource(DATA \<45 b8 00 2e 00 00 00 00 40 11 77 05 01 00 00 01 02 00 00 02 04 d2 16 2e 00 1a 00 00 64 69 66 66 73 65 72 76 20 74 72 61 66 66 69 63 21 21>, RATE $RATE)
    -> in :: MarkIPHeader;
RatedSource(DATA \<45 28 00 2e 00 00 00 00 40 11 77 94 01 00 00 02 02 00 00 02 04 d2 16 2e 00 1a 00 00 64 69 66 66 73 65 72 76 20 74 72 61 66 66 69 63 21 21>, RATE $RATE)
    -> in;
RatedSource(DATA \<45 00 00 2e 00 00 00 00 40 11 77 bb 01 00 00 03 02 00 00 02 04 d2 16 2e 00 1a 00 00 64 69 66 66 73 65 72 76 20 74 72 61 66 66 69 63 21 21>, RATE $RATE)
    -> in;

cl :: IPClassifier(ip dscp 46, ip dscp 10, -);
in -> cl;

ps :: PrioSched;
cl[0] -> hq :: Queue(200) -> Shaper(30000) -> high :: Counter -> [0]ps;
cl[1] -> mq :: Queue(200) -> medium :: Counter -> [1]ps;
cl[2] -> lq :: Queue(200) -> low :: Counter -> [2]ps;

ps -> RatedUnqueue(100000) -> Discard;

DriverManager(wait $TIME,
    print "forwarded: high" $(high.count) "medium" $(medium.count) "low" $(low.count),
    print "queue drops: high" $(hq.drops) "medium" $(mq.drops) "low" $(lq.drops),
    stop);
