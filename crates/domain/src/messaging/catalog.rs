//! The kinds of message the product sends (template keys), the variables each may use,
//! and the global defaults in English that ship with the product.

use super::Channel;

/// The variables every booking message can use (spec Part B 4.7).
pub const BOOKING_VARIABLES: &[&str] = &[
    "customerName",
    "customerEmail",
    "customerPhone",
    "bookingId",
    "bookingReference",
    "bookingDateTime",
    "partySize",
    "status",
    "productName",
    "siteName",
    "siteAddress",
    "businessName",
    "supportEmail",
    "supportPhone",
    "totalAmount",
    "currency",
    "confirmedAt",
    "paymentMethod",
    "paymentReference",
];

/// Extra variables of the gift card delivery.
const GIFT_CARD_VARIABLES: &[&str] = &[
    "recipientName",
    "senderName",
    "personalMessage",
    "voucherCode",
    "voucherExpiresAt",
];

/// Extra variables of the waitlist offer.
const WAITLIST_VARIABLES: &[&str] = &["offerExpiresAt", "offerUrl"];

/// A kind of message: its key, what it is for, and its variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TemplateKind {
    pub key: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    /// Variables besides [`BOOKING_VARIABLES`].
    pub extra_variables: &'static [&'static str],
}

impl TemplateKind {
    /// Every variable a template of this kind may use.
    pub fn variables(&self) -> Vec<&'static str> {
        BOOKING_VARIABLES
            .iter()
            .chain(self.extra_variables)
            .copied()
            .collect()
    }
}

/// Every kind the product sends, in the order the types list shows them.
pub const KINDS: &[TemplateKind] = &[
    TemplateKind {
        key: "booking_confirmation",
        name: "Booking confirmation",
        description: "Sent when a booking is made (on creation).",
        extra_variables: &[],
    },
    TemplateKind {
        key: "payment_receipt",
        name: "Payment receipt",
        description: "Sent when a payment is received.",
        extra_variables: &[],
    },
    TemplateKind {
        key: "waiver_reminder",
        name: "Waiver reminder",
        description: "Sent 7, 2 and 1 days before, and on the day, while a waiver is unsigned.",
        extra_variables: &[],
    },
    TemplateKind {
        key: "pre_arrival_reminder",
        name: "Pre-arrival reminder",
        description: "Sent 24 hours before the booking, by email and SMS.",
        extra_variables: &[],
    },
    TemplateKind {
        key: "arrival_confirmation",
        name: "Arrival confirmation",
        description: "Sent by SMS on the morning of the booking's day.",
        extra_variables: &[],
    },
    TemplateKind {
        key: "post_visit_follow_up",
        name: "Post-visit follow-up",
        description: "Sent 24 hours after the booking is completed.",
        extra_variables: &[],
    },
    TemplateKind {
        key: "feedback_request",
        name: "Feedback request",
        description: "Sent 3 days after the booking is completed.",
        extra_variables: &[],
    },
    TemplateKind {
        key: "cancellation",
        name: "Cancellation",
        description: "Sent when a booking is cancelled.",
        extra_variables: &[],
    },
    TemplateKind {
        key: "welcome",
        name: "Welcome",
        description: "Sent when a customer creates an account.",
        extra_variables: &[],
    },
    TemplateKind {
        key: "gift_card_delivery",
        name: "Gift card delivery",
        description: "Sent to the recipient of a gift card on its delivery date.",
        extra_variables: GIFT_CARD_VARIABLES,
    },
    TemplateKind {
        key: "waitlist_offer",
        name: "Waitlist offer",
        description: "Sent when a place frees up for someone on the waitlist.",
        extra_variables: WAITLIST_VARIABLES,
    },
];

/// The kind with `key`.
pub fn kind(key: &str) -> Option<&'static TemplateKind> {
    KINDS.iter().find(|k| k.key == key)
}

/// A global default template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultTemplate {
    pub key: &'static str,
    pub channel: Channel,
    pub subject: &'static str,
    pub body: &'static str,
}

