//! Rendering a message template with handlebars (spec Part B 4.7).
//!
//! - Variables in double braces (`{{customerName}}`); `if`, `unless` and `ifEquals` blocks.
//! - `formatDate value "pattern"`: a timestamp in the data's `timezone` (an IANA zone; UTC
//!   when absent), with the tokens `yyyy yy MMMM MMM MM M dd d EEEE EEE HH H hh h mm ss a`;
//!   other characters are written as they are, text in single quotes too. So
//!   `MMMM d, yyyy` gives `March 29, 2026`, `dd/MM/yyyy` `29/03/2026`, `h:mm a` `3:00 AM`,
//!   `HH:mm` `03:00`, with the offset of that instant (daylight saving included).
//! - `formatCurrency amount currency`: an amount in major units with the currency's
//!   symbol and digits (`€12.50`, `¥1200`).
//! - Email bodies are HTML: values are escaped. Subjects and SMS are plain text: they are
//!   not.
//!
//! A template that does not parse, or fails to render (a helper given the wrong values),
//! is a [`TemplateProblem`] naming the field; never a panic.

use super::Channel;
use crate::tenancy::Currency;
use handlebars::{
    Context, Handlebars, Helper, HelperDef, HelperResult, Output, RenderContext, RenderError,
    RenderErrorReason, Renderable, Template,
};
use serde_json::Value;
use std::collections::BTreeSet;

/// What is wrong with a template, by field (`subjectTemplate`, `bodyTemplate`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct TemplateProblem {
    pub field: &'static str,
    pub message: String,
}

/// A rendered message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub subject: String,
    pub body: String,
    /// Variables the templates use that `known` does not list.
    pub warnings: Vec<String>,
}

/// Deepest nesting of blocks (`{{#if}}` in `{{#if}}` …), and of subexpressions within one
/// tag, a template may have. Handlebars parses and renders nesting by recursion: a body of
/// a few thousand nested blocks would overflow the thread's stack (an abort, not an
/// error), so deeper templates are refused before handlebars sees them.
pub const MAX_NESTING: usize = 32;

/// The deepest block nesting and the deepest parenthesis nesting inside one tag.
fn nesting(source: &str) -> (usize, usize) {
    let (mut blocks, mut deepest_block, mut deepest_parens) = (0usize, 0usize, 0usize);
    let mut rest = source;
    while let Some(start) = rest.find("{{") {
        let tag = &rest[start + 2..];
        let end = tag.find("}}").unwrap_or(tag.len());
        let inner = tag[..end].trim_start_matches(['{', '~', ' ']);
        if inner.starts_with('#') {
            blocks += 1;
            deepest_block = deepest_block.max(blocks);
        } else if inner.starts_with('/') {
            blocks = blocks.saturating_sub(1);
        }
        let mut parens = 0usize;
        for c in tag[..end].chars() {
            match c {
                '(' => {
                    parens += 1;
                    deepest_parens = deepest_parens.max(parens);
                }
                ')' => parens = parens.saturating_sub(1),
                _ => {}
            }
        }
        rest = &tag[end..];
    }
    (deepest_block, deepest_parens)
}

/// Checks that `source` parses as a template, and is not nested deeper than
/// [`MAX_NESTING`].
pub fn check(field: &'static str, source: &str) -> Result<(), TemplateProblem> {
    let (blocks, parens) = nesting(source);
    if blocks > MAX_NESTING || parens > MAX_NESTING {
        return Err(TemplateProblem {
            field,
            message: format!("nests blocks or subexpressions deeper than {MAX_NESTING} levels"),
        });
    }
    Template::compile(source)
        .map(|_| ())
        .map_err(|e| TemplateProblem {
            field,
            message: format!("is not a valid template: {}", e.reason()),
        })
}

