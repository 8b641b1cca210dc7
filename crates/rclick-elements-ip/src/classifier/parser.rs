//! The tcpdump-like pattern language of IPFilter and IPClassifier, compiled
//! into a [`Program`] the way Click's IPFilter does it.
//!
//! Fake offsets: 0..255 address the link header (offset 2 is the first MAC
//! header byte), 256..511 the IP header, 512.. the transport header.

use std::net::Ipv4Addr;

use rclick_core::args::{ArgContext, EtherAddr, FromArg, IpPrefix};

use rclick_classify::{Combiner, Program, Tree, ZProgram, J_FAILURE, J_NEVER, J_SUCCESS};

use super::vocab::*;

/// Splits pattern text into words the way Click's IPFilter does.
pub fn separate_text(text: &str) -> Vec<String> {
    let s = text.as_bytes();
    let len = s.len();
    let mut words = Vec::new();
    let mut pos = 0;
    while pos < len {
        while pos < len && s[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos >= len {
            break;
        }
        let c = s[pos];
        let two = match c {
            b'&' | b'|' => pos + 1 < len && s[pos + 1] == c,
            b'<' | b'>' | b'!' | b'=' => pos + 1 < len && s[pos + 1] == b'=',
            _ => false,
        };
        let one = matches!(
            c,
            b'&' | b'|'
                | b'<'
                | b'>'
                | b'!'
                | b'='
                | b'('
                | b')'
                | b'['
                | b']'
                | b','
                | b';'
                | b'?'
        );
        if two {
            words.push(text[pos..pos + 2].to_string());
            pos += 2;
        } else if one {
            words.push(text[pos..pos + 1].to_string());
            pos += 1;
        } else {
            let first = pos;
            while pos < len
                && (s[pos].is_ascii_alphanumeric()
                    || matches!(s[pos], b'-' | b'.' | b'/' | b'@' | b'_' | b':'))
            {
                pos += 1;
            }
            if pos == first {
                // skip one (possibly multi-byte) character
                pos += text[pos..].chars().next().map_or(1, char::len_utf8);
            }
            words.push(text[first..pos].to_string());
        }
    }
    words
}

struct Parser<'a> {
    words: &'a [String],
    tree: &'a mut Tree,
    prog: &'a mut Program,
    ctx: &'a dyn ArgContext,
    errh: &'a mut Errors,
    prev: Primitive,
}

const S_EXPR0: u8 = 0;
const S_EXPR1: u8 = 1;
const S_EXPR2: u8 = 2;
const S_OREXPR0: u8 = 3;
const S_OREXPR1: u8 = 4;
const S_TERM0: u8 = 5;
const S_TERM1: u8 = 6;
const S_TERM2: u8 = 7;
const S_FACTOR0: u8 = 8;
const S_FACTOR1: u8 = 9;
const S_FACTOR2: u8 = 10;
const S_FACTOR0_NEG: u8 = 11;
const S_FACTOR1_NEG: u8 = 12;
const S_FACTOR2_NEG: u8 = 13;

