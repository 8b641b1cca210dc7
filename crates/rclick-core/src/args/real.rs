//! Click's fixed-point reals (`cp_real2`, `FixedPointArg`): a decimal read
//! into an unsigned integer with a given number of fraction bits, and
//! written back with the fewest digits that read back the same.

/// Click's `FixedPointArg(frac_bits)` for unsigned values: a decimal
/// (`12`, `0.5`, `.25`, `1e-2`) rounded to the nearest multiple of
/// `2^-frac_bits`, as an integer scaled by `2^frac_bits`. A sign, other
/// characters or a value that does not fit in 32 bits is an error.
pub fn parse_real2(s: &str, frac_bits: u32) -> Result<u32, String> {
    const BAD: &str = "expected real number";
    let s = s.trim();
    let (mant, exp) = match s.find(['e', 'E']) {
        Some(i) => {
            let e: i32 = s[i + 1..].parse().map_err(|_| BAD.to_string())?;
            (&s[..i], e)
        }
        None => (s, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        || !(-40..=40).contains(&exp)
    {
        return Err(BAD.into());
    }
    // value = digits / 10^(frac.len() - exp), computed exactly.
    let digits = int.trim_start_matches('0').to_string() + frac;
    let digits = digits.trim_start_matches('0');
    if digits.len() > 36 {
        return Err(BAD.into());
    }
    let num: u128 = if digits.is_empty() {
        0
    } else {
        digits.parse().map_err(|_| BAD.to_string())?
    };
    let scale = frac.len() as i32 - exp;
    let frac_bits = frac_bits.min(32);
    let out = if scale <= 0 {
        let mul = 10u128.checked_pow(scale.unsigned_abs()).ok_or(BAD)?;
        num.checked_mul(mul)
            .and_then(|v| v.checked_mul(1u128 << frac_bits))
            .ok_or(BAD)?
    } else {
        let den = 10u128.checked_pow(scale as u32).ok_or(BAD)?;
        let scaled = num.checked_mul(1u128 << frac_bits).ok_or(BAD)?;
        (scaled + den / 2) / den
    };
    u32::try_from(out).map_err(|_| BAD.to_string())
}

/// Click's `cp_unparse_real2`: the shortest decimal that reads back as the
/// fixed-point number `value / 2^frac_bits`.
pub fn unparse_real2(value: u64, frac_bits: u32) -> String {
    let frac_bits = frac_bits.min(62);
    let one = 1u128 << frac_bits;
    let int_part = u128::from(value) >> frac_bits;
    let frac = u128::from(value) & (one - 1);
    if frac == 0 {
        return int_part.to_string();
    }
    // Steele & White: emit digits until the remainder is within half a
    // unit of the last place of the fixed-point value.
    let two_one = 2 * one;
    let mut r = 2 * frac;
    let mut m: u128 = 1;
    let mut digits: Vec<u8> = Vec::new();
    loop {
        r *= 10;
        m *= 10;
        let mut d = (r / two_one) as u8;
        r %= two_one;
        let low = r < m;
        let high = r + m > two_one;
        if low || high {
            if high && (!low || 2 * r >= two_one) {
                d += 1;
            }
            digits.push(d);
            break;
        }
        digits.push(d);
        if digits.len() > 40 {
            break;
        }
    }
    // Propagate a carry from rounding.
    let mut int_part = int_part;
    let mut i = digits.len();
    while i > 0 && digits[i - 1] >= 10 {
        digits[i - 1] -= 10;
        if i >= 2 {
            digits[i - 2] += 1;
        } else {
            int_part += 1;
        }
        i -= 1;
    }
    while digits.last() == Some(&0) {
        digits.pop();
    }
    if digits.is_empty() {
        return int_part.to_string();
    }
    let mut s = int_part.to_string();
    s.push('.');
    for d in digits {
        s.push((b'0' + d) as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unparse() {
        assert_eq!(unparse_real2(3 << 10, 10), "3");
        assert_eq!(unparse_real2((3 << 10) + 512, 10), "3.5");
        assert_eq!(unparse_real2(1, 10), "0.001");
        assert_eq!(unparse_real2((1 << 10) + 102, 10), "1.1");
    }

    #[test]
    fn parse() {
        assert_eq!(parse_real2("1", 16), Ok(0x10000));
        assert_eq!(parse_real2("0.5", 16), Ok(0x8000));
        assert_eq!(parse_real2(".25", 16), Ok(0x4000));
        assert_eq!(parse_real2("0.3333", 16), Ok(21843));
        assert_eq!(parse_real2("5e-1", 16), Ok(0x8000));
        assert_eq!(parse_real2("1.5", 16), Ok(0x18000));
        for bad in ["", "-1", "x", "1.2.3", ".", "1e", "70000"] {
            assert!(parse_real2(bad, 16).is_err(), "{bad}");
        }
    }
}
