//! One primitive of the pattern language (`src host 10.0.0.1`, `tcp
//! port www`, `ip[9] = 17`): checking its type against its data and
//! compiling it into tests of a [`Program`], as Click's IPFilter does.

use rclick_classify::{Combiner, Program, Tree, J_FAILURE, J_SUCCESS};

use super::vocab::*;

impl Primitive {
    pub(crate) fn set_type(&mut self, x: i32, errh: &mut Errors) {
        if self.type_ != 0 {
            errh.error("type specified twice");
        }
        self.type_ = x;
    }

    pub(crate) fn set_srcdst(&mut self, x: i32, errh: &mut Errors) {
        if self.srcdst != 0 {
            errh.error("'src' or 'dst' specified twice");
        }
        self.srcdst = x;
    }

    pub(crate) fn set_transp_proto(&mut self, x: i32, errh: &mut Errors) {
        if self.transp_proto != UNKNOWN && self.transp_proto != x {
            errh.error("transport protocol specified twice");
        }
        self.transp_proto = x;
    }

    pub(crate) fn type_error(&self, errh: &mut Errors, msg: &str) -> Result<(), ()> {
        errh.error(format!(
            "'{}': {}",
            unparse_type(self.srcdst, self.type_),
            msg
        ));
        Err(())
    }

    pub(crate) fn set_mask(
        &mut self,
        full_mask: u32,
        shift: u32,
        provided: u32,
        errh: &mut Errors,
    ) -> Result<(), ()> {
        let data = self.u;
        let this_mask = if provided != 0 { provided } else { full_mask };
        if this_mask & full_mask != this_mask {
            errh.error(format!(
                "'{}': mask out of range, bound 0x{:X}",
                unparse_type(self.srcdst, self.type_),
                full_mask
            ));
            return Err(());
        }
        let low = (1u32 << shift) - 1;
        if self.op == OP_GT || self.op == OP_LT {
            if (self.op == OP_LT && (data == 0 || data > this_mask))
                || (self.op == OP_GT && data >= this_mask)
            {
                let will_be = if self.op == OP_LT && data > this_mask {
                    !self.op_negated
                } else {
                    self.op_negated
                };
                // Click warns "relation ... is always true/false" here.
                self.u = 0;
                self.mask = 0;
                self.op_negated = !will_be;
                self.op = OP_EQ;
                return Ok(());
            }
            if self.op == OP_LT {
                self.u = self.u.wrapping_sub(1);
                self.op_negated = !self.op_negated;
                self.op = OP_GT;
            }
            self.u = (self.u << shift) | low;
            self.mask = (this_mask << shift) | low;
            if self.u & self.mask != self.u {
                let full_u = (full_mask << shift) | low;
                let missing = (self.u & self.mask) ^ (self.u & full_u);
                let add = u32::MAX.checked_shr(ffs_msb(missing)).unwrap_or(0);
                self.u = (self.u | add) & self.mask;
            }
            return Ok(());
        }
        if data > full_mask {
            errh.error(format!(
                "'{}': out of range, bound {}",
                unparse_type(self.srcdst, self.type_),
                full_mask
            ));
            return Err(());
        }
        self.u = data << shift;
        self.mask = this_mask << shift;
        Ok(())
    }

