//! Escaping text for HTML: every piece of user text (operation labels, values, model states,
//! names) goes through [`escape`] before it reaches the page.

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by entities: safe in element content and in
/// quoted attribute values.
///
/// ```
/// use lineup_core::report_html::escape;
/// assert_eq!(escape("<b a=\"x\">'&'</b>"), "&lt;b a=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
