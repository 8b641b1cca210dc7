//! A NAT (`rclick_fuzz::NAT_CONFIG`: IPRewriter, FTPPortMapper,
//! ICMPPingRewriter, ICMPRewriter, TCPRewriter, UDPRewriter,
//! IPAddrRewriter) fed the input's frames on its inside and outside
//! interfaces, in simulated time: no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rclick_fuzz::feed_router(rclick_fuzz::NAT_CONFIG, rclick_fuzz::frames(data));
});
