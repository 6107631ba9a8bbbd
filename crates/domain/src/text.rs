//! The one rule for text that comes in from outside: every string of every request passes
//! it before anything reads or stores it.
//!
//! Text never carries control characters: NUL (which PostgreSQL cannot store and which
//! cuts strings short in C libraries), escape sequences, DEL, the C1 controls. Multi-line
//! fields (descriptions, notes, reasons) may break lines and indent with tabs; every other
//! field is one line.

/// Whether a field holds one line or free text over several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// Names, codes, emails, identifiers: no control character at all.
    Line,
    /// Descriptions, notes, reasons: line breaks (`\n`, `\r`) and tabs allowed.
    MultiLine,
}

/// The fields, by their last name, that hold free text over several lines.
pub const MULTI_LINE_FIELDS: &[&str] = &[
    "adminNotes",
    "admin_notes",
    "body",
    "bodyTemplate",
    "content",
    "description",
    "internalNotes",
    "message",
    "note",
    "notes",
    "personalMessage",
    "reason",
    "specialRequests",
];

impl TextKind {
    /// The kind of the field named `name` (its last path segment).
    pub fn of_field(name: &str) -> TextKind {
        if MULTI_LINE_FIELDS.contains(&name) {
            TextKind::MultiLine
        } else {
            TextKind::Line
        }
    }
}

/// The rule of [`TextKind::Line`] as a regular expression (ECMA-262 and Python syntax), for
/// the OpenAPI document: no character of Unicode category Cc.
pub const LINE_PATTERN: &str = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$";
/// The rule of [`TextKind::MultiLine`] as a regular expression: no Cc character other than
/// tab, line feed and carriage return.
pub const MULTI_LINE_PATTERN: &str =
    "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]*$";

impl TextKind {
    /// The rule of this kind as a regular expression.
    pub fn pattern(self) -> &'static str {
        match self {
            TextKind::Line => LINE_PATTERN,
            TextKind::MultiLine => MULTI_LINE_PATTERN,
        }
    }

    /// The rule of this kind for text that must not be blank (after trimming white space)
    /// as a regular expression.
    pub fn non_blank_pattern(self) -> &'static str {
        match self {
            TextKind::Line => {
                "^[^\\u0000-\\u001F\\u007F-\\u009F]*[^\\s\\u0000-\\u001F\\u007F-\\u009F][^\\u0000-\\u001F\\u007F-\\u009F]*$"
            }
            TextKind::MultiLine => {
                "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]*[^\\s\\u0000-\\u001F\\u007F-\\u009F][^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]*$"
            }
        }
    }
}

/// Checks `text` against the rule of its kind; the error says what is wrong.
pub fn check_text(text: &str, kind: TextKind) -> Result<(), &'static str> {
    let allowed = |c: char| kind == TextKind::MultiLine && matches!(c, '\n' | '\r' | '\t');
    match text.chars().find(|&c| c.is_control() && !allowed(c)) {
        None => Ok(()),
        Some('\0') => Err("must not contain NUL characters"),
        Some(_) if kind == TextKind::MultiLine => {
            Err("must not contain control characters (line breaks and tabs are allowed)")
        }
        Some(_) => Err("must be one line without control characters"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_text_refuses_every_control_character() {
        assert_eq!(check_text("Escape room 1", TextKind::Line), Ok(()));
        assert_eq!(check_text("Åke Öberg — 5 €", TextKind::Line), Ok(()));
        for bad in ["a\0b", "a\nb", "a\tb", "a\u{1b}[31m", "a\u{7f}", "a\u{85}"] {
            assert!(check_text(bad, TextKind::Line).is_err(), "{bad:?}");
        }
        assert_eq!(
            check_text("a\0", TextKind::Line),
            Err("must not contain NUL characters")
        );
    }

    #[test]
    fn multi_line_text_allows_line_breaks_and_tabs_only() {
        assert_eq!(check_text("one\r\n\ttwo", TextKind::MultiLine), Ok(()));
        for bad in ["a\0b", "a\u{1b}b", "a\u{7}b", "a\u{9f}b"] {
            assert!(check_text(bad, TextKind::MultiLine).is_err(), "{bad:?}");
        }
        assert_eq!(TextKind::of_field("description"), TextKind::MultiLine);
        assert_eq!(TextKind::of_field("name"), TextKind::Line);
    }

    /// The excluded ranges of a `^[^…]*$` pattern made of `\\uXXXX` and `\\uXXXX-\\uXXXX`.
    fn excluded(pattern: &str) -> Vec<(u32, u32)> {
        let inner = pattern
            .strip_prefix("^[^")
            .and_then(|p| p.strip_suffix("]*$"))
            .unwrap_or_else(|| panic!("{pattern} is not one negated class"));
        let code =
            |s: &str| u32::from_str_radix(s, 16).unwrap_or_else(|e| panic!("{s} is not hex: {e}"));
        inner.split("\\u").filter(|t| !t.is_empty()).fold(
            Vec::new(),
            |mut ranges: Vec<(u32, u32)>, token| {
                match token.strip_suffix('-') {
                    Some(start) => ranges.push((code(start), u32::MAX)),
                    None => match ranges.last_mut() {
                        Some(last) if last.1 == u32::MAX => last.1 = code(token),
                        _ => ranges.push((code(token), code(token))),
                    },
                }
                ranges
            },
        )
    }

    #[test]
    fn the_patterns_state_the_rule_exactly() {
        for kind in [TextKind::Line, TextKind::MultiLine] {
            let ranges = excluded(kind.pattern());
            for c in (0..=0x10FFFF).filter_map(char::from_u32) {
                let refused = ranges.iter().any(|&(a, b)| (a..=b).contains(&(c as u32)));
                assert_eq!(
                    refused,
                    check_text(&c.to_string(), kind).is_err(),
                    "{kind:?} {:#06x}",
                    c as u32
                );
            }
        }
    }
}
