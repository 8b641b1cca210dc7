//! Compound element classes: `elementclass NAME { ... }` and anonymous
//! `{ ... }` bodies, their formal arguments and scopes, the `input` and
//! `output` pseudoelements, and overloading.

use super::*;

impl Parser<'_> {
    /// Checks the use of pseudoelement `which` of the current scope; returns
    /// its number of ports.
    pub(super) fn check_pseudoelement(
        &mut self,
        which: usize,
        output: bool,
        name: &str,
        lm: &Landmark,
    ) -> usize {
        let pname = if output { "output" } else { "input" };
        let other = if output { "input" } else { "output" };
        let c = self.cur_ref();
        let n = if output { c.nin[which] } else { c.nout[which] };
        let mut used = std::collections::BTreeSet::new();
        for conn in &c.conns {
            let end = if output { conn.to } else { conn.from };
            if end.0 == which {
                used.insert(end.1);
            }
        }
        let wrong_way = if output { c.nout[which] } else { c.nin[which] } > 0;
        if wrong_way {
            self.lx.error_at(
                lm.clone(),
                format!(
                    "'{}' pseudoelement '{}' may only be used as {}",
                    name, pname, other
                ),
            );
        }
        let mut reported = 0;
        for i in 0..n {
            if !used.contains(&i) {
                self.lx
                    .error_at(lm.clone(), format!("'{}' {} {} missing", name, pname, i));
                reported += 1;
                if reported >= 16 {
                    break;
                }
            }
        }
        n
    }

    pub(super) fn yelementclass(&mut self) {
        let tname = self.lx.lex();
        let mut name = String::new();
        if tname.is(Tok::Ident) {
            if self.cur_ref().map.contains_key(&tname.text) {
                self.error(format!("'{}' already used as an element name", tname.text));
            } else {
                name = tname.text.clone();
            }
        } else {
            self.lx.unlex(tname);
            self.error("expected element type name");
        }
        let tnext = self.lx.lex();
        if tnext.is_char(b'{') {
            self.ycompound(name);
        } else if tnext.is(Tok::Ident) {
            let id = self.force_element_type(&tnext.text);
            if !name.is_empty() {
                self.declare(name, id);
            }
        } else {
            self.syntax_error(&tnext);
        }
    }

    pub(super) fn define_in_scope(&mut self, name: &str, value: &str, formal: bool) {
        let c = self.stack.last_mut().expect("file scope");
        if c.scope_names.iter().any(|n| n == name) {
            self.lx
                .error(format!("parameter '${}' multiply defined", name));
            return;
        }
        c.scope_names.push(name.to_string());
        c.scope_values.push(value.to_string());
        if !formal {
            return;
        }
        c.nformals = c.scope_names.len();
        let n = c.nformals;
        let repeated = !value.is_empty() && c.scope_values[..n - 1].iter().any(|v| v == value);
        let out_of_order = !c.scope_order_error
            && n > 1
            && ((value.is_empty() && !c.scope_values[n - 2].is_empty())
                || c.scope_values[n - 2] == "__REST__");
        if out_of_order {
            c.scope_order_error = true;
        }
        if repeated {
            self.lx.error(format!(
                "repeated keyword parameter '{}' in compound element",
                value
            ));
        }
        if out_of_order {
            self.lx.error(
                "compound element parameters out of order\n(The correct order is '[positional], [keywords], [__REST__]'.)",
            );
        }
    }

    pub(super) fn ycompound_arguments(&mut self) {
        loop {
            let t1 = self.lx.lex();
            let (vtype, vname);
            if t1.is(Tok::Ident) {
                let t2 = self.lx.lex();
                if t2.is(Tok::Variable) {
                    vtype = t1.text.clone();
                    vname = t2.text.clone();
                } else {
                    if self.cur_ref().nformals > 0 {
                        self.error("expected variable");
                    }
                    self.lx.unlex(t2);
                    self.lx.unlex(t1);
                    return;
                }
            } else if t1.is(Tok::Variable) {
                vtype = String::new();
                vname = t1.text.clone();
            } else if t1.is_char(b'|') {
                return;
            } else {
                if self.cur_ref().nformals > 0 {
                    self.error("expected variable");
                }
                self.lx.unlex(t1);
                return;
            }
            self.define_in_scope(&vname, &vtype, true);
            let sep = self.lx.lex();
            if sep.is_char(b'|') {
                return;
            } else if !sep.is_char(b',') {
                self.error("expected ',' or '|'");
                self.lx.unlex(sep);
                return;
            }
        }
    }

    /// Parses a compound class body (after `{`), with its `||` alternatives.
    /// Returns the class of the first alternative.
    pub(super) fn ycompound(&mut self, name: String) -> ClassId {
        let anonymous = name.is_empty();
        let saved_declared = self.declared_undo.len();
        let mut first: Option<ClassId> = None;
        let mut last: Option<ClassId> = None;
        let mut extension: Option<ClassId> = None;
        loop {
            let mut dots = self.lx.lex();
            if dots.is(Tok::ThreeDot) {
                if anonymous {
                    self.error("cannot extend anonymous compound element class");
                    extension = Some(self.force_element_type("Error"));
                } else {
                    extension = Some(self.force_element_type(&name));
                }
                dots = self.lx.lex();
                if first.is_none() || !dots.is_char(b'}') {
                    self.error("'...' should occur last, after one or more compounds");
                }
                if dots.is_char(b'}') && first.is_some() {
                    break;
                }
            }
            self.lx.unlex(dots);

            let depth = self.cur_ref().depth + 1;
            let mut c = Compound::new(&name, self.lx.landmark(), depth);
            c.anon_offset = 2;
            self.stack.push(c);
            let lm = self.lx.landmark();
            self.get_element("input", EKind::Tunnel, String::new(), lm.clone());
            self.get_element("output", EKind::Tunnel, String::new(), lm);
            if self.nesting() > MAX_NESTING {
                self.error("maximum compound element nesting depth exceeded");
            } else {
                self.ycompound_arguments();
                while self.ystatement(Ctx::Compound) {}
            }
            self.undeclare_to(saved_declared);
            let c = self.finish_compound();
            let id = self.classes.len();
            self.classes.push(ClassDef::Compound(Box::new(c)));
            match last {
                Some(l) => {
                    if let ClassDef::Compound(lc) = &mut self.classes[l] {
                        lc.overload = Some(id);
                    }
                }
                None => first = Some(id),
            }
            last = Some(id);
            let t = self.lx.lex();
            if !t.is(Tok::TwoBar) {
                if !t.is_char(b'}') && !t.is(Tok::Eof) {
                    self.lx.unlex(t);
                }
                break;
            }
        }
        let first = first.expect("compound");
        if let (Some(ext), Some(l)) = (extension, last) {
            if let ClassDef::Compound(lc) = &mut self.classes[l] {
                lc.overload = Some(ext);
            }
        }
        if !anonymous {
            self.declare(name, first);
        }
        first
    }

    /// Pops the compound being parsed, checks its pseudoelements and names
    /// its anonymous elements.
    pub(super) fn finish_compound(&mut self) -> Compound {
        let name = self.cur_ref().printable_name().to_string();
        let lm = self.cur_ref().landmark.clone();
        let nin = self.check_pseudoelement(0, false, &name, &lm);
        let nout = self.check_pseudoelement(1, true, &name, &lm);
        let mut c = self.stack.pop().expect("compound");
        c.ninputs = nin;
        c.noutputs = nout;
        for i in 0..c.elems.len() {
            if c.elems[i].name.starts_with(';') {
                let n = deanonymize(&mut c.map, &c.elems[i].name[1..], i, |n| {
                    self.element_type(n).is_some()
                });
                c.elems[i].name = n;
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Parser<'_> {
        let mut p = Parser::new(text, "t.click");
        p.parse();
        p
    }

    fn compound<'p>(p: &'p Parser, name: &str) -> &'p Compound {
        p.classes
            .iter()
            .find_map(|c| match c {
                ClassDef::Compound(c) if c.name == name => Some(&**c),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no compound {name}"))
    }

    #[test]
    fn elementclass_records_formals_ports_and_overloads() {
        let p = parse(
            "elementclass Foo { $a, KEY $b | input -> Null -> output \
             || input -> [0]output; input[1] -> [1]output }\n",
        );
        assert!(p.lx.diags.is_empty(), "{:?}", p.lx.diags);
        let first = p
            .classes
            .iter()
            .filter_map(|c| match c {
                ClassDef::Compound(c) if c.name == "Foo" => Some(c),
                _ => None,
            })
            .collect::<Vec<_>>();
        assert_eq!(first.len(), 2, "two alternatives");
        let with_formals = first.iter().find(|c| c.nformals == 2).unwrap();
        assert_eq!(with_formals.scope_names[..2], ["a", "b"]);
        assert_eq!((with_formals.ninputs, with_formals.noutputs), (1, 1));
        let two_port = first.iter().find(|c| c.nformals == 0).unwrap();
        assert_eq!((two_port.ninputs, two_port.noutputs), (2, 2));
        assert!(
            with_formals.overload.is_some() && two_port.overload.is_none(),
            "the first alternative points at the next"
        );
    }

    #[test]
    fn compound_errors_are_reported_at_their_line() {
        let p = parse("elementclass Bar {\n input -> output;\n input[1] -> Discard }\nx :: Bar;\n");
        assert!(compound(&p, "Bar").ninputs == 2);
        let p = parse("elementclass { }\n");
        assert!(!p.lx.diags.is_empty(), "a class needs a name");
        let p = parse("elementclass Baz {\n output -> Discard }\n");
        let msgs: Vec<String> = p.lx.diags.iter().map(|d| d.to_string()).collect();
        assert!(
            msgs.iter()
                .any(|m| m.contains("t.click:2") && m.contains("output")),
            "{msgs:?}"
        );
    }
}
