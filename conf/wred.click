// Weighted RED, Figure 11 of the Click paper (section 4.2): a Classifier
// sorts packets by priority, and each priority class passes its own RED
// element, with its own thresholds and drop probability, in front of ONE
// shared Queue. Each RED finds that Queue by flow-based router context, so
// all three judge congestion by the same queue length; the low-priority RED
// starts dropping earliest and hardest, the high-priority one latest.
//
// Network-independent: three UDP flows to 10.0.1.1, distinguished by the
// DSCP in the IP TOS byte: high priority EF (TOS 0xb8, from 10.0.0.1),
// medium priority AF11 (TOS 0x28, from 10.0.0.2) and best effort (TOS 0,
// from 10.0.0.3), each offering $RATE packets/s, overload a $LINK
// packets/s link (RatedUnqueue standing in for ToDevice). Run it in
// simulated time (counts over $TIME):
//
//   click --simtime conf/wred.click
//
// Expected (defaults: 3 x 2,000 packets/s into 4,000 packets/s): the shared
// queue settles at the length where the three REDs together drop the
// excess; there the best-effort RED drops most of its class, the AF11 RED
// a little and the EF RED less still. The Queue itself never overflows.

define($RATE 2000, $LINK 4000, $TIME 4s);

srcH :: RatedSource(DATA \<45b8002e00000000401165060a0000010a00010104d2162e001a000066616972207175657565696e672074657374>, RATE $RATE);
srcM :: RatedSource(DATA \<4528002e00000000401165950a0000020a00010104d2162e001a000066616972207175657565696e672074657374>, RATE $RATE);
srcL :: RatedSource(DATA \<4500002e00000000401165bc0a0000030a00010104d2162e001a000066616972207175657565696e672074657374>, RATE $RATE);

// The router's input: all classes arrive mixed on one port.
in :: Null;
srcH -> in;  srcM -> in;  srcL -> in;

// Figure 11: classify on the DSCP (upper six bits of the TOS byte).
q :: Queue(300);

in -> cl :: Classifier(1/b8%fc, 1/28%fc, -);
cl[0] -> redH :: RED(60, 100, 0.02) -> q;   // high priority
cl[1] -> redM :: RED(40, 100, 0.05) -> q;   // medium priority
cl[2] -> redL :: RED(20, 60, 0.1) -> q;     // low priority

q -> RatedUnqueue($LINK)
    -> out :: Classifier(1/b8%fc, 1/28%fc, -);
out[0] -> sentH :: Counter -> Discard;
out[1] -> sentM :: Counter -> Discard;
out[2] -> sentL :: Counter -> Discard;

DriverManager(wait $TIME,
    print "offered H M L:" $(srcH.count) $(srcM.count) $(srcL.count),
    print "sent H M L:" $(sentH.count) $(sentM.count) $(sentL.count),
    print "RED drops H M L:" $(redH.drops) $(redM.drops) $(redL.drops),
    print "queue drops" $(q.drops),
    stop);
