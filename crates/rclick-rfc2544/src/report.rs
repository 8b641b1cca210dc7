//! The report model (filled in by a later commit).
