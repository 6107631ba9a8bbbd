//! Waivers (spec Part B 2.6, 4.5, 8): who is a minor, what a signature image may be, the
//! hash of what was signed, and where a booking's waivers stand.
//!
//! Terms used across the waiver endpoints:
//! - a **template** is one waiver's text in one language at one version;
//! - a **place** is one person of a booking's party (`partySize` places); a place is
//!   *named* when the booking lists a participant for it;
//! - a **signature** covers one participant, signed online or collected on paper at the
//!   desk; the legacy endpoint's whole-booking signature is the booker's acceptance for
//!   the booking and covers no one in particular;
//! - a booking's waivers are **complete** when every place is named and every named
//!   participant has a signature.

use base64::Engine;
use chrono::{Datelike, NaiveDate};
use sha2::{Digest, Sha256};

/// Below this age on the booking's day, a participant is a minor (spec Part B 8).
pub const MINOR_AGE: u32 = 18;
/// Default years a signature is kept (spec Part B 8: 7 years or per local regulations).
pub const DEFAULT_RETENTION_YEARS: i32 = 7;
/// Default and largest page of the signature list.
pub const SIGNATURE_PAGE_SIZE: u32 = 20;
pub const MAX_SIGNATURE_PAGE_SIZE: u32 = 100;
/// Largest signature image, decoded (a drawn signature is a few kilobytes).
pub const MAX_SIGNATURE_BYTES: usize = 200 * 1024;
/// Longest waiver text, in characters.
pub const MAX_CONTENT_CHARS: usize = 100_000;
/// The subject of a booking-wide (legacy) signature.
pub const BOOKING_SUBJECT: &str = "booking";

crate::text_enum! {
    /// How a signature was given.
    pub enum SignatureMethod {
        /// Signed on the booking page or the signing link.
        Online = "online",
        /// A paper waiver collected at the desk and recorded by staff.
        Paper = "paper",
    }
}

crate::text_enum! {
    /// A signature image's format.
    pub enum ImageFormat {
        Png = "png",
        Svg = "svg",
    }
}

crate::text_enum! {
    /// What check-in does when a booking's waivers are not complete (a product's setting).
    pub enum WaiverCheckIn {
        /// Staff are told which waivers are missing; the booking is marked arrived.
        Warn = "warn",
        /// The booking is not marked arrived until every waiver is in.
        Refuse = "refuse",
    }
}

crate::text_enum! {
    /// Where one waiver requirement (one place of a booking) stands.
    pub enum RequirementStatus {
        /// Not signed yet.
        Pending = "pending",
        /// Signed online.
        Signed = "signed",
        /// A paper waiver collected at the desk.
        CollectedOffline = "collected_offline",
    }
}

/// Whole years from `born` to `on` (0 when `on` is before `born`). Someone born on
/// 29 February turns a year older on 1 March in common years.
pub fn age_on(born: NaiveDate, on: NaiveDate) -> u32 {
    let mut years = on.year() - born.year();
    if (on.month(), on.day()) < (born.month(), born.day()) {
        years -= 1;
    }
    u32::try_from(years).unwrap_or(0)
}

/// Whether a participant is a minor (spec Part B 4.5): when `age_at_booking` says so, or
/// else when `date_of_birth` against `booking_day` (the booking's date in its site's time
/// zone) gives an age under 18. Either saying so is enough: an age given cannot make an
/// adult of a child whose birth date says otherwise. Unknown age is not a minor.
pub fn is_minor(
    age_at_booking: Option<u32>,
    date_of_birth: Option<NaiveDate>,
    booking_day: NaiveDate,
) -> bool {
    age_at_booking.is_some_and(|age| age < MINOR_AGE)
        || date_of_birth.is_some_and(|born| age_on(born, booking_day) < MINOR_AGE)
}

/// SHA-256 of a template's text, hex: kept with every signature of that version.
pub fn content_hash(content: &str) -> String {
    hex::encode(Sha256::digest(content.as_bytes()))
}

/// A signature image, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureImage {
    pub format: ImageFormat,
    /// Base64 of the image, without a data URL prefix.
    pub base64: String,
}