impl<'a> Parser<'a> {
    fn word(&self, pos: usize) -> Option<&'a str> {
        self.words.get(pos).map(String::as_str)
    }

    fn parse_expr(&mut self, mut pos: usize) -> usize {
        // (state, last_pos)
        let mut stk: Vec<(u8, usize)> = vec![(S_EXPR0, 0)];
        while let Some(&(state, last_pos)) = stk.last() {
            let top = stk.len() - 1;
            let mut new_state: Option<u8> = None;
            match state {
                S_EXPR0 => {
                    self.prog.start_subtree(self.tree);
                    stk[top].0 = S_EXPR1;
                    new_state = Some(S_OREXPR0);
                }
                S_EXPR1 | S_EXPR2 => {
                    let mut finish = false;
                    if state == S_EXPR1 {
                        if self.word(pos) != Some("?") {
                            finish = true;
                        } else {
                            pos += 1;
                            stk[top].0 = S_EXPR2;
                            new_state = Some(S_EXPR0);
                        }
                    } else if pos == last_pos || self.word(pos) != Some(":") {
                        self.errh.error("missing ':' in ternary expression");
                        finish = true;
                    } else {
                        pos += 1;
                        stk[top].0 = S_EXPR1;
                        new_state = Some(S_OREXPR0);
                    }
                    if finish {
                        self.prog.finish_subtree(
                            self.tree,
                            Combiner::Ternary,
                            J_SUCCESS,
                            J_FAILURE,
                        );
                    }
                }
                S_OREXPR0 => {
                    self.prog.start_subtree(self.tree);
                    stk[top].0 = S_OREXPR1;
                    new_state = Some(S_TERM0);
                }
                S_OREXPR1 => {
                    if matches!(self.word(pos), Some("or") | Some("||")) {
                        pos += 1;
                        new_state = Some(S_TERM0);
                    } else {
                        self.prog
                            .finish_subtree(self.tree, Combiner::Or, J_SUCCESS, J_FAILURE);
                    }
                }
                S_TERM0 => {
                    self.prog.start_subtree(self.tree);
                    stk[top].0 = S_TERM1;
                    new_state = Some(S_FACTOR0);
                }
                S_TERM1 | S_TERM2 => {
                    if pos == last_pos {
                        if state == S_TERM1 {
                            self.errh.error("missing expression");
                        }
                        self.prog
                            .finish_subtree(self.tree, Combiner::And, J_SUCCESS, J_FAILURE);
                    } else {
                        if matches!(self.word(pos), Some("and") | Some("&&")) {
                            stk[top].0 = S_TERM1;
                            pos += 1;
                        } else {
                            stk[top].0 = S_TERM2;
                        }
                        new_state = Some(S_FACTOR0);
                    }
                }
                S_FACTOR0 | S_FACTOR0_NEG => {
                    let w = self.word(pos);
                    if matches!(w, Some("not") | Some("!")) {
                        stk[top].0 = state + 1;
                        new_state = Some(if state == S_FACTOR0 {
                            S_FACTOR0_NEG
                        } else {
                            S_FACTOR0
                        });
                        pos += 1;
                    } else if w == Some("(") {
                        stk[top].0 = state + 2;
                        new_state = Some(S_EXPR0);
                        pos += 1;
                    } else {
                        pos = self.parse_test(pos, state == S_FACTOR0_NEG);
                    }
                }
                S_FACTOR1 | S_FACTOR1_NEG => {
                    if pos == last_pos {
                        let w = self.words[pos - 1].clone();
                        self.errh.error(format!("missing expression after '{w}'"));
                    }
                }
                _ => {
                    // S_FACTOR2 | S_FACTOR2_NEG
                    if pos == last_pos {
                        self.errh.error("missing expression after '('");
                    }
                    if self.word(pos) == Some(")") {
                        pos += 1;
                    } else if pos != last_pos {
                        self.errh.error("missing ')'");
                    }
                    if state == S_FACTOR2_NEG {
                        self.prog.negate_subtree(self.tree, false);
                    }
                }
            }
            match new_state {
                Some(ns) => {
                    stk[top].1 = pos;
                    stk.push((ns, 0));
                }
                None => {
                    stk.pop();
                }
            }
        }
        let _ = (S_FACTOR1, S_FACTOR2);
        pos
    }

    fn parse_brackets(&mut self, prim: &mut Primitive, mut pos: usize) -> usize {
        let first_pos = pos + 1;
        let mut comb = String::new();
        pos += 1;
        while pos < self.words.len() && self.words[pos] != "]" {
            comb.push_str(&self.words[pos]);
            pos += 1;
        }
        if pos >= self.words.len() {
            self.errh.error("missing ']'");
            return first_pos;
        }
        pos += 1;
        let parsed = if let Some((a, b)) = comb.split_once(':').filter(|(_, b)| !b.is_empty()) {
            parse_int(a).zip(parse_int(b))
        } else if let Some((a, b)) = comb.split_once(',').filter(|(_, b)| !b.is_empty()) {
            parse_int(a)
                .zip(parse_int(b))
                .map(|(f, l)| (f, l.wrapping_sub(f).wrapping_add(1)))
        } else {
            parse_int(&comb).map(|f| (f, 1))
        };
        let Some((fieldpos, len)) = parsed else {
            self.errh
                .error("syntax error after '[', expected '[POS]' or '[POS:LEN]'");
            return pos;
        };
        let (fp, l) = (i64::from(fieldpos) * 8, i64::from(len) * 8);
        if !(1..=32).contains(&l) {
            self.errh
                .error("LEN in '[POS:LEN]' out of range, should be between 1 and 4");
        } else if (fp & !31) != ((fp + l - 1) & !31) || !(0..=0xFFFF).contains(&fp) {
            self.errh.error(format!(
                "field [{fieldpos}:{len}] does not fit in a single word"
            ));
        } else {
            let transp = if prim.transp_proto == UNKNOWN {
                0
            } else {
                prim.transp_proto
            };
            let t = TYPE_FIELD
                | ((transp & 0x1FF) << FIELD_PROTO_SHIFT)
                | ((fp as i32) << FIELD_OFFSET_SHIFT)
                | ((l as i32) - 1);
            prim.set_type(t, self.errh);
        }
        pos
    }

    fn parse_test(&mut self, mut pos: usize, mut negated: bool) -> usize {
        let n = self.words.len();
        let Some(first_word) = self.word(pos) else {
            return pos;
        };
        if matches!(first_word, ")" | "||" | "or" | "?" | ":") {
            return pos;
        }
        if first_word == "true" || first_word == "false" {
            self.prog.add_insn(self.tree, 0, 0, 0);
            if negated == (first_word == "true") {
                self.prog.negate_subtree(self.tree, false);
            }
            return pos + 1;
        }

        // `ip6` terms (not in Click), after any number of `not`s.
        let mut q = pos;
        let mut neg6 = negated;
        while matches!(self.word(q), Some("not" | "!")) {
            neg6 = !neg6;
            q += 1;
        }
        if self.word(q) == Some("ip6") {
            return self.parse_ip6_test(q + 1, neg6);
        }

        let first_pos = pos;
        let mut prim = Primitive::default();
        let mut header: u8 = 0;
        while pos < n {
            let wd = self.words[pos].as_str();
            match lookup(wd, 0, UNKNOWN, self.ctx, None) {
                Ok(Some((TYPE_TYPE, d))) => {
                    let d = d as i32;
                    prim.set_type(d, self.errh);
                    if d & TYPE_FIELD != 0 && d & FIELD_PROTO_MASK != 0 {
                        prim.set_transp_proto(
                            (d & FIELD_PROTO_MASK) >> FIELD_PROTO_SHIFT,
                            self.errh,
                        );
                    }
                }
                Ok(Some((TYPE_PROTO, d))) => prim.set_transp_proto(d as i32, self.errh),
                Ok(Some(_)) | Err(()) => break,
                Ok(None) => {
                    if wd == "src" {
                        let next2 = self.word(pos + 2);
                        if pos + 2 < n && matches!(next2, Some("dst") | Some("dest")) {
                            match self.word(pos + 1) {
                                Some("and") | Some("&&") => {
                                    prim.set_srcdst(SD_AND, self.errh);
                                    pos += 2;
                                }
                                Some("or") | Some("||") => {
                                    prim.set_srcdst(SD_OR, self.errh);
                                    pos += 2;
                                }
                                _ => prim.set_srcdst(SD_SRC, self.errh),
                            }
                        } else {
                            prim.set_srcdst(SD_SRC, self.errh);
                        }
                    } else if wd == "dst" || wd == "dest" {
                        prim.set_srcdst(SD_DST, self.errh);
                    } else if wd == "ip" || wd == "ether" {
                        if header != 0 {
                            break;
                        }
                        header = wd.as_bytes()[0];
                    } else if wd == "not" || wd == "!" {
                        negated = !negated;
                    } else {
                        break;
                    }
                }
            }
            pos += 1;
        }

        if pos != first_pos {
            self.prev = Primitive::default();
        }
        if self.prev.data == TYPE_ETHER {
            header = b'e';
        }

        let peek = |pos: usize| -> String {
            if pos + 1 >= n {
                String::new()
            } else {
                self.words[pos].clone()
            }
        };
        let mut wd = peek(pos);
        if wd == "[" && pos > first_pos && prim.type_ == TYPE_NONE {
            pos = self.parse_brackets(&mut prim, pos);
            wd = peek(pos);
        }

        let mut given = GivenMask::default();
        if wd == "&" && pos + 1 < n {
            let m = self.words[pos + 1].as_str();
            if let Some(v) = parse_uint(m) {
                given.dt = TYPE_INT;
                given.u = v;
                pos += 2;
            } else if let (true, Ok(a)) =
                (header != b'e', <Ipv4Addr as FromArg>::from_arg(m, self.ctx))
            {
                given.dt = TYPE_HOST;
                given.u = u32::from(a);
                pos += 2;
            } else if let (true, Ok(e)) = (
                header != b'i',
                <EtherAddr as FromArg>::from_arg(m, self.ctx),
            ) {
                given.dt = TYPE_ETHER;
                given.e = e.0;
                pos += 2;
            }
            if given.dt != 0 && given.dt != TYPE_ETHER && given.u == 0 {
                self.errh.error("zero mask ignored");
                given.dt = 0;
            }
            wd = peek(pos);
        }

        pos += 1;
        match wd.as_str() {
            "=" | "==" => {}
            "!=" => prim.op_negated = true,
            ">" => prim.op = OP_GT,
            "<" => prim.op = OP_LT,
            ">=" => {
                prim.op = OP_LT;
                prim.op_negated = true;
            }
            "<=" => {
                prim.op = OP_GT;
                prim.op_negated = true;
            }
            _ => pos -= 1,
        }

        let mut last_wd = wd;
        if pos < n {
            let wd = self.words[pos].clone();
            pos += 1;
            match lookup(
                &wd,
                prim.type_,
                prim.transp_proto,
                self.ctx,
                Some(self.errh),
            ) {
                Err(()) => prim.type_ = -2,
                Ok(Some((t, d))) if t != TYPE_TYPE => {
                    prim.data = t;
                    prim.u = d;
                }
                _ => {
                    if let Some(i) = parse_int(&wd) {
                        prim.u = i as u32;
                        prim.data = TYPE_INT;
                    } else if let (true, Ok(a)) = (
                        header != b'e',
                        <Ipv4Addr as FromArg>::from_arg(&wd, self.ctx),
                    ) {
                        prim.u = u32::from(a);
                        let mask_word = if pos + 1 < n && self.words[pos] == "mask" {
                            <Ipv4Addr as FromArg>::from_arg(&self.words[pos + 1], self.ctx).ok()
                        } else {
                            None
                        };
                        if let Some(m) = mask_word {
                            prim.mask = u32::from(m);
                            pos += 2;
                            prim.data = TYPE_NET;
                        } else if let (true, Ok(pf)) = (
                            prim.type_ == TYPE_NET,
                            <IpPrefix as FromArg>::from_arg(&wd, self.ctx),
                        ) {
                            prim.u = u32::from(pf.addr);
                            prim.mask = u32::from(pf.mask);
                            prim.data = TYPE_NET;
                        } else {
                            prim.data = TYPE_HOST;
                        }
                    } else if let Some(pf) = (header != b'e')
                        .then(|| <IpPrefix as FromArg>::from_arg(&wd, self.ctx).ok())
                        .flatten()
                    {
                        prim.u = u32::from(pf.addr);
                        prim.mask = u32::from(pf.mask);
                        prim.data = TYPE_NET;
                    } else if let Some(e) = (header != b'i')
                        .then(|| <EtherAddr as FromArg>::from_arg(&wd, self.ctx).ok())
                        .flatten()
                    {
                        prim.eu = e.0;
                        prim.data = TYPE_ETHER;
                    } else {
                        if prim.op != OP_EQ || prim.op_negated {
                            self.errh.error(format!("dangling operator near '{wd}'"));
                        }
                        pos -= 1;
                    }
                }
            }
            last_wd = wd;
        }

        if pos == first_pos {
            self.errh.error(format!("empty term near '{last_wd}'"));
            return pos;
        }

        let prev = self.prev;
        if prim.check(&prev, header, &given, self.errh).is_ok() {
            prim.compile(self.prog, self.tree);
            if negated {
                self.prog.negate_subtree(self.tree, false);
            }
            self.prev = prim;
        }
        pos
    }
}