    pub(crate) fn check(
        &mut self,
        prev: &Primitive,
        mut header: u8,
        given: &GivenMask,
        errh: &mut Errors,
    ) -> Result<(), ()> {
        let old_srcdst = self.srcdst;
        if self.type_ < 0 {
            return Err(());
        }
        if self.type_ == 0 {
            loop {
                match self.data {
                    TYPE_HOST | TYPE_NET | TYPE_TCPOPT | TYPE_ETHER => {
                        self.type_ = self.data;
                        if self.srcdst == 0 {
                            self.srcdst = prev.srcdst;
                        }
                    }
                    TYPE_PROTO => self.type_ = TYPE_PROTO,
                    TYPE_PORT => {
                        self.type_ = TYPE_PORT;
                        if self.srcdst == 0 {
                            self.srcdst = prev.srcdst;
                        }
                        if self.transp_proto == UNKNOWN {
                            self.transp_proto = prev.transp_proto;
                        }
                    }
                    TYPE_INT => {
                        if prev.type_ & TYPE_FIELD == 0
                            && prev.type_ != TYPE_PROTO
                            && prev.type_ != TYPE_PORT
                        {
                            errh.error("specify header field or 'port'");
                            return Err(());
                        }
                        self.data = prev.type_;
                        continue;
                    }
                    TYPE_NONE => {
                        if self.transp_proto != UNKNOWN {
                            self.type_ = TYPE_PROTO;
                        } else {
                            errh.error("partial directive");
                            return Err(());
                        }
                    }
                    d => {
                        if d & TYPE_FIELD != 0 {
                            self.type_ = d;
                            if d & FIELD_PROTO_MASK != 0 && self.transp_proto == UNKNOWN {
                                self.transp_proto = (d & FIELD_PROTO_MASK) >> FIELD_PROTO_SHIFT;
                            }
                        } else {
                            errh.error(format!("unknown type '{}'", unparse_type(0, d)));
                            return Err(());
                        }
                    }
                }
                break;
            }
        }

        if header == 0 {
            header = if self.data == TYPE_ETHER { b'e' } else { b'i' };
        }
        if header == b'e' && self.type_ == TYPE_HOST {
            self.type_ = TYPE_ETHER;
        }
        let gm = if given.dt != 0 { given.u } else { 0 };

        match self.type_ {
            TYPE_HOST | TYPE_NET => {
                let is_net = self.type_ == TYPE_NET;
                if header != b'i' || self.data != self.type_ {
                    return self.type_error(errh, "address missing");
                }
                if self.op != OP_EQ {
                    return self.type_error(errh, "operator not supported");
                }
                if is_net {
                    self.type_ = TYPE_HOST;
                } else {
                    self.mask = u32::MAX;
                }
                match given.dt {
                    0 => {}
                    TYPE_HOST => self.mask = given.u,
                    // Click stores an integer mask in host order where the
                    // address is in network order.
                    TYPE_INT => self.mask = given.u.swap_bytes(),
                    _ => return self.type_error(errh, "bad mask"),
                }
            }
            TYPE_ETHER => {
                if header != b'e' || self.data != TYPE_ETHER {
                    return self.type_error(errh, "address missing");
                }
                if self.op != OP_EQ {
                    return self.type_error(errh, "operator not supported");
                }
                self.emask = [0xFF; 6];
                match given.dt {
                    0 => {}
                    TYPE_ETHER => self.emask = given.e,
                    _ => return self.type_error(errh, "bad mask"),
                }
            }
            TYPE_PROTO => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data == TYPE_INT || self.data == TYPE_PROTO {
                    if self.transp_proto != UNKNOWN && self.transp_proto != self.u as i32 {
                        return self.type_error(errh, "specified twice");
                    }
                    self.data = TYPE_NONE;
                } else {
                    self.u = self.transp_proto as u32;
                }
                self.transp_proto = UNKNOWN;
                if self.data != TYPE_NONE || self.u as i32 == UNKNOWN {
                    return self.type_error(errh, "value missing");
                }
                if self.u as i32 >= 256 {
                    if self.op != OP_EQ || given.dt != 0 {
                        errh.error(format!(
                            "'{}': operator or mask not supported",
                            unparse_transp_proto(self.u as i32)
                        ));
                        return Err(());
                    }
                    self.mask = 0xFF;
                } else if given.dt != 0 && given.dt != TYPE_INT {
                    return self.type_error(errh, "bad mask");
                } else {
                    self.set_mask(0xFF, 0, gm, errh)?;
                }
                if self.op == OP_EQ && self.mask == 0xFF && !self.op_negated {
                    self.transp_proto = self.u as i32;
                }
            }
            TYPE_PORT => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data == TYPE_INT {
                    self.data = TYPE_PORT;
                }
                if self.data != TYPE_PORT {
                    return self.type_error(errh, "value missing");
                }
                if self.transp_proto == UNKNOWN {
                    self.transp_proto = IP_PROTO_TCP_OR_UDP;
                } else if ![
                    IP_PROTO_TCP,
                    IP_PROTO_UDP,
                    IP_PROTO_TCP_OR_UDP,
                    IP_PROTO_DCCP,
                ]
                .contains(&self.transp_proto)
                {
                    errh.error(format!("'port': bad protocol {}", self.transp_proto));
                    return Err(());
                } else if given.dt != 0 && given.dt != TYPE_INT {
                    return self.type_error(errh, "bad mask");
                }
                self.set_mask(0xFFFF, 0, gm, errh)?;
            }
            TYPE_TCPOPT => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data == TYPE_INT {
                    self.data = TYPE_TCPOPT;
                }
                if self.data != TYPE_TCPOPT {
                    return self.type_error(errh, "value missing");
                }
                if self.transp_proto == UNKNOWN {
                    self.transp_proto = IP_PROTO_TCP;
                } else if self.transp_proto != IP_PROTO_TCP {
                    errh.error(format!("'tcp opt': bad protocol {}", self.transp_proto));
                    return Err(());
                }
                if self.op != OP_EQ || self.op_negated || given.dt != 0 {
                    return self.type_error(errh, "operator or mask not supported");
                }
                if self.u as i32 > 255 || (self.u as i32) < 0 {
                    errh.error(format!("'tcp opt': value {} out of range", self.u as i32));
                    return Err(());
                }
                self.mask = self.u;
            }
            TYPE_IPECT => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data != TYPE_NONE && self.data != TYPE_INT {
                    return self.type_error(errh, "value missing");
                }
                if self.data == TYPE_NONE {
                    self.mask = 3;
                    self.u = 0;
                    self.op_negated = true;
                } else if given.dt != 0 && given.dt != TYPE_INT {
                    return self.type_error(errh, "bad mask");
                }
                self.set_mask(0x3, 0, gm, errh)?;
                self.type_ = FIELD_TOS;
            }
            TYPE_IPCE => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data != TYPE_NONE || given.dt != 0 {
                    return self.type_error(errh, "value not supported");
                }
                self.mask = 3;
                self.u = 3;
                self.type_ = FIELD_TOS;
            }
            TYPE_IPFRAG | TYPE_IPUNFRAG => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data != TYPE_NONE || given.dt != 0 {
                    return self.type_error(errh, "value not supported");
                }
                if self.type_ == TYPE_IPUNFRAG {
                    self.op_negated = true;
                    self.type_ = TYPE_IPFRAG;
                }
                self.mask = 1;
            }
            t if t & TYPE_FIELD != 0 => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data != TYPE_INT && self.data != t {
                    return self.type_error(errh, "value missing");
                } else if given.dt != 0 && given.dt != TYPE_INT && given.dt != t {
                    return self.type_error(errh, "bad mask");
                }
                let nbits = (t & FIELD_LENGTH_MASK) + 1;
                let xmask = if nbits == 32 {
                    u32::MAX
                } else {
                    (1u32 << nbits) - 1
                };
                self.set_mask(xmask, 0, gm, errh)?;
            }
            _ => {}
        }

        if self.type_ == TYPE_HOST || self.type_ == TYPE_PORT || self.type_ == TYPE_ETHER {
            if self.srcdst == 0 {
                self.srcdst = SD_OR;
            }
        } else if old_srcdst != 0 {
            // Click warns "'src' or 'dst' ignored" here.
        }
        Ok(())
    }

    /// Adds `field & mask OP value` tests; `value`/`mask` are numeric.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn add_comparison(
        &self,
        p: &mut Program,
        tree: &mut Tree,
        offset: u32,
        shift: u32,
        u_in: u32,
        mask_in: u32,
        op_negate: bool,
    ) {
        let mut mask = mask_in;
        let mut u = u_in & mask;
        let off = offset;
        if self.op == OP_EQ {
            p.add_insn(tree, off, u.wrapping_shl(shift), mask.wrapping_shl(shift));
            if self.op_negated && op_negate {
                p.negate_subtree(tree, true);
            }
            return;
        }
        let mut record: u64 = 0;
        let mut count = 0;
        while u < mask {
            let high_bit = u > (mask >> 1);
            let x = if high_bit {
                !(u.wrapping_add(1)) & mask
            } else {
                u
            };
            let fdb = 33 - ffs_msb(x);
            let upper_mask = if fdb >= 32 {
                mask
            } else {
                mask & !((1u32 << fdb) - 1)
            };
            let upper_u = if high_bit { upper_mask } else { 0 };
            p.start_subtree(tree);
            p.add_insn(
                tree,
                off,
                upper_u.wrapping_shl(shift),
                upper_mask.wrapping_shl(shift),
            );
            if !high_bit {
                p.negate_subtree(tree, true);
            }
            record = (record << 1) | u64::from(high_bit);
            count += 1;
            mask &= !upper_mask;
            u &= mask;
            if upper_mask == 0 {
                break;
            }
        }
        while count > 0 {
            let c = if record & 1 != 0 {
                Combiner::And
            } else {
                Combiner::Or
            };
            p.finish_subtree(tree, c, J_SUCCESS, J_FAILURE);
            record >>= 1;
            count -= 1;
        }
        if self.op_negated && op_negate {
            p.negate_subtree(tree, true);
        }
    }

    pub(crate) fn compile(&self, p: &mut Program, tree: &mut Tree) {
        p.start_subtree(tree);
        if self.transp_proto != UNKNOWN {
            add_exprs_for_proto(self.transp_proto, p, tree);
        }
        let t = self.type_;
        if t == TYPE_PORT || t == TYPE_TCPOPT || (t & TYPE_FIELD != 0 && t & FIELD_PROTO_MASK != 0)
        {
            p.add_insn(tree, OFFSET_NET + 4, 0, 0x1FFF);
        }
        let finish_srcdst = |p: &mut Program, tree: &mut Tree, prim: &Primitive| {
            let c = if prim.srcdst == SD_OR {
                Combiner::Or
            } else {
                Combiner::And
            };
            p.finish_subtree(tree, c, J_SUCCESS, J_FAILURE);
            if prim.op_negated {
                p.negate_subtree(tree, true);
            }
        };
        let src = self.srcdst == SD_SRC || self.srcdst == SD_AND || self.srcdst == SD_OR;
        let dst = self.srcdst == SD_DST || self.srcdst == SD_AND || self.srcdst == SD_OR;
        match t {
            TYPE_HOST => {
                p.start_subtree(tree);
                if src {
                    self.add_comparison(p, tree, OFFSET_NET + 12, 0, self.u, self.mask, false);
                }
                if dst {
                    self.add_comparison(p, tree, OFFSET_NET + 16, 0, self.u, self.mask, false);
                }
                finish_srcdst(p, tree, self);
            }
            TYPE_ETHER => {
                let be = |b: [u8; 4]| u32::from_be_bytes(b);
                let (e, m) = (self.eu, self.emask);
                p.start_subtree(tree);
                if src {
                    p.start_subtree(tree);
                    self.add_comparison(
                        p,
                        tree,
                        OFFSET_MAC + 8,
                        0,
                        be([e[0], e[1], e[2], e[3]]),
                        be([m[0], m[1], m[2], m[3]]),
                        false,
                    );
                    self.add_comparison(
                        p,
                        tree,
                        OFFSET_MAC + 12,
                        0,
                        be([e[4], e[5], 0, 0]),
                        be([m[4], m[5], 0, 0]),
                        false,
                    );
                    p.finish_subtree(tree, Combiner::And, J_SUCCESS, J_FAILURE);
                }
                if dst {
                    p.start_subtree(tree);
                    self.add_comparison(
                        p,
                        tree,
                        OFFSET_MAC,
                        0,
                        be([0, 0, e[0], e[1]]),
                        be([0, 0, m[0], m[1]]),
                        false,
                    );
                    self.add_comparison(
                        p,
                        tree,
                        OFFSET_MAC + 4,
                        0,
                        be([e[2], e[3], e[4], e[5]]),
                        be([m[2], m[3], m[4], m[5]]),
                        false,
                    );
                    p.finish_subtree(tree, Combiner::And, J_SUCCESS, J_FAILURE);
                }
                finish_srcdst(p, tree, self);
            }
            TYPE_PROTO if self.transp_proto < 256 => {
                self.add_comparison(p, tree, OFFSET_NET + 8, 16, self.u, self.mask, true);
            }
            TYPE_IPFRAG => {
                p.add_insn(tree, OFFSET_NET + 4, 0, 0x3FFF);
                if !self.op_negated {
                    p.negate_subtree(tree, true);
                }
            }
            TYPE_PORT => {
                p.start_subtree(tree);
                if src {
                    self.add_comparison(p, tree, OFFSET_TRANSP, 16, self.u, self.mask, false);
                }
                if dst {
                    self.add_comparison(p, tree, OFFSET_TRANSP, 0, self.u, self.mask, false);
                }
                finish_srcdst(p, tree, self);
            }
            TYPE_TCPOPT => {
                p.add_insn(tree, OFFSET_TRANSP + 12, self.u << 16, self.mask << 16);
            }
            _ if t & TYPE_FIELD != 0 => {
                let offset = ((t & FIELD_OFFSET_MASK) >> FIELD_OFFSET_SHIFT) as u32;
                let length = ((t & FIELD_LENGTH_MASK) + 1) as u32;
                let word_offset = (offset >> 3) & !3;
                let bit_offset = offset & 0x1F;
                let base = if t & FIELD_PROTO_MASK != 0 {
                    OFFSET_TRANSP
                } else {
                    OFFSET_NET
                };
                let shift = 32u32.saturating_sub(bit_offset + length);
                self.add_comparison(p, tree, base + word_offset, shift, self.u, self.mask, true);
            }
            _ => {}
        }
        p.finish_subtree(tree, Combiner::And, J_SUCCESS, J_FAILURE);
    }
}

