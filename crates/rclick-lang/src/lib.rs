//! rclick-lang
