//! The configuration language's tokenizer and Click's string helpers
//! (`confparse`) on any text: no panic; quoting a string and unquoting
//! it gives it back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rclick_lang::confparse;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (tokens, _diags) = rclick_lang::stages::lex(&text);
    assert!(tokens.len() <= text.len() * 2 + 2);
    let args = confparse::split_args(&text);
    for a in args.iter().take(16) {
        let _ = confparse::split_space(a);
        let _ = confparse::unquote_bytes(a);
        let _ = confparse::is_word(a);
    }
    let _ = confparse::uncomment(&text);
    let u = confparse::unquote(&text);
    assert_eq!(confparse::unquote(&confparse::quote(&u)), u);
});
