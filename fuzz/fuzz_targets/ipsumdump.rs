//! FromIPSummaryDump on any file (text or binary summary dump): the input
//! is written to a file that FromIPSummaryDump reads, its packets going
//! through CheckIPHeader to ToIPSummaryDump and ToDump; a file it refuses fails the
//! build (fine); one it accepts runs to the end without a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let f = rclick_fuzz::scratch_file("in.ipsum");
    std::fs::write(&f, data).expect("write scratch file");
    let cfg = format!(
        "FromIPSummaryDump({}, STOP true, CHECKSUM true, ZERO true)
           -> t :: Tee -> c :: CheckIPHeader(VERBOSE false)
           -> ToIPSummaryDump(/dev/null, FIELDS ts ip_src ip_dst ip_len ip_proto ip_id ip_frag sport dport tcp_seq tcp_flags tcp_opt ip_opt payload);
         c[1] -> Discard;
         t[1] -> ToDump(/dev/null);",
        f.display()
    );
    rclick_fuzz::try_run_router(&cfg, Vec::new());
});
