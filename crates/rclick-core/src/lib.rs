//! rclick-core