/// The defaults that ship with the product, in English.
pub fn defaults() -> Vec<DefaultTemplate> {
    let email = |key, subject, body| DefaultTemplate {
        key,
        channel: Channel::Email,
        subject,
        body,
    };
    let sms = |key, body| DefaultTemplate {
        key,
        channel: Channel::Sms,
        subject: "",
        body,
    };
    vec![
        email(
            "booking_confirmation",
            "Your booking {{bookingReference}} at {{siteName}}",
            "<p>Hello {{customerName}},</p>\n<p>Thank you for booking {{productName}} at {{siteName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}} for {{partySize}}.</p>\n<p>Your reference is <strong>{{bookingReference}}</strong>. Total: {{formatCurrency totalAmount currency}}.</p>\n{{#if siteAddress}}<p>Find us at {{siteAddress}}.</p>\n{{/if}}<p>Questions? {{#if supportEmail}}Write to {{supportEmail}}{{else}}Reply to this email{{/if}}.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "payment_receipt",
            "Receipt for booking {{bookingReference}}",
            "<p>Hello {{customerName}},</p>\n<p>We received {{formatCurrency totalAmount currency}}{{#if paymentMethod}} by {{paymentMethod}}{{/if}} for {{productName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}}.</p>\n{{#if paymentReference}}<p>Payment reference: {{paymentReference}}</p>\n{{/if}}<p>{{businessName}}</p>",
        ),
        email(
            "waiver_reminder",
            "Please sign your waiver for {{formatDate bookingDateTime \"MMMM d\"}}",
            "<p>Hello {{customerName}},</p>\n<p>Before your visit to {{siteName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"h:mm a\"}}, everyone in your party needs a signed waiver.</p>\n<p>Booking {{bookingReference}}</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "pre_arrival_reminder",
            "See you tomorrow at {{siteName}}",
            "<p>Hello {{customerName}},</p>\n<p>A reminder of {{productName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}} for {{partySize}}.</p>\n{{#if siteAddress}}<p>{{siteAddress}}</p>\n{{/if}}<p>Booking {{bookingReference}}</p>\n<p>{{businessName}}</p>",
        ),
        sms(
            "pre_arrival_reminder",
            "{{siteName}}: see you on {{formatDate bookingDateTime \"dd/MM/yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}} ({{productName}}, {{partySize}}). Ref {{bookingReference}}",
        ),
        sms(
            "arrival_confirmation",
            "{{siteName}}: today at {{formatDate bookingDateTime \"HH:mm\"}}, {{productName}} for {{partySize}}. Ref {{bookingReference}}",
        ),
        email(
            "post_visit_follow_up",
            "Thank you for visiting {{siteName}}",
            "<p>Hello {{customerName}},</p>\n<p>Thank you for joining us for {{productName}}. We hope to see you again soon.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "feedback_request",
            "How was {{productName}}?",
            "<p>Hello {{customerName}},</p>\n<p>How was your visit to {{siteName}} on {{formatDate bookingDateTime \"MMMM d\"}}? A few words from you help us and other visitors.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "cancellation",
            "Booking {{bookingReference}} is cancelled",
            "<p>Hello {{customerName}},</p>\n<p>Your booking {{bookingReference}} for {{productName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}} is cancelled.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "welcome",
            "Welcome to {{businessName}}",
            "<p>Hello {{customerName}},</p>\n<p>Your account is ready: your bookings and their details are now in one place.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "gift_card_delivery",
            "{{#if senderName}}{{senderName}} sent you{{else}}You received{{/if}} a gift card",
            "<p>Hello {{recipientName}},</p>\n{{#if personalMessage}}<blockquote>{{personalMessage}}</blockquote>\n{{/if}}<p>Your gift card code is <strong>{{voucherCode}}</strong>, worth {{formatCurrency totalAmount currency}}{{#if voucherExpiresAt}}, valid until {{formatDate voucherExpiresAt \"MMMM d, yyyy\"}}{{/if}}.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "waitlist_offer",
            "A place is free: {{productName}} on {{formatDate bookingDateTime \"MMMM d\"}}",
            "<p>Hello {{customerName}},</p>\n<p>A place for {{partySize}} is free for {{productName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}}. It is held for you until {{formatDate offerExpiresAt \"HH:mm\"}}.</p>\n{{#if offerUrl}}<p><a href=\"{{offerUrl}}\">Book it</a></p>\n{{/if}}<p>{{businessName}}</p>",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_an_english_default_and_every_default_a_kind() {
        let defaults = defaults();
        for k in KINDS {
            assert!(defaults.iter().any(|d| d.key == k.key), "{}", k.key);
        }
        for d in &defaults {
            assert!(kind(d.key).is_some(), "{}", d.key);
        }
        assert!(kind("nope").is_none());
        assert!(kind("gift_card_delivery").is_some_and(|k| k.variables().contains(&"voucherCode")));
    }
}
