// Two traffic classes share a 1 Mbit/s link: a strict-priority scheduler
// serves "voice" first, "bulk" takes what is left. RED keeps the bulk queue
// short. Runs in simulated time for 10 seconds and prints what got through.
//
//   cargo run --release --bin click -- --simtime conf/traffic-shaping.click

voice :: RatedSource(LENGTH 200, RATE 250)            // 400 kbit/s
    -> vc :: Counter
    -> vq :: Queue(100);
bulk :: RatedSource(LENGTH 1000, RATE 250)            // 2 Mbit/s offered
    -> bc :: Counter
    -> red :: RED(20, 80, 0.1)
    -> bq :: Queue(100);

vq -> [0] sched :: PrioSched;
bq -> [1] sched;
sched -> link :: BandwidthRatedUnqueue(1Mbps) -> out :: Counter -> Discard;

DriverManager(
    wait 10s,
    print "voice offered" $(vc.count) "queue drops" $(vq.drops),
    print "bulk offered" $(bc.count) "RED drops" $(red.drops) "queue drops" $(bq.drops),
    print "delivered" $(out.count) "packets," $(out.byte_count) "bytes",
    stop);