pub(crate) fn add_exprs_for_proto(proto: i32, p: &mut Program, tree: &mut Tree) {
    let off = OFFSET_NET + 8;
    if proto == IP_PROTO_TCP_OR_UDP {
        p.start_subtree(tree);
        p.add_insn(tree, off, (IP_PROTO_TCP as u32) << 16, 0x00FF_0000);
        p.add_insn(tree, off, (IP_PROTO_UDP as u32) << 16, 0x00FF_0000);
        p.finish_subtree(tree, Combiner::Or, J_SUCCESS, J_FAILURE);
    } else if proto >= 256 {
        // no test
    } else {
        p.add_insn(tree, off, ((proto as u32) & 0xFF) << 16, 0x00FF_0000);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_classify::{unparse_program, J_NEVER};

    /// Compiles `prim` alone as the one pattern of output 0.
    fn program(prim: &Primitive) -> String {
        let mut p = Program::new();
        let mut tree = p.init_subtree();
        p.start_subtree(&mut tree);
        p.start_subtree(&mut tree);
        prim.compile(&mut p, &mut tree);
        p.finish_subtree(&mut tree, Combiner::And, 0, J_FAILURE);
        p.finish_subtree(&mut tree, Combiner::Or, J_NEVER, J_NEVER);
        unparse_program(&p)
    }

    /// Checks `prim` as the parser does after reading its words (`i`:
    /// an IP header primitive), then compiles it.
    fn checked(mut prim: Primitive) -> Result<String, Vec<String>> {
        let mut errh = Errors::default();
        prim.check(
            &Primitive::default(),
            b'i',
            &GivenMask::default(),
            &mut errh,
        )
        .map_err(|()| errh.messages.clone())?;
        Ok(program(&prim))
    }

    #[test]
    fn protocol_primitive_tests_the_protocol_byte() {
        let text = checked(Primitive {
            type_: TYPE_PROTO,
            data: TYPE_PROTO,
            u: IP_PROTO_UDP as u32,
            ..Primitive::default()
        })
        .unwrap();
        assert!(text.contains("264/00110000%00ff0000"), "{text}");
    }

    #[test]
    fn port_primitive_needs_a_first_fragment_and_the_protocol() {
        let text = checked(Primitive {
            type_: TYPE_PORT,
            data: TYPE_INT,
            srcdst: SD_DST,
            transp_proto: IP_PROTO_TCP,
            u: 80,
            ..Primitive::default()
        })
        .unwrap();
        // the protocol, the fragment offset, then the destination port
        assert!(text.contains("264/00060000%00ff0000"), "{text}");
        assert!(text.contains("260/00000000%00001fff"), "{text}");
        assert!(text.contains("512/00000050%0000ffff"), "{text}");
    }

    #[test]
    fn a_port_too_large_is_an_error() {
        let e = checked(Primitive {
            type_: TYPE_PORT,
            data: TYPE_INT,
            transp_proto: IP_PROTO_TCP,
            u: 70000,
            ..Primitive::default()
        })
        .unwrap_err();
        assert!(!e.is_empty());
    }
}