/// Renders `subject` and `body` with `data` for `channel`. `known`: the variables the
/// message's kind offers (unknown ones are warned about, and render empty).
pub fn render(
    subject: &str,
    body: &str,
    channel: Channel,
    data: &Value,
    known: &[&str],
) -> Result<Rendered, TemplateProblem> {
    check("subjectTemplate", subject)?;
    check("bodyTemplate", body)?;
    let plain = registry(false);
    let subject_out = plain
        .render_template(subject, data)
        .map_err(|e| problem("subjectTemplate", &e))?;
    let body_out = match channel {
        Channel::Email => registry(true).render_template(body, data),
        Channel::Sms => plain.render_template(body, data),
    }
    .map_err(|e| problem("bodyTemplate", &e))?;
    let mut unknown = BTreeSet::new();
    for source in [subject, body] {
        for name in variables(source) {
            if !known.contains(&name.as_str()) && name != "timezone" {
                unknown.insert(name);
            }
        }
    }
    Ok(Rendered {
        subject: subject_out.trim().to_owned(),
        body: body_out,
        warnings: unknown
            .into_iter()
            .map(|v| format!("unknown variable {v}: it renders empty"))
            .collect(),
    })
}

fn problem(field: &'static str, e: &RenderError) -> TemplateProblem {
    TemplateProblem {
        field,
        message: format!("cannot be rendered: {}", e.reason()),
    }
}

fn registry(html: bool) -> Handlebars<'static> {
    let mut h = Handlebars::new();
    if !html {
        h.register_escape_fn(handlebars::no_escape);
    }
    h.register_helper("formatDate", Box::new(FormatDate));
    h.register_helper("formatCurrency", Box::new(FormatCurrency));
    h.register_helper("ifEquals", Box::new(IfEquals));
    h
}

/// Words of the template language that are not variables.
const KEYWORDS: &[&str] = &[
    "if",
    "unless",
    "else",
    "ifEquals",
    "formatDate",
    "formatCurrency",
    "this",
    "each",
    "with",
    "lookup",
    "true",
    "false",
    "null",
];

/// The variable names (first path segment) a template mentions, roughly: every word in
/// double braces that is not a keyword, a helper, a string or a number.
pub fn variables(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = source;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        let inner = after[..end].trim_start_matches(['{', '#', '/', '^', '&', '~', ' ']);
        let mut in_string = false;
        for word in inner.split_whitespace() {
            if word.starts_with('"') || word.starts_with('\'') {
                in_string = !(word.len() > 1 && (word.ends_with('"') || word.ends_with('\'')));
                continue;
            }
            if in_string {
                if word.ends_with('"') || word.ends_with('\'') {
                    in_string = false;
                }
                continue;
            }
            let name = word
                .trim_end_matches(['}', '~'])
                .split(['.', '='])
                .next()
                .unwrap_or_default();
            let is_name = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
            if is_name && !KEYWORDS.contains(&name) && !word.contains('=') {
                found.insert(name.to_owned());
            }
        }
        rest = &after[end + 2..];
    }
    found
}

/// `formatDate value "pattern"`.
struct FormatDate;

impl HelperDef for FormatDate {
    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        _: &'reg Handlebars<'reg>,
        ctx: &'rc Context,
        _: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let value = h.param(0).map(|p| p.value().clone()).unwrap_or(Value::Null);
        let pattern = h
            .param(1)
            .and_then(|p| p.value().as_str().map(str::to_owned))
            .ok_or(RenderErrorReason::ParamNotFoundForIndex("formatDate", 1))?;
        let zone = ctx
            .data()
            .get("timezone")
            .and_then(Value::as_str)
            .unwrap_or("UTC");
        let text = match value.as_str() {
            None | Some("") => String::new(),
            Some(raw) => format_date(raw, &pattern, zone)
                .map_err(|m| RenderErrorReason::Other(format!("formatDate of {raw:?}: {m}")))?,
        };
        out.write(&text)?;
        Ok(())
    }
}

