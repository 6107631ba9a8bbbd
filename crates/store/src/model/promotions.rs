//! Promotions.

use super::Timestamp;
use kairos_domain::promotions::{Discount, PromotionStatus, PromotionType, Rules};
use serde::Serialize;
use uuid::Uuid;

/// A promotion's settings, as created or replaced by an update.
#[derive(Debug, Clone, Serialize)]
pub struct NewPromotion {
    pub code: String,
    pub name: String,
    pub description: String,
    /// The type and its amounts (minor units of the tenant's currency, basis points).
    pub discount: Discount,
    /// Minor units; the subtotal a booking must reach.
    pub min_spend: Option<i64>,
    pub starts_at: Timestamp,
    pub expires_at: Option<Timestamp>,
    pub is_stackable: bool,
    pub usage_limit: Option<i32>,
    pub per_customer_limit: Option<i32>,
    /// Empty: every site.
    pub applicable_sites: Vec<Uuid>,
    /// Empty: every product.
    pub applicable_products: Vec<Uuid>,
    pub is_active: bool,
    /// Listed by `GET /promotions`; a code that is not public still applies when typed.
    pub is_public: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Promotion {
    pub id: Uuid,
    #[serde(flatten)]
    pub settings: NewPromotion,
    /// Uses taken by holds and confirmed bookings.
    pub usage_count: i32,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Promotion {
    pub fn promotion_type(&self) -> PromotionType {
        self.settings.discount.promotion_type()
    }

    /// What decides whether it applies (`kairos_domain::promotions::eligibility`).
    pub fn rules(&self) -> Rules {
        let s = &self.settings;
        Rules {
            is_active: s.is_active,
            starts_at: s.starts_at,
            expires_at: s.expires_at,
            usage_limit: s.usage_limit.map(i64::from),
            usage_count: i64::from(self.usage_count),
            per_customer_limit: s.per_customer_limit.map(i64::from),
            min_spend: s.min_spend,
            sites: s.applicable_sites.clone(),
            products: s.applicable_products.clone(),
        }
    }

    /// Uses left; None: unlimited.
    pub fn usage_remaining(&self) -> Option<i32> {
        self.settings
            .usage_limit
            .map(|limit| (limit - self.usage_count).max(0))
    }
}

/// What a promotion applies to, from its lists: products when it names some, else sites
/// when it names some, else the whole booking anywhere (`scopeType` of export and import).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromotionScope {
    Site,
    Product,
    Booking,
}

impl PromotionScope {
    pub const ALL: [PromotionScope; 3] = [
        PromotionScope::Site,
        PromotionScope::Product,
        PromotionScope::Booking,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PromotionScope::Site => "site",
            PromotionScope::Product => "product",
            PromotionScope::Booking => "booking",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    pub fn of(settings: &NewPromotion) -> Self {
        if !settings.applicable_products.is_empty() {
            PromotionScope::Product
        } else if !settings.applicable_sites.is_empty() {
            PromotionScope::Site
        } else {
            PromotionScope::Booking
        }
    }
}

/// What the admin list and the export show.
#[derive(Debug, Clone)]
pub struct PromotionFilter {
    pub status: PromotionStatus,
    pub promotion_type: Option<PromotionType>,
    /// Part of the code or the name, any case.
    pub search: Option<String>,
    pub is_active: Option<bool>,
    pub is_public: Option<bool>,
    pub scope: Option<PromotionScope>,
    /// Starting after this instant.
    pub starts_after: Option<Timestamp>,
    /// Expiring before this instant (promotions that never expire are left out).
    pub expires_before: Option<Timestamp>,
    /// From 1.
    pub page: u32,
    pub per_page: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum PromotionError {
    #[error("no such promotion")]
    NotFound,
    #[error("a promotion with code {0} already exists")]
    CodeTaken(String),
    #[error("no such site: {0}")]
    SiteNotFound(Uuid),
    #[error("no such product: {0}")]
    ProductNotFound(Uuid),
    #[error("usage_limit cannot be below the {0} uses already taken")]
    LimitBelowUses(i32),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(PromotionError);

/// What became of one imported row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportOutcome {
    /// Created with this id and code (generated when the row had none).
    Created { id: Uuid, code: String },
    /// `error_type` is one of the spec's import error types; `field` the column.
    Failed {
        field: &'static str,
        error_type: &'static str,
        message: String,
    },
}

/// What an import's checks need to know of the tenant before the write (the preview):
/// its sites, products and the live codes with their ids (keys in ASCII lower case).
#[derive(Debug, Clone, Default)]
pub struct ImportContext {
    pub sites: std::collections::HashSet<Uuid>,
    pub products: std::collections::HashSet<Uuid>,
    pub codes: std::collections::HashMap<String, Uuid>,
}

impl ImportContext {
    /// Why `p` cannot be created in this tenant, if it cannot: its code is taken, or it
    /// names a site or product the tenant does not have.
    pub fn refusal(&self, p: &NewPromotion) -> Option<ImportOutcome> {
        if let Some(id) = self.codes.get(&p.code.trim().to_ascii_lowercase()) {
            return Some(ImportOutcome::Failed {
                field: "code",
                error_type: "code_already_exists",
                message: format!("{} exists already (id {id})", p.code),
            });
        }
        if let Some(id) = p.applicable_sites.iter().find(|s| !self.sites.contains(s)) {
            return Some(ImportOutcome::Failed {
                field: "applicableSites",
                error_type: "reference_not_found",
                message: format!("no site {id} in this tenant"),
            });
        }
        if let Some(id) = p
            .applicable_products
            .iter()
            .find(|s| !self.products.contains(s))
        {
            return Some(ImportOutcome::Failed {
                field: "applicableProducts",
                error_type: "reference_not_found",
                message: format!("no product {id} in this tenant"),
            });
        }
        None
    }
}
