//! Whether a promotion applies to a booking, and the first reason it does not.

crate::text_enum! {
    /// Why a promotion does not apply (the `reason` of `POST /promotions/validate` and of
    /// INVALID_PROMOTION), in the order they are checked.
    pub enum Ineligible {
        /// No promotion has this code (or it was deleted).
        NotFound = "not_found",
        /// Switched off by the venue.
        Inactive = "inactive",
        /// Its validity window has not begun.
        NotStarted = "not_started",
        /// Its validity window has ended.
        Expired = "expired",
        /// Every use of its usage limit is taken.
        UsageLimitReached = "usage_limit_reached",
        /// This customer has used it as often as it allows.
        PerCustomerLimitReached = "per_customer_limit_reached",
        /// It is for other sites.
        NotApplicableSite = "not_applicable_site",
        /// It is for other products.
        NotApplicableProduct = "not_applicable_product",
        /// The subtotal is below its minimum spend.
        MinSpendNotMet = "min_spend_not_met",
    }
}

impl Ineligible {
    /// A sentence for the customer.
    pub fn message(self) -> &'static str {
        match self {
            Ineligible::NotFound => "This code does not exist.",
            Ineligible::Inactive => "This code is not in use.",
            Ineligible::NotStarted => "This code is not valid yet.",
            Ineligible::Expired => "This code has expired.",
            Ineligible::UsageLimitReached => "This code has been used up.",
            Ineligible::PerCustomerLimitReached => {
                "You have already used this code as often as it allows."
            }
            Ineligible::NotApplicableSite => "This code is not valid at this venue.",
            Ineligible::NotApplicableProduct => "This code is not valid for this activity.",
            Ineligible::MinSpendNotMet => "The booking does not reach this code's minimum spend.",
        }
    }
}

/// What decides whether a promotion applies, besides its discount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    pub is_active: bool,
    pub starts_at: chrono::DateTime<chrono::Utc>,
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
    pub usage_limit: Option<i64>,
    pub usage_count: i64,
    pub per_customer_limit: Option<i64>,
    /// Minor units.
    pub min_spend: Option<i64>,
    /// Empty: every site.
    pub sites: Vec<uuid::Uuid>,
    /// Empty: every product.
    pub products: Vec<uuid::Uuid>,
}

/// The booking (or cart) a promotion is checked against; what is not known is not
/// checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    pub now: chrono::DateTime<chrono::Utc>,
    pub site: Option<uuid::Uuid>,
    pub product: Option<uuid::Uuid>,
    /// Minor units, before any discount.
    pub subtotal: Option<i64>,
    /// Uses of this promotion by this customer so far.
    pub customer_uses: Option<i64>,
}

/// Whether a promotion with `rules` applies in `context`: the first reason it does not.
pub fn eligibility(rules: &Rules, context: &Context) -> Result<(), Ineligible> {
    if !rules.is_active {
        return Err(Ineligible::Inactive);
    }
    if context.now < rules.starts_at {
        return Err(Ineligible::NotStarted);
    }
    if rules.expires_at.is_some_and(|end| context.now >= end) {
        return Err(Ineligible::Expired);
    }
    if rules
        .usage_limit
        .is_some_and(|limit| rules.usage_count >= limit)
    {
        return Err(Ineligible::UsageLimitReached);
    }
    if let (Some(limit), Some(uses)) = (rules.per_customer_limit, context.customer_uses)
        && uses >= limit
    {
        return Err(Ineligible::PerCustomerLimitReached);
    }
    if let Some(site) = context.site
        && !rules.sites.is_empty()
        && !rules.sites.contains(&site)
    {
        return Err(Ineligible::NotApplicableSite);
    }
    if let Some(product) = context.product
        && !rules.products.is_empty()
        && !rules.products.contains(&product)
    {
        return Err(Ineligible::NotApplicableProduct);
    }
    if let (Some(min), Some(subtotal)) = (rules.min_spend, context.subtotal)
        && subtotal < min
    {
        return Err(Ineligible::MinSpendNotMet);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        let at = |s: &str| {
            chrono::DateTime::parse_from_rfc3339(s)
                .map(|d| d.with_timezone(&chrono::Utc))
                .unwrap_or_default()
        };
        Rules {
            is_active: true,
            starts_at: at("2026-11-01T00:00:00Z"),
            expires_at: Some(at("2026-12-01T00:00:00Z")),
            usage_limit: Some(10),
            usage_count: 3,
            per_customer_limit: Some(1),
            min_spend: Some(5000),
            sites: vec![uuid::Uuid::from_u128(1)],
            products: vec![uuid::Uuid::from_u128(2)],
        }
    }

    fn context(now: &str) -> Context {
        Context {
            now: chrono::DateTime::parse_from_rfc3339(now)
                .map(|d| d.with_timezone(&chrono::Utc))
                .unwrap_or_default(),
            site: Some(uuid::Uuid::from_u128(1)),
            product: Some(uuid::Uuid::from_u128(2)),
            subtotal: Some(5000),
            customer_uses: Some(0),
        }
    }

    #[test]
    fn eligibility_names_the_first_reason_in_order() {
        let ok = context("2026-11-21T09:00:00Z");
        assert_eq!(eligibility(&rules(), &ok), Ok(()));
        type Change = fn(&mut Rules, &mut Context);
        let cases: [(Change, Ineligible); 8] = [
            (|r, _| r.is_active = false, Ineligible::Inactive),
            (
                |r, c| r.starts_at = c.now + chrono::Duration::seconds(1),
                Ineligible::NotStarted,
            ),
            (|r, c| r.expires_at = Some(c.now), Ineligible::Expired),
            (|r, _| r.usage_count = 10, Ineligible::UsageLimitReached),
            (
                |_, c| c.customer_uses = Some(1),
                Ineligible::PerCustomerLimitReached,
            ),
            (
                |_, c| c.site = Some(uuid::Uuid::from_u128(9)),
                Ineligible::NotApplicableSite,
            ),
            (
                |_, c| c.product = Some(uuid::Uuid::from_u128(9)),
                Ineligible::NotApplicableProduct,
            ),
            (|_, c| c.subtotal = Some(4999), Ineligible::MinSpendNotMet),
        ];
        for (change, reason) in cases {
            let (mut r, mut c) = (rules(), ok);
            change(&mut r, &mut c);
            assert_eq!(eligibility(&r, &c), Err(reason), "{reason}");
        }
        // What is not known is not checked; empty scopes cover everything.
        let unknown = Context {
            site: None,
            product: None,
            subtotal: None,
            customer_uses: None,
            ..ok
        };
        let mut open = rules();
        open.usage_limit = None;
        open.usage_count = 1_000;
        assert_eq!(eligibility(&open, &unknown), Ok(()));
        open.sites.clear();
        open.products.clear();
        let elsewhere = Context {
            site: Some(uuid::Uuid::from_u128(7)),
            product: Some(uuid::Uuid::from_u128(8)),
            ..ok
        };
        assert_eq!(eligibility(&open, &elsewhere), Ok(()));
    }
}
