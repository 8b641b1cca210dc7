//! Port-count, processing and flow-code specifications, as Click writes them.
//!
//! * A **port-count** spec is `INPUTS/OUTPUTS`; each side is `N` (exactly N),
//!   `N-M` (N to M), `N-` (at least N), `-M` (at most M) or `-` (any number).
//!   The output side may be `=` (as many outputs as inputs) or `=+` (one more).
//!   A spec without `/` applies to both sides.
//! * A **processing** spec is `IN/OUT` with one letter a port: `h` push,
//!   `l` pull, `a` agnostic; the last letter repeats for further ports
//!   (`a/ah`: agnostic input, agnostic output 0, push outputs 1 and up).
//! * A **flow code** is `IN/OUT` with one letter (or a bracketed set of
//!   letters) a port, last one repeating; a packet arriving on input *i* may
//!   leave on output *j* when their codes share a letter. `#` links input *i*
//!   to output *i* only.

use std::fmt;

/// How many ports one side of an element may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortRange {
    /// Fewest ports.
    pub lo: usize,
    /// Most ports (`usize::MAX` for no limit).
    pub hi: usize,
}

impl PortRange {
    /// The port count an element gets when `used` ports are connected:
    /// at least `lo`, at most `hi`.
    pub fn clamp(self, used: usize) -> usize {
        used.max(self.lo).min(self.hi)
    }
}

/// A parsed port-count specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortCount {
    /// Inputs.
    pub inputs: PortRange,
    /// Outputs; see [`OutputRule`].
    pub outputs: OutputRule,
}

/// The output side of a port-count spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputRule {
    /// An explicit range.
    Range(PortRange),
    /// As many outputs as inputs plus the given number (`=` is 0, `=+` is 1).
    SameAsInputs(usize),
}

/// Error from parsing a specification string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad specification '{}'", self.0)
    }
}

impl std::error::Error for SpecError {}

fn parse_range(s: &str, whole: &str) -> Result<PortRange, SpecError> {
    let err = || SpecError(whole.to_string());
    let num = |t: &str| t.parse::<usize>().map_err(|_| err());
    let s = s.trim();
    if s.is_empty() {
        return Err(err());
    }
    if let Some((a, b)) = s.split_once('-') {
        let lo = if a.is_empty() { 0 } else { num(a)? };
        let hi = if b.is_empty() { usize::MAX } else { num(b)? };
        if hi < lo {
            return Err(err());
        }
        Ok(PortRange { lo, hi })
    } else {
        let n = num(s)?;
        Ok(PortRange { lo: n, hi: n })
    }
}

impl PortCount {
    /// Parses a spec such as `1/1-2`, `-/=` or `0/1`.
    pub fn parse(spec: &str) -> Result<PortCount, SpecError> {
        let (i, o) = spec.split_once('/').unwrap_or((spec, spec));
        let inputs = parse_range(i, spec)?;
        let outputs = match o.trim() {
            "=" => OutputRule::SameAsInputs(0),
            "=+" => OutputRule::SameAsInputs(1),
            other => OutputRule::Range(parse_range(other, spec)?),
        };
        Ok(PortCount { inputs, outputs })
    }

    /// Actual `(inputs, outputs)` for an element whose connections use
    /// `used_in` inputs and `used_out` outputs.
    pub fn resolve(&self, used_in: usize, used_out: usize) -> (usize, usize) {
        let nin = self.inputs.clamp(used_in);
        let nout = match self.outputs {
            OutputRule::Range(r) => r.clamp(used_out),
            OutputRule::SameAsInputs(extra) => nin + extra,
        };
        (nin, nout)
    }
}

/// The processing of one port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Processing {
    /// The upstream element calls push.
    Push,
    /// The downstream element calls pull.
    Pull,
    /// Either, decided by the ports it is connected to.
    Agnostic,
}

impl Processing {
    /// Click's word for it.
    pub fn name(self) -> &'static str {
        match self {
            Processing::Push => "push",
            Processing::Pull => "pull",
            Processing::Agnostic => "agnostic",
        }
    }
}

/// A parsed processing spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessingSpec {
    inputs: Vec<Processing>,
    outputs: Vec<Processing>,
}

fn parse_processing_side(s: &str, whole: &str) -> Result<Vec<Processing>, SpecError> {
    let v: Result<Vec<_>, _> = s
        .chars()
        .map(|c| match c {
            'h' | 'H' => Ok(Processing::Push),
            'l' | 'L' => Ok(Processing::Pull),
            'a' | 'A' => Ok(Processing::Agnostic),
            _ => Err(SpecError(whole.to_string())),
        })
        .collect();
    let v = v?;
    if v.is_empty() {
        return Err(SpecError(whole.to_string()));
    }
    Ok(v)
}

impl ProcessingSpec {
    /// Parses `h/l`, `a/ah` and the like.
    pub fn parse(spec: &str) -> Result<ProcessingSpec, SpecError> {
        let (i, o) = spec.split_once('/').unwrap_or((spec, spec));
        Ok(ProcessingSpec {
            inputs: parse_processing_side(i, spec)?,
            outputs: parse_processing_side(o, spec)?,
        })
    }

    /// Processing of input `port`.
    pub fn input(&self, port: usize) -> Processing {
        self.inputs[port.min(self.inputs.len() - 1)]
    }

    /// Processing of output `port`.
    pub fn output(&self, port: usize) -> Processing {
        self.outputs[port.min(self.outputs.len() - 1)]
    }
}

/// One port's flow-code entry: a set of codes, possibly negated (`[^xy]`).
/// The code `#` stands for "the port's own number", so `#` on input 3 and
/// `#` on output 3 match, while `#` on input 3 and output 4 do not.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FlowEntry {
    negated: bool,
    codes: Vec<char>,
}

