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
    "content",
    "description",
    "internalNotes",
    "message",
    "notes",
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
}
