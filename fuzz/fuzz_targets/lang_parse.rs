//! The configuration language's parser, compound expansion and flattening
//! on any text: no panic; a configuration that parses prints (unparse) as
//! text that parses again to the same printed form.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rclick_lang::{parse, stages, Options};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = stages::parse_only(&text);
    let opts = Options::default();
    if let Ok(flat) = parse(&text, &opts) {
        let printed = flat.unparse();
        let again = parse(&printed, &opts)
            .unwrap_or_else(|e| panic!("unparsed text does not parse: {e:?}\n{printed}"));
        assert_eq!(again.unparse(), printed);
    }
});
