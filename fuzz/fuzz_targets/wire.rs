//! Every header view of rclick-wire on any bytes: `new_checked` either
//! fails or gives a view none of whose accessors panics; setters and
//! checksum fills work on what it accepted; a representation parsed from
//! a view emits a header that parses to the same representation. Each
//! view is tried at the start of the input and, for the headers that
//! follow a link header, after 14 bytes; IPv4 and IPv6 payloads are tried
//! as TCP, UDP and ICMP.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rclick_wire::*;

fn ethernet(b: &[u8]) {
    let Ok(f) = EthernetFrame::new_checked(b) else {
        return;
    };
    let (d, s, t) = (f.dst_addr(), f.src_addr(), f.ethertype());
    let _ = (
        d.is_broadcast(),
        d.is_multicast(),
        d.is_unicast(),
        d.is_local(),
    );
    let _ = (
        d.to_string(),
        s.colon().to_string(),
        t.to_string(),
        f.payload().len(),
    );
    if let Ok(r) = EthernetRepr::parse(&f) {
        let mut buf = b.to_vec();
        let mut g = EthernetFrame::new_checked(&mut buf[..]).expect("same length");
        r.emit(&mut g);
        g.set_src_addr(d);
        g.set_dst_addr(s);
        g.set_ethertype(t);
        let _ = g.payload_mut().len();
        assert_eq!(
            EthernetRepr::parse(&EthernetFrame::new_checked(&buf[..]).unwrap())
                .unwrap()
                .ethertype,
            r.ethertype
        );
    }
}

fn arp(b: &[u8]) {
    let Ok(p) = arp::ArpPacket::new_checked(b) else {
        return;
    };
    let _ = (
        p.hardware_type(),
        p.protocol_type(),
        p.hardware_len(),
        p.protocol_len(),
    );
    let _ = (p.is_ethernet_ipv4(), p.operation().to_string());
    if p.is_ethernet_ipv4() {
        let _ = (p.sender_hardware_addr(), p.sender_protocol_addr());
        let _ = (p.target_hardware_addr(), p.target_protocol_addr());
    }
    if let Ok(r) = arp::ArpRepr::parse(&p) {
        let mut buf = vec![0u8; b.len().max(28)];
        let mut q = arp::ArpPacket::new_checked(&mut buf[..]).expect("28 bytes");
        r.emit(&mut q);
        let q = arp::ArpPacket::new_checked(&buf[..]).unwrap();
        assert_eq!(arp::ArpRepr::parse(&q).unwrap(), r);
    }
}

fn vlan(b: &[u8]) {
    let Ok(t) = vlan::VlanTag::new_checked(b) else {
        return;
    };
    let _ = (
        t.tci(),
        t.pcp(),
        t.dei(),
        t.vid(),
        t.ethertype(),
        t.payload().len(),
    );
    if let Ok(r) = vlan::VlanRepr::parse(&t) {
        let _ = r.tci();
        let mut buf = b.to_vec();
        let mut u = vlan::VlanTag::new_checked(&mut buf[..]).unwrap();
        r.emit(&mut u);
        u.set_pcp(t.pcp());
        u.set_dei(t.dei());
        u.set_vid(t.vid());
        assert_eq!(
            vlan::VlanRepr::parse(&vlan::VlanTag::new_checked(&buf[..]).unwrap()).unwrap(),
            r
        );
    }
    let _ = mac_control::MacControlPacket::new_checked(b).map(|m| (m.opcode(), m.param()));
}

fn tcp<A: checksum::PseudoHeader + Copy>(b: &[u8], src: A, dst: A) {
    let Ok(t) = TcpPacket::new_checked(b) else {
        return;
    };
    let _ = (
        t.src_port(),
        t.dst_port(),
        t.seq_number(),
        t.ack_number(),
        t.header_len(),
    );
    let _ = (
        t.flags(),
        t.fin(),
        t.syn(),
        t.rst(),
        t.psh(),
        t.ack(),
        t.urg(),
        t.ece(),
        t.cwr(),
    );
    let _ = (
        t.window_len(),
        t.checksum(),
        t.urgent_at(),
        t.options().len(),
        t.payload().len(),
    );
    let _ = (t.segment_len(), t.verify_checksum(src, dst));
    let mut buf = b.to_vec();
    let mut u = TcpPacket::new_checked(&mut buf[..]).unwrap();
    u.set_flags(t.flags());
    u.set_syn(true);
    u.set_header_len(t.header_len());
    let _ = (u.options_mut().len(), u.payload_mut().len());
    u.fill_checksum(src, dst);
    assert!(u.verify_checksum(src, dst));
}

fn udp<A: checksum::PseudoHeader + Copy + std::fmt::Debug>(b: &[u8], src: A, dst: A) {
    let Ok(u) = UdpPacket::new_checked(b) else {
        return;
    };
    let _ = (
        u.src_port(),
        u.dst_port(),
        u.len(),
        u.is_empty(),
        u.checksum(),
    );
    let _ = (u.payload().len(), u.verify_checksum(src, dst));
    let mut buf = b.to_vec();
    let mut v = UdpPacket::new_checked(&mut buf[..]).unwrap();
    let _ = v.payload_mut().len();
    v.fill_checksum(src, dst);
    assert!(v.verify_checksum(src, dst));
    let v = UdpPacket::new_checked(&buf[..]).unwrap();
    if let Ok(r) = udp::UdpRepr::parse(&v, src, dst, true) {
        let mut out = vec![0u8; r.buffer_len() + r.payload_len];
        out[r.buffer_len()..].copy_from_slice(&v.payload()[..r.payload_len]);
        let mut w = UdpPacket::new_unchecked(&mut out[..]);
        r.emit(&mut w, src, dst);
        let w = UdpPacket::new_checked(&out[..]).expect("emitted header checks");
        assert_eq!(
            udp::UdpRepr::parse(&w, src, dst, true).expect("emitted header parses"),
            r
        );
    }
}