impl SignatureImage {
    /// The image as a `data:` URL (for the printable document).
    pub fn data_url(&self) -> String {
        let mime = match self.format {
            ImageFormat::Png => "image/png",
            ImageFormat::Svg => "image/svg+xml",
        };
        format!("data:{mime};base64,{}", self.base64)
    }
}

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";
/// The IEND chunk every PNG ends with (length 0, type, CRC).
const PNG_END: &[u8] = b"\0\0\0\0IEND\xaeB`\x82";

/// Checks `signatureData`: base64 (a `data:image/png;base64,` or `data:image/svg+xml;base64,`
/// prefix allowed) of a PNG or SVG image of at most [`MAX_SIGNATURE_BYTES`]; an SVG may
/// hold no script, event handler or external reference.
pub fn parse_signature(raw: &str) -> Result<SignatureImage, String> {
    let raw = raw.trim();
    let body = match raw.split_once(',') {
        Some((prefix, body)) if prefix.starts_with("data:") => {
            if !matches!(
                prefix,
                "data:image/png;base64" | "data:image/svg+xml;base64"
            ) {
                return Err(
                    "must be a PNG or SVG image: data:image/png;base64,… or data:image/svg+xml;base64,…"
                        .to_owned(),
                );
            }
            body
        }
        _ => raw,
    };
    if body.len() > MAX_SIGNATURE_BYTES / 3 * 4 + 4 {
        return Err(format!(
            "must be an image of at most {} KB",
            MAX_SIGNATURE_BYTES / 1024
        ));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(body)
        .map_err(|_| "must be base64 of a PNG or SVG image".to_owned())?;
    if bytes.len() > MAX_SIGNATURE_BYTES {
        return Err(format!(
            "must be an image of at most {} KB",
            MAX_SIGNATURE_BYTES / 1024
        ));
    }
    let format = if bytes.starts_with(PNG_MAGIC) {
        // A whole PNG: its header chunk first and its end chunk last.
        if bytes.get(12..16) != Some(b"IHDR".as_slice()) || !bytes.ends_with(PNG_END) {
            return Err("must be a whole PNG image".to_owned());
        }
        ImageFormat::Png
    } else {
        let text = std::str::from_utf8(&bytes)
            .ok()
            .filter(|t| t.contains("<svg"))
            .ok_or_else(|| "must be a PNG or SVG image".to_owned())?;
        plain_svg(text)?;
        ImageFormat::Svg
    };
    Ok(SignatureImage {
        format,
        base64: base64::engine::general_purpose::STANDARD.encode(&bytes),
    })
}

/// The elements a drawn signature is made of.
const SVG_ELEMENTS: &[&str] = &[
    "svg", "g", "path", "polyline", "polygon", "line", "rect", "circle", "ellipse", "title", "desc",
];

/// Their drawing attributes (no `style`, `href` or event handler).
const SVG_ATTRIBUTES: &[&str] = &[
    "xmlns",
    "version",
    "width",
    "height",
    "viewBox",
    "preserveAspectRatio",
    "d",
    "points",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "fill",
    "fill-rule",
    "fill-opacity",
    "stroke",
    "stroke-width",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-opacity",
    "opacity",
    "transform",
];

/// Checks that `text` is a plain SVG drawing: one `svg` root of the SVG namespace made only
/// of shapes and their drawing attributes (an allowlist), values without references
/// (`&`, `:`, `url(`), no doctype, processing instruction, CDATA or text outside
/// `title`/`desc`. Whatever shows it, such a drawing runs nothing and loads nothing.
fn plain_svg(text: &str) -> Result<(), String> {
    use quick_xml::events::{BytesStart, Event};
    let refuse = || {
        "must be a plain SVG drawing (shapes only: no scripts, styles, links or event handlers)"
            .to_owned()
    };
    let check = |e: &BytesStart<'_>, depth: usize| -> Result<bool, String> {
        let name = e.name();
        let local = std::str::from_utf8(name.as_ref()).map_err(|_| refuse())?;
        if !SVG_ELEMENTS.contains(&local) || (depth == 0) != (local == "svg") {
            return Err(refuse());
        }
        for attribute in e.attributes() {
            let attribute = attribute.map_err(|_| refuse())?;
            let key = std::str::from_utf8(attribute.key.as_ref()).map_err(|_| refuse())?;
            let value = std::str::from_utf8(&attribute.value).map_err(|_| refuse())?;
            let allowed = SVG_ATTRIBUTES.contains(&key)
                && if key == "xmlns" {
                    value == "http://www.w3.org/2000/svg"
                } else {
                    !value.contains(['&', ':', '<']) && !value.to_ascii_lowercase().contains("url(")
                };
            if !allowed {
                return Err(refuse());
            }
        }
        Ok(matches!(local, "title" | "desc"))
    };
    let mut reader = quick_xml::Reader::from_str(text);
    let mut depth = 0usize;
    let mut roots = 0;
    let mut in_text = false;
    loop {
        match reader.read_event().map_err(|_| refuse())? {
            Event::Start(e) => {
                in_text = check(&e, depth)?;
                roots += usize::from(depth == 0);
                depth += 1;
            }
            Event::Empty(e) => {
                check(&e, depth)?;
                roots += usize::from(depth == 0);
            }
            Event::End(_) => {
                depth = depth.checked_sub(1).ok_or_else(refuse)?;
                in_text = false;
            }
            Event::Text(t) => {
                let t = std::str::from_utf8(&t).map_err(|_| refuse())?;
                if !(in_text || t.trim().is_empty()) || t.contains('&') {
                    return Err(refuse());
                }
            }
            Event::Comment(_) | Event::Decl(_) => {}
            Event::Eof => break,
            _ => return Err(refuse()),
        }
    }
    if roots == 1 && depth == 0 {
        Ok(())
    } else {
        Err(refuse())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_minor_turns_eighteen_on_the_birthday_not_the_day_after() {
        let born = day("2008-06-15");
        assert!(is_minor(None, Some(born), day("2026-06-14")));
        assert!(!is_minor(None, Some(born), day("2026-06-15")));
        assert_eq!(age_on(born, day("2026-06-15")), 18);
    }

    #[test]
    fn either_the_age_or_the_birth_date_makes_a_minor() {
        let on = day("2026-01-01");
        assert!(is_minor(Some(17), Some(day("1980-01-01")), on));
        assert!(is_minor(Some(40), Some(day("2020-01-01")), on));
        assert!(is_minor(Some(16), None, on));
        assert!(!is_minor(Some(18), None, on));
        assert!(!is_minor(None, None, on));
    }

    #[test]
    fn a_leap_day_birthday_counts_from_the_first_of_march() {
        let born = day("2008-02-29");
        assert!(is_minor(None, Some(born), day("2026-02-28")));
        assert!(!is_minor(None, Some(born), day("2026-03-01")));
    }

    #[test]
    fn signatures_are_png_or_plain_svg_and_small() {
        let png = base64::engine::general_purpose::STANDARD
            .encode([PNG_MAGIC, b"\0\0\0\x0dIHDR0000", PNG_END].concat());
        let truncated = base64::engine::general_purpose::STANDARD.encode(PNG_MAGIC);
        assert!(parse_signature(&truncated).is_err());
        assert_eq!(parse_signature(&png).unwrap().format, ImageFormat::Png);
        let url = format!("data:image/png;base64,{png}");
        assert_eq!(parse_signature(&url).unwrap().base64, png);
        let svg = base64::engine::general_purpose::STANDARD
            .encode(br#"<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0L9 9"/></svg>"#);
        assert_eq!(parse_signature(&svg).unwrap().format, ImageFormat::Svg);
        let script = base64::engine::general_purpose::STANDARD
            .encode(br#"<svg><script>alert(1)</script></svg>"#);
        assert!(parse_signature(&script).is_err());
        let handler =
            base64::engine::general_purpose::STANDARD.encode(br#"<svg onload="alert(1)"></svg>"#);
        assert!(parse_signature(&handler).is_err());
        assert!(parse_signature("not base64!").is_err());
        let gif = base64::engine::general_purpose::STANDARD.encode(b"GIF89a....");
        assert!(parse_signature(&gif).is_err());
        let big = base64::engine::general_purpose::STANDARD.encode(
            [
                PNG_MAGIC,
                b"\0\0\0\x0dIHDR",
                &vec![0u8; MAX_SIGNATURE_BYTES],
                PNG_END,
            ]
            .concat(),
        );
        assert!(parse_signature(&big).is_err());
        assert!(parse_signature(&format!("data:image/gif;base64,{png}")).is_err());
    }

    #[test]
    fn the_content_hash_is_sha256_hex() {
        assert_eq!(
            content_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