impl Parser<'_> {
    /// An `ip6` term; `pos` is just past `ip6`. The forms:
    ///
    /// * `ip6`: the IP version is 6;
    /// * `ip6 [src | dst | src and dst | src or dst] [host | net] ADDR[/LEN]`
    ///   (`host` takes no `/LEN`; neither `src` nor `dst` means `src or
    ///   dst`, as for `host` in IPv4);
    /// * `ip6 proto P` (also `ip6 nxt P`): the fixed header's next header,
    ///   a number or `tcp`, `udp`, `icmp6` (58);
    /// * `ip6 hlim [OP] N`, `ip6 dscp [OP] N`, `ip6 flow [OP] N`: the hop
    ///   limit, the traffic class's DSCP bits, the flow label, with OP one
    ///   of `=`, `==`, `!=`, `<`, `>`, `<=`, `>=`.
    ///
    /// Every form also tests that the IP version is 6. Offsets are from
    /// the network header annotation (the fixed 40-byte header; extension
    /// headers are not followed).
    fn parse_ip6_test(&mut self, mut pos: usize, negated: bool) -> usize {
        let at = |s: &Self, i: usize| s.word(i).unwrap_or("");
        let mut sd = 0;
        match at(self, pos) {
            "src" => {
                if matches!(at(self, pos + 2), "dst" | "dest") {
                    match at(self, pos + 1) {
                        "and" | "&&" => {
                            sd = SD_AND;
                            pos += 2;
                        }
                        "or" | "||" => {
                            sd = SD_OR;
                            pos += 2;
                        }
                        _ => sd = SD_SRC,
                    }
                } else {
                    sd = SD_SRC;
                }
                pos += 1;
            }
            "dst" | "dest" => {
                sd = SD_DST;
                pos += 1;
            }
            _ => {}
        }
        let kw = at(self, pos);
        let mut prim = Primitive::default();
        // (word offset, shift, field mask) of a numeric field.
        let field = match kw {
            "hlim" => Some((OFFSET_NET + 4, 0, 0xFF, 255)),
            "dscp" => Some((OFFSET_NET, 22, 0x3F, 63)),
            "flow" => Some((OFFSET_NET, 0, 0xF_FFFF, 0xF_FFFF)),
            _ => None,
        };
        self.prev = Primitive::default();
        self.prog.start_subtree(self.tree);
        self.prog
            .add_insn(self.tree, OFFSET_NET, 6 << 28, 0xF000_0000);
        if sd == 0 && matches!(kw, "proto" | "nxt") {
            let w = at(self, pos + 1);
            let v = match w {
                "tcp" => Some(6),
                "udp" => Some(17),
                "icmp6" | "icmpv6" => Some(58),
                _ => parse_uint(w).filter(|&v| v <= 255),
            };
            match v {
                Some(v) => {
                    self.prog
                        .add_insn(self.tree, OFFSET_NET + 4, v << 8, 0xFF00);
                    pos += 2;
                }
                None => {
                    self.errh
                        .error(format!("'ip6 {kw}': expected protocol near '{w}'"));
                    pos += 1;
                }
            }
        } else if let (0, Some((off, shift, mask, max))) = (sd, field) {
            pos += 1;
            match at(self, pos) {
                "=" | "==" => pos += 1,
                "!=" => {
                    prim.op_negated = true;
                    pos += 1;
                }
                ">" => {
                    prim.op = OP_GT;
                    pos += 1;
                }
                "<" => {
                    prim.op = OP_LT;
                    pos += 1;
                }
                ">=" => {
                    prim.op = OP_LT;
                    prim.op_negated = true;
                    pos += 1;
                }
                "<=" => {
                    prim.op = OP_GT;
                    prim.op_negated = true;
                    pos += 1;
                }
                _ => {}
            }
            let w = at(self, pos);
            match parse_uint(w).filter(|&v| v <= max) {
                Some(v) => {
                    prim.u = v;
                    // Turns < into > and folds relations always true or false.
                    let _ = prim.set_mask(mask, 0, 0, self.errh);
                    self.prog.start_subtree(self.tree);
                    prim.add_comparison(self.prog, self.tree, off, shift, prim.u, prim.mask, true);
                    self.prog
                        .finish_subtree(self.tree, Combiner::And, J_SUCCESS, J_FAILURE);
                    pos += 1;
                }
                None => self.errh.error(format!(
                    "'ip6 {kw}': expected a number from 0 to {max} near '{w}'"
                )),
            }
        } else {
            let mut kind = "";
            if matches!(kw, "host" | "net") {
                kind = kw;
                pos += 1;
            }
            let w = at(self, pos);
            let parsed = if kind == "host" && w.contains('/') {
                Err(String::new())
            } else {
                crate::ip6::parse_ip6_prefix(w)
            };
            match parsed {
                Ok((a, len)) => {
                    pos += 1;
                    let (a, m) = (u128::from(a), crate::ip6::prefix_mask(len));
                    let sd = if sd == 0 { SD_OR } else { sd };
                    if m != 0 {
                        self.prog.start_subtree(self.tree);
                        for (which, base) in [(SD_SRC, 8), (SD_DST, 24)] {
                            if sd != which && sd != SD_AND && sd != SD_OR {
                                continue;
                            }
                            self.prog.start_subtree(self.tree);
                            for k in 0..4u32 {
                                let sh = 96 - 32 * k;
                                let wm = (m >> sh) as u32;
                                if wm != 0 {
                                    self.prog.add_insn(
                                        self.tree,
                                        OFFSET_NET + base + 4 * k,
                                        (a >> sh) as u32 & wm,
                                        wm,
                                    );
                                }
                            }
                            self.prog.finish_subtree(
                                self.tree,
                                Combiner::And,
                                J_SUCCESS,
                                J_FAILURE,
                            );
                        }
                        let c = if sd == SD_OR {
                            Combiner::Or
                        } else {
                            Combiner::And
                        };
                        self.prog.finish_subtree(self.tree, c, J_SUCCESS, J_FAILURE);
                    }
                }
                Err(_) if sd != 0 || !kind.is_empty() => {
                    self.errh
                        .error(format!("'ip6': expected IPv6 address near '{w}'"));
                }
                // A bare `ip6`.
                Err(_) => {}
            }
        }
        self.prog
            .finish_subtree(self.tree, Combiner::And, J_SUCCESS, J_FAILURE);
        if negated {
            self.prog.negate_subtree(self.tree, false);
        }
        pos
    }
}

