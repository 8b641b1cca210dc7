//! Click's analysis elements: IP summary dumps (the text format of Click's
//! test suite), aggregates, and timestamp manipulation.
use rclick_core::{Registry, Timestamp};

pub mod ipsumdump_fields;

mod adjust_timestamp;
mod aggregate_counter;
mod aggregate_filter;
mod aggregate_first;
mod aggregate_ip;
mod aggregate_ip_addr_pair;
mod aggregate_ip_flows;
mod aggregate_last;
mod aggregate_length;
mod aggregate_packet_counter;
mod aggregate_paint;
mod anonymize_ip_addr;
mod drop_counting;
mod erase_ip_payload;
mod from_ip_summary_dump;
mod random_sample;
mod set_timestamp;
mod set_timestamp_delta;
mod store_timestamp;
mod time_filter;
mod time_range;
mod time_sorted_sched;
mod to_ip_flow_dumps;
mod to_ip_summary_dump;

#[cfg(test)]
mod test_util;

pub use adjust_timestamp::AdjustTimestamp;
pub use aggregate_counter::AggregateCounter;
pub use aggregate_filter::AggregateFilter;
pub use aggregate_first::AggregateFirst;
pub use aggregate_ip::AggregateIP;
pub use aggregate_ip_addr_pair::AggregateIPAddrPair;
pub use aggregate_ip_flows::AggregateIPFlows;
pub use aggregate_last::AggregateLast;
pub(crate) use aggregate_length::AggregateLength;
pub use aggregate_packet_counter::AggregatePacketCounter;
pub use aggregate_paint::AggregatePaint;
pub use anonymize_ip_addr::AnonymizeIPAddr;
pub(crate) use erase_ip_payload::EraseIPPayload;
pub use from_ip_summary_dump::FromIPSummaryDump;
pub use random_sample::RandomSample;
pub use set_timestamp::SetTimestamp;
pub use set_timestamp_delta::SetTimestampDelta;
pub(crate) use store_timestamp::StoreTimestamp;
pub use time_filter::TimeFilter;
pub use time_range::TimeRange;
pub use time_sorted_sched::TimeSortedSched;
pub use to_ip_flow_dumps::ToIPFlowDumps;
pub use to_ip_summary_dump::ToIPSummaryDump;

/// Parses a (possibly negative or `+`-signed) time argument in seconds,
/// with an optional unit suffix `s`, `ms`, `us` or `ns`.
pub(crate) fn parse_time_arg(s: &str) -> Result<Timestamp, String> {
    let s = s.trim();
    let (num, scale) = if let Some(x) = s.strip_suffix("ms") {
        (x, 1_000_000i64)
    } else if let Some(x) = s.strip_suffix("us") {
        (x, 1_000)
    } else if let Some(x) = s.strip_suffix("ns") {
        (x, 1)
    } else if let Some(x) = s.strip_suffix("sec") {
        (x, 1_000_000_000)
    } else if let Some(x) = s.strip_suffix('s') {
        (x, 1_000_000_000)
    } else {
        (s, 1_000_000_000)
    };
    let t: Timestamp = num
        .trim()
        .parse()
        .map_err(|_| "expected timestamp".to_string())?;
    if scale == 1_000_000_000 {
        Ok(t)
    } else {
        // t was parsed as seconds; rescale
        Ok(Timestamp::from_nsec(
            (t.as_nsec() as i128 * scale as i128 / 1_000_000_000) as i64,
        ))
    }
}

/// Unparses a time like Click's `Timestamp::unparse`.
/// Click's EXTRA_PACKETS_ANNO: how many packets beyond itself a packet
/// stands for (AggregateLast, the summary dumps' `count` field), a `u32` at
/// this byte of the user annotation area, where Click keeps it.
pub(crate) const EXTRA_PACKETS_ANNO: usize = 24;

