//! FromDump on any file: the input is written to a file that
//! `FromDump(FILE, STOP true, FORCE_IP true)` reads (its IP packets on to
//! ToIPSummaryDump, the rest to ToDump); a file it refuses fails the build
//! (fine); one it accepts runs to the end without a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let f = rclick_fuzz::scratch_file("in.pcap");
    std::fs::write(&f, data).expect("write scratch file");
    let cfg = format!(
        "fd :: FromDump({}, STOP true, FORCE_IP true, TIMING false);
         fd[0] -> ToIPSummaryDump(/dev/null, FIELDS ts ip_src ip_dst ip_len ip_proto sport dport ip_opt tcp_opt payload_len);
         fd[1] -> ToDump(/dev/null);",
        f.display()
    );
    rclick_fuzz::try_run_router(&cfg, Vec::new());
});
