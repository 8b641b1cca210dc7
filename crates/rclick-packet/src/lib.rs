//! rclick-packet