/// Checks a NOTIFIER argument of the aggregate elements: empty, or the
/// name of an element (Click's `does not name an element`); gives the
/// element's class.
pub(crate) fn notifier_class(
    name: &str,
    cx: &rclick_core::ConfigureCx,
) -> Result<Option<String>, String> {
    let name = name.trim();
    if name.is_empty() {
        return Ok(None);
    }
    match cx.find(name) {
        Some(id) => Ok(Some(cx.element_info(id).class.clone())),
        None => Err("NOTIFIER: does not name an element".into()),
    }
}

pub(crate) fn unparse_time(t: Timestamp) -> String {
    let mut s = String::new();
    ipsumdump_fields::write_timestamp(&mut s, t);
    s
}

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "FromIPSummaryDump",
        || Box::new(FromIPSummaryDump::default()),
        include_str!("from_ip_summary_dump.rs"),
    );
    r.add(
        "ToIPFlowDumps",
        || Box::new(ToIPFlowDumps::default()),
        include_str!("to_ip_flow_dumps.rs"),
    );
    r.add(
        "ToIPSummaryDump",
        || Box::new(ToIPSummaryDump::default()),
        include_str!("to_ip_summary_dump.rs"),
    );
    r.add(
        "AdjustTimestamp",
        || Box::new(AdjustTimestamp::default()),
        include_str!("adjust_timestamp.rs"),
    );
    r.add(
        "SetTimestamp",
        || Box::new(SetTimestamp::default()),
        include_str!("set_timestamp.rs"),
    );
    r.add(
        "SetTimestampDelta",
        || Box::new(SetTimestampDelta::default()),
        include_str!("set_timestamp_delta.rs"),
    );
    r.add(
        "RandomSample",
        || Box::new(RandomSample::default()),
        include_str!("random_sample.rs"),
    );
    r.add(
        "TimeFilter",
        || Box::new(TimeFilter::default()),
        include_str!("time_filter.rs"),
    );
    r.add(
        "TimeSortedSched",
        || Box::new(TimeSortedSched::default()),
        include_str!("time_sorted_sched.rs"),
    );
    r.add(
        "AggregateCounter",
        || Box::new(AggregateCounter::default()),
        include_str!("aggregate_counter.rs"),
    );
    r.add(
        "AggregateIPFlows",
        || Box::new(AggregateIPFlows::default()),
        include_str!("aggregate_ip_flows.rs"),
    );
    r.add(
        "AggregateLast",
        || Box::new(AggregateLast::default()),
        include_str!("aggregate_last.rs"),
    );
    r.add(
        "AggregatePacketCounter",
        || Box::new(AggregatePacketCounter::default()),
        include_str!("aggregate_packet_counter.rs"),
    );
    r.add(
        "AggregateIPAddrPair",
        || Box::new(AggregateIPAddrPair::default()),
        include_str!("aggregate_ip_addr_pair.rs"),
    );
    r.add(
        "AggregateLength",
        || Box::new(AggregateLength::default()),
        include_str!("aggregate_length.rs"),
    );
    r.add(
        "EraseIPPayload",
        || Box::new(EraseIPPayload::default()),
        include_str!("erase_ip_payload.rs"),
    );
    r.add(
        "TimeRange",
        || Box::new(TimeRange::default()),
        include_str!("time_range.rs"),
    );
    r.add(
        "StoreTimestamp",
        || Box::new(StoreTimestamp::default()),
        include_str!("store_timestamp.rs"),
    );
    r.add(
        "AggregateIP",
        || Box::new(AggregateIP::default()),
        include_str!("aggregate_ip.rs"),
    );
    r.add(
        "AggregatePaint",
        || Box::new(AggregatePaint::default()),
        include_str!("aggregate_paint.rs"),
    );
    r.add(
        "AggregateFirst",
        || Box::new(AggregateFirst::default()),
        include_str!("aggregate_first.rs"),
    );
    r.add(
        "AggregateFilter",
        || Box::new(AggregateFilter::default()),
        include_str!("aggregate_filter.rs"),
    );
    r.add(
        "AnonymizeIPAddr",
        || Box::new(AnonymizeIPAddr::default()),
        include_str!("anonymize_ip_addr.rs"),
    );
}

