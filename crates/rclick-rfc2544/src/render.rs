//! Rendering (filled in by a later commit).
