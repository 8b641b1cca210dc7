//! Rendering (stub until the renderers land).
use crate::report::Report;
/// Markdown.
pub fn markdown(r: &Report) -> String { r.to_json() }
/// HTML.
pub fn html(r: &Report) -> String { r.to_json() }
/// Summary.
pub fn summary(_r: &Report) -> String { String::new() }