#[cfg(test)]
mod tests {
    use rclick_core::testing;

    fn registry() -> rclick_core::Registry {
        let mut r = rclick_core::Registry::new();
        crate::register(&mut r);
        rclick_elements_standard::register(&mut r);
        r
    }

    /// Refused packets (core's `divert_or_count`): output 1 when connected
    /// (nothing counted), else counted.
    #[test]
    fn refused_packets_take_output_1_or_are_counted() {
        let r = testing::run(
            "InfiniteSource(DATA \\<00 11 22>, LIMIT 3, STOP true) -> a :: AggregateIP(ip ttl)
             -> Discard;
             a[1] -> c :: Counter -> Discard;
             InfiniteSource(DATA \\<00 11 22>, LIMIT 2) -> b :: AggregateFirst -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "a.drops"), "0");
        // the first packet of aggregate 0 passes
        assert_eq!(testing::read(&r, "b.drops"), "1");
    }

    fn dir(name: &str) -> std::path::PathBuf {
        let d =
            std::env::temp_dir().join(format!("rclick-analysis-mod-{}-{name}", std::process::id()));
        let _ = std::fs::create_dir_all(&d);
        d
    }

    fn data_lines(path: &std::path::Path) -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('!'))
            .map(String::from)
            .collect()
    }

    #[test]
    fn adjust_and_sorted_merge() {
        let d = dir("sorted");
        std::fs::write(d.join("a"), "!data timestamp\n0.1\n1.0\n5.5\n").unwrap();
        std::fs::write(d.join("b"), "!data timestamp\n0.3\n0.8\n").unwrap();
        let out = d.join("out");
        let conf = format!(
            "a::FromIPSummaryDump({a}); b::FromIPSummaryDump({b});
             a -> t::TimeSortedSched(STOP true) -> AdjustTimestamp(+1) -> ToIPSummaryDump({o}, FIELDS timestamp);
             b -> [1]t;",
            a = d.join("a").display(),
            b = d.join("b").display(),
            o = out.display()
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(
            data_lines(&out),
            ["1.100000", "1.300000", "1.800000", "2.000000", "6.500000"]
        );
        assert_eq!(testing::read(&r, "t.well_ordered"), "true");
    }

    #[test]
    fn aggregate_flows_and_counter() {
        let d = dir("agg");
        std::fs::write(
            d.join("in"),
            "!data src sport dst dport proto\n1.0.0.1 1 2.0.0.2 2 T\n2.0.0.2 2 1.0.0.1 1 T\n1.0.0.1 5 2.0.0.2 2 U\n",
        )
        .unwrap();
        let out = d.join("out");
        let conf = format!(
            "FromIPSummaryDump({i}, STOP true) -> SetTimestamp(1) -> AggregateIPFlows
               -> c::AggregateCounter -> ToIPSummaryDump({o}, FIELDS aggregate link);",
            i = d.join("in").display(),
            o = out.display()
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(data_lines(&out), ["1 0", "1 1", "2 0"]);
        assert_eq!(testing::read(&r, "c.nagg"), "2");
        assert_eq!(testing::read(&r, "c.count"), "3");
    }

    #[test]
    fn time_filter_and_sample() {
        let d = dir("tf");
        std::fs::write(d.join("in"), "!data timestamp\n0.5\n1.5\n2.5\n3.5\n").unwrap();
        let conf = format!(
            "FromIPSummaryDump({i}, STOP true) -> TimeFilter(1, 3) -> RandomSample(1) -> c::Counter -> Discard;",
            i = d.join("in").display()
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(testing::read(&r, "c.count"), "2");
        assert!(testing::build(
            "TimeFilter(1, END_AFTER 2, END 3) -> Discard;",
            &registry(),
            true
        )
        .is_err());
        assert!(testing::build("Idle -> RandomSample(2) -> Discard;", &registry(), true).is_err());
    }
}
