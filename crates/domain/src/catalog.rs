//! The closed sets of values a catalog record takes (spec Part B 2.2 and 4.8), parsed at
//! the edge and stored as their text.

text_enum! {
    /// A site's cancellation policy: how long before the start a customer may still cancel
    /// or move a confirmed booking online.
    pub enum CancellationPolicy {
        /// Until 24 hours before the start.
        Standard = "standard",
        /// Until the start.
        Flexible = "flexible",
        /// Until 72 hours before the start.
        Strict = "strict",
    }
}

impl CancellationPolicy {
    /// How long before its start a customer may still change a confirmed booking.
    pub fn customer_window(self) -> chrono::Duration {
        match self {
            CancellationPolicy::Standard => chrono::Duration::hours(24),
            CancellationPolicy::Flexible => chrono::Duration::zero(),
            CancellationPolicy::Strict => chrono::Duration::hours(72),
        }
    }
}

text_enum! {
    /// How a product's slots are laid out in its opening hours.
    pub enum SlotPolicyKind {
        /// Every `slotIntervalMin` minutes.
        Interval = "interval",
        /// At the product's `fixedSlotTimes`.
        Fixed = "fixed",
    }
}

text_enum! {
    /// How a variant's price relates to its product's.
    pub enum VariantPriceMode {
        /// The product's price.
        None = "none",
        /// Added to the product's price (may be negative).
        Adjustment = "adjustment",
        /// Instead of the product's price.
        Override = "override",
    }
}

text_enum! {
    /// What an add-on is.
    pub enum AddonType {
        Item = "item",
        Service = "service",
        Upgrade = "upgrade",
        Resource = "resource",
    }
}

text_enum! {
    /// How an add-on's amount is applied.
    pub enum AddonPriceType {
        /// Minor units per unit.
        Fixed = "fixed",
        /// Minor units per person per unit.
        PerPerson = "per_person",
        /// Basis points of the base price line, per unit.
        Percentage = "percentage",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_parses_back_from_its_text() {
        for p in CancellationPolicy::ALL {
            assert_eq!(CancellationPolicy::parse(p.as_str()), Some(*p));
        }
        for m in VariantPriceMode::ALL {
            assert_eq!(VariantPriceMode::parse(m.as_str()), Some(*m));
        }
        assert_eq!(VariantPriceMode::parse("Override"), None);
        assert_eq!(AddonPriceType::choices(), "fixed, per_person or percentage");
    }

    #[test]
    fn policy_windows_follow_spec_part_b_4_8() {
        assert_eq!(
            CancellationPolicy::Strict.customer_window(),
            chrono::Duration::hours(72)
        );
        assert_eq!(
            CancellationPolicy::Flexible.customer_window(),
            chrono::Duration::zero()
        );
    }
}