fn icmp(b: &[u8]) {
    let Ok(p) = IcmpPacket::new_checked(b) else {
        return;
    };
    let _ = (
        p.icmp_type(),
        p.code(),
        p.checksum(),
        p.rest_of_header(),
        p.echo_ident(),
    );
    let _ = (
        p.echo_seq_no(),
        p.pointer(),
        p.gateway(),
        p.next_hop_mtu(),
        p.data().len(),
    );
    let _ = (
        icmp::type_name(p.icmp_type()),
        icmp::code_name(p.icmp_type(), p.code()),
    );
    let _ = icmp::is_error(p.icmp_type());
    let ok = p.verify_checksum();
    if let Ok(r) = IcmpRepr::parse(&p, ok) {
        let mut buf = b.to_vec();
        let mut q = IcmpPacket::new_checked(&mut buf[..]).unwrap();
        r.emit(&mut q);
        let _ = q.data_mut().len();
        q.fill_checksum();
        let q = IcmpPacket::new_checked(&buf[..]).unwrap();
        assert!(q.verify_checksum());
        assert_eq!(IcmpRepr::parse(&q, true).unwrap(), r);
    }
}

fn ipv4(b: &[u8]) {
    let Ok(p) = Ipv4Packet::new_checked(b) else {
        return;
    };
    let _ = (
        p.version(),
        p.header_len(),
        p.tos(),
        p.dscp(),
        p.ecn(),
        p.total_len(),
        p.ident(),
    );
    let _ = (
        p.flags_frag_offset(),
        p.reserved_flag(),
        p.dont_frag(),
        p.more_frags(),
    );
    let _ = (
        p.frag_offset(),
        p.is_fragment(),
        p.ttl(),
        p.protocol().to_string(),
        p.checksum(),
    );
    let _ = (
        p.header().len(),
        p.options().len(),
        p.verify_checksum(),
        p.compute_checksum(),
    );
    for (off, opt) in p.options_iter().take(64).flatten() {
        assert!(off < 60);
        let _ = opt.kind();
    }
    let _ = Ipv4OptionIter::new(p.options()).validate();
    let (src, dst) = (p.src_addr(), p.dst_addr());
    tcp(p.payload(), src, dst);
    udp(p.payload(), src, dst);
    icmp(p.payload());
    let mut buf = b.to_vec();
    let mut q = Ipv4Packet::new_checked(&mut buf[..]).unwrap();
    q.set_ttl(p.ttl().max(2));
    let _ = q.dec_ttl_update_checksum();
    q.set_ecn(3);
    q.set_dscp(p.dscp());
    q.set_dont_frag(true);
    q.set_more_frags(p.more_frags());
    q.set_frag_offset(p.frag_offset());
    let _ = (q.options_mut().len(), q.payload_mut().len());
    q.fill_checksum();
    assert!(q.verify_checksum());
    if let Ok(r) = Ipv4Repr::parse(&p, false) {
        let mut out = vec![0u8; r.buffer_len() + r.payload_len];
        let mut w = Ipv4Packet::new_unchecked(&mut out[..]);
        r.emit(&mut w);
        let w = Ipv4Packet::new_checked(&out[..]).expect("emitted header checks");
        let again = Ipv4Repr::parse(&w, true).expect("emitted header parses");
        assert_eq!(again, r);
    }
}

fn ipv6(b: &[u8]) {
    let Ok(p) = Ipv6Packet::new_checked(b) else {
        return;
    };
    let _ = (
        p.version(),
        p.traffic_class(),
        p.flow_label(),
        p.payload_len(),
    );
    let _ = (p.next_header(), p.hop_limit(), p.payload().len());
    let (src, dst) = (p.src_addr(), p.dst_addr());
    tcp(p.payload(), src, dst);
    udp(p.payload(), src, dst);
    if let Ok(m) = icmpv6::Icmpv6Packet::new_checked(p.payload()) {
        let _ = (
            m.msg_type(),
            m.code(),
            m.checksum(),
            m.data_field(),
            m.body().len(),
        );
        let _ = m.verify_checksum(src, dst);
        let mut buf = p.payload().to_vec();
        let mut n = icmpv6::Icmpv6Packet::new_checked(&mut buf[..]).unwrap();
        let _ = n.body_mut().len();
        n.fill_checksum(src, dst);
        assert!(icmpv6::Icmpv6Packet::new_checked(&buf[..])
            .unwrap()
            .verify_checksum(src, dst));
    }
    if let Ok(r) = Ipv6Repr::parse(&p) {
        let mut out = vec![0u8; r.buffer_len() + r.payload_len];
        let mut w = Ipv6Packet::new_unchecked(&mut out[..]);
        r.emit(&mut w);
        let w = Ipv6Packet::new_checked(&out[..]).expect("emitted header checks");
        assert_eq!(Ipv6Repr::parse(&w).expect("emitted header parses"), r);
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = checksum::sum(data);
    let _ = checksum::verify(data);
    for b in [data, data.get(14..).unwrap_or(&[])] {
        ethernet(b);
        arp(b);
        vlan(b);
        ipv4(b);
        ipv6(b);
        icmp(b);
    }
});