/// Parses one `ACTION PATTERN` rule list (IPFilter syntax) into a compressed
/// program. `noutputs` is the element's output count.
pub fn parse_program(
    conf: &[String],
    noutputs: usize,
    ctx: &dyn ArgContext,
) -> Result<ZProgram, Vec<String>> {
    let mut errh = Errors::default();
    let mut prog = Program::new();
    let mut tree = prog.init_subtree();
    prog.start_subtree(&mut tree);
    for (argno, arg) in conf.iter().enumerate() {
        let text = rclick_core::confparse::unquote(arg);
        let words = separate_text(&text);
        if words.is_empty() {
            errh.prefix.clear();
            errh.error(format!("empty pattern {argno}"));
            continue;
        }
        errh.prefix = format!("pattern {argno}: ");
        let slotwd = words[0].as_str();
        let mut slot: i64 = -i64::from(J_NEVER);
        match slotwd {
            "allow" => {
                slot = 0;
                if noutputs == 0 {
                    errh.error("'allow' is meaningless, element has zero outputs");
                }
            }
            "deny" | "drop" => {}
            _ => match parse_int(slotwd) {
                Some(s) => {
                    if s < 0 || s as usize >= noutputs {
                        errh.error(format!("slot '{s}' out of range"));
                    } else {
                        slot = i64::from(s);
                    }
                }
                None => errh.error(format!("unknown slot ID '{slotwd}'")),
            },
        }
        prog.start_subtree(&mut tree);
        if words.len() == 1
            || (words.len() == 2 && matches!(words[1].as_str(), "-" | "any" | "all"))
        {
            prog.add_insn(&mut tree, 0, 0, 0);
        } else {
            let mut parser = Parser {
                words: &words,
                tree: &mut tree,
                prog: &mut prog,
                ctx,
                errh: &mut errh,
                prev: Primitive::default(),
            };
            let pos = parser.parse_expr(1);
            if pos < words.len() {
                errh.error(format!("garbage after expression at '{}'", words[pos]));
            }
        }
        prog.finish_subtree(&mut tree, Combiner::And, (-slot) as i32, J_FAILURE);
    }
    prog.finish_subtree(&mut tree, Combiner::Or, J_NEVER, J_NEVER);
    if !errh.messages.is_empty() {
        return Err(errh.messages);
    }
    prog.optimize();
    prog.bubble_sort_and_exprs();
    Ok(ZProgram::compile(&prog))
}
