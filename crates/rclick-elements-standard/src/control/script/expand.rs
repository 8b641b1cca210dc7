//! Substitution: `$VAR`, `${VAR}` and `$(HANDLER ARGS)` in an
//! instruction's text (Click's `cp_expand` with Script's variable
//! expander), quoting what it substitutes where quotes must survive.

use rclick_core::Ctx;

use super::ops::{self, pop_word};
use super::Script;
use crate::basic::parse_int;

impl Script {
    /// The index of script variable `name`, if it exists.
    pub(super) fn find_var(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|(n, _)| n == name)
    }

    /// Click's `cp_expand` with Script's variables and handlers. Without a
    /// run-time context (while initializing), `$(...)` is left alone.
    pub(super) fn expand(
        &mut self,
        config: &str,
        expand_quote: bool,
        depth: usize,
        mut cx: Option<&mut Ctx>,
        errs: &mut Vec<String>,
    ) -> String {
        if !config.contains('$') {
            return config.to_string();
        }
        let b = config.as_bytes();
        let end = b.len();
        let sub = |a: usize, z: usize| config.get(a.min(end)..z.min(end)).unwrap_or("");
        let mut out = String::new();
        let mut unint = 0usize;
        let mut quote = 0u8;
        let mut s = 0usize;
        'scan: while s < end {
            match b[s] {
                b'\\' if s + 1 < end && quote == b'"' => s += 1,
                b'\'' | b'"' => {
                    if quote == 0 {
                        quote = b[s];
                    } else if quote == b[s] {
                        quote = 0;
                    }
                }
                b'/' if s + 1 < end && (b[s + 1] == b'/' || b[s + 1] == b'*') && quote == 0 => {
                    s = ops::skip_comment_space(b, s).max(1) - 1;
                }
                b'$' if s + 1 < end && quote != b'\'' && depth <= 10 => {
                    let before = s;
                    let mut expand_vname = false;
                    let vtype;
                    let vname_range;
                    if b[s + 1] == b'{' {
                        vtype = b'{';
                        s += 2;
                        let cstart = s;
                        while s < end && b[s] != b'}' {
                            if b[s] == b'$' {
                                expand_vname = true;
                            }
                            s += 1;
                        }
                        if s == end {
                            break 'scan;
                        }
                        vname_range = (cstart, s);
                        s += 1;
                    } else if b[s + 1] == b'(' {
                        vtype = b'(';
                        let (mut level, mut nquote) = (1, 0u8);
                        s += 2;
                        let cstart = s;
                        while s < end && level > 0 {
                            match b[s] {
                                b'(' if nquote == 0 => level += 1,
                                b')' if nquote == 0 => level -= 1,
                                c @ (b'"' | b'\'') => {
                                    if nquote == 0 {
                                        nquote = c;
                                    } else if nquote == c {
                                        nquote = 0;
                                    }
                                }
                                b'\\' if s + 1 < end && nquote != b'\'' => s += 1,
                                b'$' if nquote != b'\'' => expand_vname = true,
                                _ => {}
                            }
                            s += 1;
                        }
                        if s == cstart || b[s - 1] != b')' {
                            break 'scan;
                        }
                        vname_range = (cstart, s - 1);
                    } else if b[s + 1].is_ascii_alphanumeric() || b[s + 1] == b'_' {
                        vtype = b'a';
                        s += 1;
                        let cstart = s;
                        while s < end && (b[s].is_ascii_alphanumeric() || b[s] == b'_') {
                            s += 1;
                        }
                        vname_range = (cstart, s);
                    } else if matches!(b[s + 1], b'?' | b'#' | b'$') {
                        vtype = b'a';
                        s += 1;
                        vname_range = (s, s + 1);
                        s += 1;
                    } else {
                        s += 1;
                        continue;
                    }
                    out.push_str(sub(unint, before));
                    let mut vname = sub(vname_range.0, vname_range.1).to_string();
                    if expand_vname {
                        vname = self.expand(&vname, false, depth + 1, cx.as_deref_mut(), errs);
                    }
                    let result = self.expand_var(&vname, vtype, cx.as_deref_mut(), errs);
                    unint = s;
                    match result {
                        None => {
                            if expand_vname {
                                out.push('$');
                                out.push(char::from(b[before + 1]));
                                out.push_str(&vname);
                                out.push(char::from(b[s - 1]));
                            } else {
                                unint = before;
                            }
                        }
                        Some(text) => {
                            if quote == b'"' || (expand_quote && quote == 0) {
                                let q = ops::quote(&text);
                                let inner = q
                                    .strip_prefix('"')
                                    .and_then(|x| x.strip_suffix('"'))
                                    .unwrap_or(&q);
                                if quote == b'"' {
                                    out.push_str(inner);
                                } else {
                                    out.push('"');
                                    out.push_str(inner);
                                    out.push('"');
                                }
                            } else {
                                out.push_str(&text);
                            }
                        }
                    }
                    continue;
                }
                _ => {}
            }
            s += 1;
        }
        if out.is_empty() {
            return config.to_string();
        }
        out.push_str(sub(unint, end));
        out
    }

    /// Script's variable expander: variables, special variables, and
    /// `$(HANDLER)` reads.
    fn expand_var(
        &mut self,
        vname: &str,
        vtype: u8,
        cx: Option<&mut Ctx>,
        errs: &mut Vec<String>,
    ) -> Option<String> {
        if let Some(i) = self.find_var(vname) {
            return Some(self.vars[i].1.clone());
        }
        match vname {
            "?" => return Some(self.write_status.to_string()),
            "args" => return Some(self.run_args.clone()),
            "$" => return Some(std::process::id().to_string()),
            "0" => return Some(self.run_handler_name.clone()),
            "#" => {
                let mut rest = self.run_args.clone();
                let mut n = 0;
                while !pop_word(&mut rest).is_empty() {
                    n += 1;
                }
                return Some(n.to_string());
            }
            "write" => return Some(ops::bool_text(self.run_write)),
            _ => {}
        }
        if vname
            .as_bytes()
            .first()
            .is_some_and(|c| (b'1'..=b'9').contains(c))
        {
            if let Some(n) = parse_int::<i64>(vname) {
                let mut rest = self.run_args.clone();
                let mut word = String::new();
                for _ in 0..n.min(1 << 20) {
                    word = pop_word(&mut rest);
                    if word.is_empty() && rest.is_empty() {
                        break;
                    }
                }
                return Some(word);
            }
        }
        if vtype == b'(' {
            let cx = cx?;
            match self.parse_call(vname, false, false, true, cx) {
                Ok(hc) => {
                    return Some(self.call(&hc, cx, errs).unwrap_or_else(|e| {
                        errs.push(e);
                        String::new()
                    }))
                }
                Err(e) => errs.push(e),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{prints, run};
    use super::super::ScriptType;
    use super::*;

    /// A script with variables `x` = `1 2` and `q` = `"`, run with
    /// arguments `a b c`.
    fn script() -> Script {
        let mut s = Script::new("Script", ScriptType::Passive);
        s.vars = vec![("x".into(), "1 2".into()), ("q".into(), "\"".into())];
        s.run_args = "a b c".into();
        s.run_handler_name = "run".into();
        s
    }

    /// Expands `text` without a router, as initialization does.
    fn expand(text: &str, quote: bool) -> String {
        let mut errs = Vec::new();
        let out = script().expand(text, quote, 0, None, &mut errs);
        assert!(errs.is_empty(), "{errs:?}");
        out
    }

    #[test]
    fn variables_quotes_and_comments() {
        for (text, quote, want) in [
            ("no dollars", false, "no dollars"),
            ("$x|${x}y|$xy", false, "1 2|1 2y|$xy"),
            ("$args $# $0 $2 $3 $4", false, "a b c 3 run b c "),
            ("$write $?", false, "false 0"),
            // `$` before anything else stays.
            ("5$ $-", false, "5$ $-"),
            // Nothing is substituted inside single quotes; inside double
            // quotes, and with `quote`, values are quoted.
            ("'$x'", false, "'$x'"),
            ("\"$q\"", false, "\"\\\"\""),
            ("$q", false, "\""),
            ("$x", true, "\"1 2\""),
            // Comments are skipped, not expanded.
            ("a /* $x */ $x", false, "a /* $x */ 1 2"),
        ] {
            assert_eq!(expand(text, quote), want, "{text}");
        }
        assert_eq!(expand("$$", false), std::process::id().to_string());
    }

    #[test]
    fn handler_references_wait_for_a_router() {
        assert_eq!(expand("$(add 1 2)", false), "$(add 1 2)");
        assert_eq!(expand("${$x}", false), "${1 2}");
    }

    #[test]
    fn expansion_and_passive_scripts() {
        let (_, out, log) = run("Script(print $(add 1 2), set i add, print $($i 3 4), \
             print $($(s.run).name), print $(j.run), stop)
             s :: Script(TYPE PASSIVE, return i2)
             j :: Script(TYPE PASSIVE, return Hello)
             i1, i2 :: Idle");
        assert_eq!(out, "3\n7\ni2\nHello\n", "{log:?}");
    }

    #[test]
    fn quoting_forms() {
        let out = prints(
            "s :: Script(TYPE PASSIVE, return 0)
             Script(set x $(s.run), print $x, set x \"$(s.run)\", print $x, \
             setq x \"$(s.run)\", print $x, print \"s.run\", print '\"s.run\"', \
             set y s.run, print $y, print $($y), print s.run, stop)",
        );
        assert_eq!(out, "0\n\"0\"\n0\ns.run\n\"s.run\"\ns.run\n0\n0\n");
    }

    #[test]
    fn variable_edge_cases() {
        // Nested references, ${...}, single quotes, and unknown variables.
        let out = prints(
            "Script(set a 1, set b a, print ${a}x, print '$a', \
             print $nosuch, print $(get $b), stop)",
        );
        assert_eq!(out, "1x\n$a\n$nosuch\n1\n");
    }
}