/// `raw` (RFC 3339, or a date `YYYY-MM-DD`) in `zone`, written with `pattern`.
pub fn format_date(raw: &str, pattern: &str, zone: &str) -> Result<String, String> {
    let tz = jiff::tz::TimeZone::get(zone).map_err(|_| format!("unknown time zone {zone}"))?;
    let zoned = match raw.parse::<jiff::Timestamp>() {
        Ok(t) => t.to_zoned(tz),
        Err(_) => raw
            .parse::<jiff::civil::Date>()
            .map_err(|_| "not a timestamp or a date".to_owned())?
            .to_zoned(tz)
            .map_err(|e| e.to_string())?,
    };
    Ok(zoned.strftime(&strftime_of(pattern)).to_string())
}

/// The strftime form of a date pattern.
fn strftime_of(pattern: &str) -> String {
    const TOKENS: &[(&str, &str)] = &[
        ("yyyy", "%Y"),
        ("yy", "%y"),
        ("MMMM", "%B"),
        ("MMM", "%b"),
        ("MM", "%m"),
        ("M", "%-m"),
        ("dd", "%d"),
        ("d", "%-d"),
        ("EEEE", "%A"),
        ("EEE", "%a"),
        ("HH", "%H"),
        ("H", "%-H"),
        ("hh", "%I"),
        ("h", "%-I"),
        ("mm", "%M"),
        ("ss", "%S"),
        ("a", "%p"),
    ];
    let mut out = String::new();
    let mut rest = pattern;
    'outer: while let Some(c) = rest.chars().next() {
        if c == '\'' {
            let quoted = &rest[1..];
            let end = quoted.find('\'').unwrap_or(quoted.len());
            out.push_str(&quoted[..end].replace('%', "%%"));
            rest = quoted.get(end + 1..).unwrap_or("");
            continue;
        }
        for (token, spec) in TOKENS {
            if let Some(after) = rest.strip_prefix(token) {
                out.push_str(spec);
                rest = after;
                continue 'outer;
            }
        }
        if c == '%' {
            out.push_str("%%");
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `formatCurrency amount currency`.
struct FormatCurrency;

impl HelperDef for FormatCurrency {
    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        _: &'reg Handlebars<'reg>,
        _: &'rc Context,
        _: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let amount = h.param(0).map(|p| p.value().clone()).unwrap_or(Value::Null);
        let code = h
            .param(1)
            .and_then(|p| p.value().as_str().map(str::to_owned))
            .unwrap_or_default();
        let amount = match &amount {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        let text = match amount {
            None => String::new(),
            Some(a) => format_currency(a, &code)
                .map_err(|m| RenderErrorReason::Other(format!("formatCurrency: {m}")))?,
        };
        out.write(&text)?;
        Ok(())
    }
}

/// `amount` (major units) with the symbol and digits of `code`: `€12.50`, `-$3.00`.
pub fn format_currency(amount: f64, code: &str) -> Result<String, String> {
    let currency = Currency::parse(code).map_err(|e| e.to_string())?;
    let digits = currency.minor_digits() as usize;
    let sign = if amount < 0.0 { "-" } else { "" };
    Ok(format!(
        "{sign}{}{:.digits$}",
        currency.symbol(),
        amount.abs()
    ))
}

/// `{{#ifEquals a b}}…{{else}}…{{/ifEquals}}`: the block when both are equal (a number and
/// its text count as equal).
struct IfEquals;

impl HelperDef for IfEquals {
    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        r: &'reg Handlebars<'reg>,
        ctx: &'rc Context,
        rc: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let a = h.param(0).map(|p| p.value().clone()).unwrap_or(Value::Null);
        let b = h.param(1).map(|p| p.value().clone()).unwrap_or(Value::Null);
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let equal = a == b || text(&a) == text(&b);
        let block = if equal { h.template() } else { h.inverse() };
        match block {
            Some(t) => t.render(r, ctx, rc, out),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KNOWN: &[&str] = &[
        "customerName",
        "bookingDateTime",
        "totalAmount",
        "currency",
        "status",
    ];

    fn body(template: &str, data: &Value) -> String {
        render("s", template, Channel::Email, data, KNOWN)
            .map(|r| r.body)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_pattern_of_the_spec() {
        let t = "2026-03-29T12:05:00Z";
        let zone = "Europe/Helsinki";
        assert_eq!(
            format_date(t, "MMMM d, yyyy", zone).as_deref(),
            Ok("March 29, 2026")
        );
        assert_eq!(
            format_date(t, "dd/MM/yyyy", zone).as_deref(),
            Ok("29/03/2026")
        );
        assert_eq!(format_date(t, "h:mm a", zone).as_deref(), Ok("3:05 PM"));
        assert_eq!(format_date(t, "HH:mm", zone).as_deref(), Ok("15:05"));
        assert_eq!(
            format_date(t, "EEEE 'at' H 'o''clock'", zone).as_deref(),
            Ok("Sunday at 15 oclock")
        );
        assert!(format_date("soon", "HH:mm", zone).is_err());
        assert!(format_date(t, "HH:mm", "Mars/Base").is_err());
    }

    #[test]
    fn times_follow_daylight_saving_in_helsinki_and_new_york() {
        // Helsinki moves from +02:00 to +03:00 at 01:00 UTC on 29 March 2026.
        let h = "Europe/Helsinki";
        assert_eq!(
            format_date("2026-03-29T00:30:00Z", "HH:mm", h).as_deref(),
            Ok("02:30")
        );
        assert_eq!(
            format_date("2026-03-29T01:30:00Z", "HH:mm", h).as_deref(),
            Ok("04:30")
        );
        // and back at 01:00 UTC on 25 October 2026.
        assert_eq!(
            format_date("2026-10-25T00:30:00Z", "HH:mm", h).as_deref(),
            Ok("03:30")
        );
        assert_eq!(
            format_date("2026-10-25T01:30:00Z", "HH:mm", h).as_deref(),
            Ok("03:30")
        );
        // New York: -05:00 to -04:00 at 07:00 UTC on 8 March 2026; back on 1 November.
        let ny = "America/New_York";
        assert_eq!(
            format_date("2026-03-08T06:30:00Z", "h:mm a", ny).as_deref(),
            Ok("1:30 AM")
        );
        assert_eq!(
            format_date("2026-03-08T07:30:00Z", "h:mm a", ny).as_deref(),
            Ok("3:30 AM")
        );
        assert_eq!(
            format_date("2026-11-01T05:30:00Z", "h:mm a", ny).as_deref(),
            Ok("1:30 AM")
        );
        assert_eq!(
            format_date("2026-11-01T06:30:00Z", "h:mm a", ny).as_deref(),
            Ok("1:30 AM")
        );
        assert_eq!(
            format_date("2026-11-01T06:30:00Z", "MMMM d, yyyy", ny).as_deref(),
            Ok("November 1, 2026")
        );
    }

    #[test]
    fn the_data_names_the_time_zone() {
        let data =
            json!({"bookingDateTime": "2026-07-01T09:00:00Z", "timezone": "America/New_York"});
        assert_eq!(
            body("{{formatDate bookingDateTime \"HH:mm\"}}", &data),
            "05:00"
        );
        let utc = json!({"bookingDateTime": "2026-07-01T09:00:00Z"});
        assert_eq!(
            body("{{formatDate bookingDateTime \"HH:mm\"}}", &utc),
            "09:00"
        );
    }

    #[test]
    fn currencies_with_their_symbol_and_digits() {
        assert_eq!(format_currency(12.5, "EUR").as_deref(), Ok("€12.50"));
        assert_eq!(format_currency(1200.0, "JPY").as_deref(), Ok("¥1200"));
        assert_eq!(format_currency(-3.0, "usd").as_deref(), Ok("-$3.00"));
        assert!(format_currency(1.0, "XYZ").is_err());
        let data = json!({"totalAmount": 40, "currency": "EUR"});
        assert_eq!(
            body("{{formatCurrency totalAmount currency}}", &data),
            "€40.00"
        );
    }

    #[test]
    fn blocks_if_unless_and_if_equals() {
        let data = json!({"customerName": "Ada", "status": "confirmed"});
        assert_eq!(
            body("{{#if customerName}}Hi {{customerName}}{{/if}}", &data),
            "Hi Ada"
        );
        assert_eq!(body("{{#unless missing}}none{{/unless}}", &data), "none");
        let t = "{{#ifEquals status \"confirmed\"}}yes{{else}}no{{/ifEquals}}";
        assert_eq!(body(t, &data), "yes");
        assert_eq!(body(t, &json!({"status": "hold"})), "no");
    }

    #[test]
    fn html_is_escaped_in_email_bodies_only() {
        let data = json!({"customerName": "<b>Ada</b> & co"});
        let email = render(
            "{{customerName}}",
            "{{customerName}}",
            Channel::Email,
            &data,
            KNOWN,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(email.body, "&lt;b&gt;Ada&lt;/b&gt; &amp; co");
        assert_eq!(email.subject, "<b>Ada</b> & co");
        let sms = render("", "{{customerName}}", Channel::Sms, &data, KNOWN)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sms.body, "<b>Ada</b> & co");
    }

    #[test]
    fn unknown_variables_are_warnings_and_bad_templates_problems() {
        let r = render(
            "{{customerName}} {{nickname}}",
            "{{#if vip.level}}x{{/if}} {{formatDate bookingDateTime \"HH:mm\"}}",
            Channel::Email,
            &json!({"bookingDateTime": "2026-07-01T09:00:00Z"}),
            KNOWN,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            r.warnings,
            [
                "unknown variable nickname: it renders empty",
                "unknown variable vip: it renders empty"
            ]
        );
        let bad = render("ok", "{{#if x}}open", Channel::Email, &json!({}), KNOWN);
        assert_eq!(bad.map_err(|e| e.field), Err("bodyTemplate"));
        let bad_subject = render("{{", "ok", Channel::Email, &json!({}), KNOWN);
        assert_eq!(bad_subject.map_err(|e| e.field), Err("subjectTemplate"));
        let bad_date = render(
            "s",
            "{{formatDate customerName \"HH:mm\"}}",
            Channel::Email,
            &json!({"customerName": "Ada"}),
            KNOWN,
        );
        assert_eq!(bad_date.map_err(|e| e.field), Err("bodyTemplate"));
    }

    #[test]
    fn every_default_renders_without_warnings() {
        let data = json!({
            "customerName": "Ada", "bookingDateTime": "2026-12-01T10:00:00Z",
            "totalAmount": 40, "currency": "EUR", "timezone": "Europe/Helsinki",
            "voucherExpiresAt": "2027-12-01T00:00:00Z", "offerExpiresAt": "2026-12-01T09:00:00Z"
        });
        for d in super::super::catalog::defaults() {
            let kind = super::super::catalog::kind(d.key).unwrap_or_else(|| panic!("{}", d.key));
            let vars = kind.variables();
            let r = render(d.subject, d.body, d.channel, &data, &vars)
                .unwrap_or_else(|e| panic!("{}: {e}", d.key));
            assert!(r.warnings.is_empty(), "{}: {:?}", d.key, r.warnings);
            assert!(!r.body.is_empty());
        }
    }
}

#[cfg(test)]
mod hostile {
    use super::{Channel, render};
    use serde_json::json;

    /// Body-sized (100,000 characters) nesting is a refused template, not a stack overflow.
    #[test]
    fn deeply_nested_templates_are_refused_not_a_crash() {
        let blocks = "{{#if a}}".repeat(5_000) + &"{{/if}}".repeat(5_000);
        let parens = "{{x ".to_owned() + &"(".repeat(49_000) + "a" + &")".repeat(49_000) + "}}";
        for source in [blocks, parens] {
            assert!(source.len() <= 100_000);
            let r = render("s", &source, Channel::Email, &json!({"a": true}), &[]);
            let err = r.err().map(|e| e.message).unwrap_or_default();
            assert!(err.contains("deeper than 32"), "{err}");
        }
        // 32 levels render.
        let fine = "{{#if a}}".repeat(32) + "x" + &"{{/if}}".repeat(32);
        let r = render("s", &fine, Channel::Email, &json!({"a": true}), &[]);
        assert_eq!(r.map(|r| r.body), Ok("x".to_owned()));
    }
}
