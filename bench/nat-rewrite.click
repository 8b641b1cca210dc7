// NAT of random UDP/IPv4 headers with a fixed source address and port:
// up to 65,536 flows (destination ports), so both new flows and lookups
// of known ones. `rclick bench bench/nat-rewrite.click`, or under
// `valgrind --tool=callgrind target/release/click bench/nat-rewrite.click`
// for instruction counts that do not depend on what else the machine does.
define($N 200000);
src :: RandomSource(LENGTH 28, LIMIT $N, STOP true)
  -> StoreData(0, \<45 00 00 1c 00 00 00 00 40 11 00 00 c0 00 02 02 c6 33 64 02 04 00>)
  -> MarkIPHeader
  -> rw :: IPRewriter(pattern 203.0.113.1 1024-65535 - - 0 0)
  -> d :: Discard;