impl FlowEntry {
    /// The concrete tokens of this entry on port `port`: letters as they
    /// are, `#` as a token unique to the port number.
    fn tokens(&self, port: usize) -> Vec<(char, usize)> {
        self.codes
            .iter()
            .map(|&c| if c == '#' { ('#', port) } else { (c, 0) })
            .collect()
    }
}

/// A parsed flow code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowCode {
    inputs: Vec<FlowEntry>,
    outputs: Vec<FlowEntry>,
}

fn parse_flow_side(s: &str, whole: &str) -> Result<Vec<FlowEntry>, SpecError> {
    let err = || SpecError(whole.to_string());
    let valid = |c: char| c.is_ascii_alphabetic() || c == '#';
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' => {
                let negated = chars.peek() == Some(&'^');
                if negated {
                    chars.next();
                }
                let mut codes = Vec::new();
                loop {
                    match chars.next() {
                        Some(']') => break,
                        Some(c) if valid(c) => codes.push(c),
                        _ => return Err(err()),
                    }
                }
                out.push(FlowEntry { negated, codes });
            }
            c if valid(c) => out.push(FlowEntry {
                negated: false,
                codes: vec![c],
            }),
            _ => return Err(err()),
        }
    }
    if out.is_empty() {
        return Err(err());
    }
    Ok(out)
}

impl FlowCode {
    /// Parses `x/x`, `xy/x`, `#/#`, `[xy]/x`, `#/[^#]`.
    pub fn parse(spec: &str) -> Result<FlowCode, SpecError> {
        let (i, o) = spec.split_once('/').unwrap_or((spec, spec));
        Ok(FlowCode {
            inputs: parse_flow_side(i, spec)?,
            outputs: parse_flow_side(o, spec)?,
        })
    }

    /// Whether a packet on input `input` may leave on output `output`.
    pub fn flows(&self, input: usize, output: usize) -> bool {
        let a = &self.inputs[input.min(self.inputs.len() - 1)];
        let b = &self.outputs[output.min(self.outputs.len() - 1)];
        let ta = a.tokens(input);
        let tb = b.tokens(output);
        match (a.negated, b.negated) {
            (false, false) => ta.iter().any(|t| tb.contains(t)),
            // Some token of the plain side is outside the negated set.
            (true, false) => tb.iter().any(|t| !ta.contains(t)),
            (false, true) => ta.iter().any(|t| !tb.contains(t)),
            // Two complements of finite sets always meet.
            (true, true) => true,
        }
    }
}

/// Click's usual specs, by name.
pub mod common {
    /// Agnostic everywhere.
    pub const AGNOSTIC: &str = "a/a";
    /// Push everywhere.
    pub const PUSH: &str = "h/h";
    /// Pull everywhere.
    pub const PULL: &str = "l/l";
    /// Push in, pull out (a queue).
    pub const PUSH_TO_PULL: &str = "h/l";
    /// Pull in, push out (an unqueuer).
    pub const PULL_TO_PUSH: &str = "l/h";
    /// Every input flows to every output.
    pub const COMPLETE_FLOW: &str = "x/x";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_counts() {
        let p = PortCount::parse("1/1-2").unwrap();
        assert_eq!(p.resolve(0, 0), (1, 1));
        assert_eq!(p.resolve(1, 3), (1, 2));
        let p = PortCount::parse("-/=").unwrap();
        assert_eq!(p.resolve(3, 0), (3, 3));
        let p = PortCount::parse("1-/=+").unwrap();
        assert_eq!(p.resolve(2, 0), (2, 3));
        let p = PortCount::parse("0/1").unwrap();
        assert_eq!(p.resolve(2, 1), (0, 1));
        let p = PortCount::parse("1").unwrap();
        assert_eq!(p.resolve(0, 5), (1, 1));
        assert_eq!(PortCount::parse("-2/-").unwrap().resolve(4, 7), (2, 7));
        assert!(PortCount::parse("x/1").is_err());
        assert!(PortCount::parse("3-1/1").is_err());
        assert!(PortCount::parse("/").is_err());
    }

    #[test]
    fn processing() {
        let p = ProcessingSpec::parse("a/ah").unwrap();
        assert_eq!(p.input(0), Processing::Agnostic);
        assert_eq!(p.input(5), Processing::Agnostic);
        assert_eq!(p.output(0), Processing::Agnostic);
        assert_eq!(p.output(1), Processing::Push);
        assert_eq!(p.output(9), Processing::Push);
        let p = ProcessingSpec::parse("h/l").unwrap();
        assert_eq!(
            (p.input(0), p.output(0)),
            (Processing::Push, Processing::Pull)
        );
        assert!(ProcessingSpec::parse("q/h").is_err());
        assert!(ProcessingSpec::parse("/h").is_err());
    }

    #[test]
    fn flow_codes() {
        let f = FlowCode::parse("x/x").unwrap();
        assert!(f.flows(0, 0) && f.flows(3, 7));
        let f = FlowCode::parse("xy/x").unwrap();
        assert!(f.flows(0, 1) && !f.flows(1, 0));
        let f = FlowCode::parse("#/#").unwrap();
        assert!(f.flows(2, 2) && !f.flows(2, 1));
        let f = FlowCode::parse("[xy]y/x").unwrap();
        assert!(f.flows(0, 0) && !f.flows(1, 0));
        let f = FlowCode::parse("#/[^#]").unwrap();
        assert!(!f.flows(1, 1) && f.flows(1, 0) && f.flows(0, 2));
        assert!(FlowCode::parse("x/").is_err());
        assert!(FlowCode::parse("[x/x").is_err());
    }
}
