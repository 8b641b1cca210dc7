//! The IP element group (Click's `elements/ip`, `elements/icmp` and the IP
//! parts of `elements/tcpudp`): header checks, address annotations, route
//! lookups, TTL and options processing, fragmentation, encapsulation, ICMP,
//! and the tcpdump-like IPClassifier and IPFilter.
#![forbid(unsafe_code)]

pub mod classifier;
mod divert;
mod fragment_batch;
pub mod icmp;
pub mod ip;
pub mod ip6;
pub mod tcpudp;

use rclick_core::Registry;

/// Registers every class of this group.
pub fn register(r: &mut Registry) {
    ip::register(r);
    ip6::register(r);
    icmp::register(r);
    classifier::register(r);
    tcpudp::register(r);
}

#[cfg(test)]
mod robustness {
    use crate::icmp::test_util::{hex_data, ip_packet, Mark};
    use rclick_core::testing;

    /// Garbage and truncated packets of every length, with and without an
    /// IP header annotation (of any declared length), through the classes
    /// of the ip and tcpudp groups added for Click compatibility (the
    /// icmp module's test covers its own): nothing may panic.
    #[test]
    fn garbage_never_panics() {
        let elems = [
            "IPInputCombo(1, INTERFACES 1.0.0.1/8)",
            "IPMirror",
            "SetIPECN(ce)",
            "TruncateIPPayload(1)",
            "TruncateIPPayload(0, false)",
            "DynamicUDPIPEncap(1.0.0.1, 1, 2.0.0.2, 2, true, 1)",
            "TCPFragmenter(MTU 24)",
            "IPOutputCombo(0, 1.0.0.1, 30)",
        ];
        let mut seeds: Vec<Vec<u8>> = Vec::new();
        for proto in [1u8, 6, 17, 47] {
            let base = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], proto, &[0x51; 40]);
            for n in 0..base.len() {
                seeds.push(base[..n].to_vec());
            }
            for ihl in [0x40u8, 0x44, 0x46, 0x4f, 0x5f] {
                let mut v = base.clone();
                v[0] = ihl;
                seeds.push(v.clone());
                v[2] = 0xff;
                seeds.push(v.clone());
                v[2] = 0;
                v[3] = 3;
                seeds.push(v);
            }
        }
        let reg = {
            let mut r = crate::ip::test_util::registry();
            r.add("TestMarkIP", || Box::<Mark>::default(), "");
            r
        };
        for e in elems {
            let sink = if e.starts_with("IPOutputCombo") {
                "r[0] -> Discard; r[1] -> Discard; r[2] -> Discard; r[3] -> Discard; r[4] -> Discard;"
            } else {
                "r -> Discard;"
            };
            let mut conf = format!("r :: {e}; {sink}\n");
            for (i, s) in seeds.iter().enumerate() {
                let mark = if i % 2 == 0 { "TestMarkIP" } else { "Null" };
                conf.push_str(&format!(
                    "InfiniteSource(DATA {}, LIMIT 2, STOP true) -> {mark} -> r;\n",
                    hex_data(s)
                ));
            }
            testing::run(&conf, &reg).unwrap_or_else(|err| panic!("{e}: {err}"));
        }
    }
}
