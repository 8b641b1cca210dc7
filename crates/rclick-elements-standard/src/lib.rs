//! rclick-elements-standard
