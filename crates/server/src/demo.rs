//! The demo tenant: a realistic venue a new user can try within a minute.

use anyhow::Context;
use chrono::NaiveDate;
use chrono::{DateTime, Utc};
use kairos_api::auth::passwords;
use kairos_domain::TenantId;
use kairos_domain::auth::Role;
use kairos_domain::catalog::{AddonPriceType, AddonType};
use kairos_domain::gift_cards::{ProductFields, ValueType};
use kairos_domain::payments::credentials::Provider;
use kairos_domain::pricing::AddonMode;
use kairos_domain::resources::{DurationMode, PricingMode, ResourceType, SharedMode};
use kairos_domain::scheduling::{BlackoutKind, DateRecurrence, RecurrenceKind, ScopeType};
use kairos_domain::secrets::SecretBox;
use kairos_store::{
    Actor, CredentialsInput, DateRuleKind, DateSpan, GiftCardProductFilter, NewAddon,
    NewAddonConfig, NewAdminUser, NewDateRule, NewProduct, NewResource, NewSite, NewTemplate,
    NewTenant, SkillGrant, Store,
};

pub const TENANT_ID: &str = "demo";
pub const ADMIN_USERNAME: &str = "admin";
pub const ADMIN_PASSWORD: &str = "kairos-demo-admin";
pub const STAFF_USERNAME: &str = "frontdesk";
pub const STAFF_PASSWORD: &str = "kairos-demo-staff";

/// What was created, for printing.
pub struct DemoCreated {
    pub site: String,
    pub products: Vec<String>,
}

/// Creates the demo tenant unless it exists. `None` when it was already there. Either
/// way the demo tenant pays by card through the built-in sandbox provider.
pub async fn ensure(
    store: &Store,
    secrets: &SecretBox,
    now: DateTime<Utc>,
) -> anyhow::Result<Option<DemoCreated>> {
    let tenant = TenantId::parse(TENANT_ID)?;
    if store.get_tenant(&tenant).await?.is_some() {
        sandbox_cardpay(store, secrets, &tenant, now).await?;
        gift_cards(store, &tenant, now).await?;
        party_room(store, &tenant, now).await?;
        climbing_course(store, &tenant, now).await?;
        package(store, &tenant, now).await?;
        crate::demo_waivers::ensure(store, &tenant, now).await?;
        return Ok(None);
    }
    let created = create(store, &tenant, now).await?;
    sandbox_cardpay(store, secrets, &tenant, now).await?;
    gift_cards(store, &tenant, now).await?;
    party_room(store, &tenant, now).await?;
    climbing_course(store, &tenant, now).await?;
    package(store, &tenant, now).await?;
    crate::demo_waivers::ensure(store, &tenant, now).await?;
    Ok(Some(created))
}

/// Offers the escape room and a bouldering session as one package, 35 EUR a person for
/// both (booked as a group), unless the demo has it.
async fn package(store: &Store, tenant: &TenantId, now: DateTime<Utc>) -> anyhow::Result<()> {
    const NAME: &str = "Climb & Escape";
    if store
        .list_packages(tenant, false)
        .await?
        .iter()
        .any(|p| p.name == NAME)
    {
        return Ok(());
    }
    let products = store.list_products(tenant).await?;
    let find = |word: &str| {
        products
            .iter()
            .find(|p| p.name.contains(word))
            .map(|p| p.id)
    };
    let (Some(room), Some(wall)) = (find("escape room"), find("Bouldering")) else {
        return Ok(());
    };
    store
        .create_package(
            tenant,
            kairos_store::NewPackage {
                name: NAME.into(),
                description: "The bouldering wall, then The Lost Temple: one booking, one price."
                    .into(),
                product_ids: vec![wall, room],
                price: kairos_domain::packages::PackagePrice::PackagePrice(3_500),
                is_active: true,
            },
            &Actor::system("demo"),
            now,
        )
        .await
        .context("adding the demo package")?;
    Ok(())
}

/// Puts a gift card on sale at the demo venue unless it sells some: any amount from 20 to
/// 200 EUR, valid a year.
async fn gift_cards(store: &Store, tenant: &TenantId, now: DateTime<Utc>) -> anyhow::Result<()> {
    let (existing, _) = store
        .list_gift_card_products(
            tenant,
            &GiftCardProductFilter {
                is_active: None,
                site_id: None,
                page: 1,
                limit: 1,
            },
        )
        .await?;
    if !existing.is_empty() {
        return Ok(());
    }
    store
        .create_gift_card_product(
            tenant,
            ProductFields {
                site_id: None,
                name: "Adventure gift card".into(),
                description: "Any amount from 20 to 200 EUR, for any activity, valid a year".into(),
                value_type: ValueType::CustomRange,
                fixed_value: None,
                min_value: Some(2000),
                max_value: Some(20000),
                suggested_values: vec![2500, 5000, 10000],
                validity_days: 365,
                image_url: None,
                is_active: true,
                display_order: 0,
            },
            &Actor::system("demo"),
            now,
        )
        .await
        .context("putting the demo gift card on sale")?;
    Ok(())
}

/// Offers the demo's party room after the escape room unless the room exists: an
/// EXCLUSIVE room for an hour or an hour and a half after the game, 30 EUR plus 5 EUR a
/// person, with 15 minutes of cleanup kept free after it.
async fn party_room(store: &Store, tenant: &TenantId, now: DateTime<Utc>) -> anyhow::Result<()> {
    let actor = Actor::system("demo");
    let Some(game) = store
        .list_products(tenant)
        .await?
        .into_iter()
        .find(|p| p.name.contains("escape room"))
    else {
        return Ok(());
    };
    let rooms = store
        .list_resources(tenant, Some(game.site_id), None)
        .await?;
    if rooms.iter().any(|r| r.name == "Party room") {
        return Ok(());
    }
    let room = store
        .create_resource(
            tenant,
            NewResource {
                site_id: game.site_id,
                name: "Party room".into(),
                description: "Cake, drinks and a long table for up to 12 after the game".into(),
                resource_type: ResourceType::Room,
                shared_mode: SharedMode::Exclusive,
                capacity: 1,
                is_active: true,
                policies: Default::default(),
            },
            &actor,
            now,
        )
        .await
        .context("adding the demo party room")?;
    let addon = store
        .create_addon(
            tenant,
            game.id,
            NewAddon {
                name: "Party room after the game".into(),
                description: "The party room for you after the escape room".into(),
                addon_type: AddonType::Resource,
                mode: AddonMode::YesNo,
                price_type: AddonPriceType::Fixed,
                amount: 0,
                max_quantity: None,
                display_order: 0,
                is_active: true,
            },
            &actor,
            now,
        )
        .await
        .context("adding the demo party room add-on")?;
    store
        .create_addon_config(
            tenant,
            game.id,
            NewAddonConfig {
                addon_id: addon.id,
                resource_id: room.id,
                duration_mode: DurationMode::Selectable,
                duration_options: vec![60, 90],
                fixed_duration_mins: None,
                min_duration_mins: None,
                max_duration_mins: None,
                duration_step_mins: 30,
                default_duration_mins: Some(60),
                pricing_mode: PricingMode::Composite,
                flat_price: None,
                per_hour_price: None,
                per_person_price: Some(500),
                base_price: Some(3000),
                allow_before: false,
                allow_during: false,
                allow_after: true,
                buffer_before_mins: 0,
                buffer_after_mins: 15,
                max_capacity: Some(12),
                is_active: true,
            },
            &actor,
            now,
        )
        .await
        .context("offering the demo party room")?;
    Ok(())
}

/// The demo's course that needs a qualified instructor unless it exists: a kids'
/// climbing course three times a day, for which one of two instructors (climbing
/// instructor level 2 or above, Leo's certificate running out in half a year) is chosen
/// per session with its first booking. A session is offered only while one is free.
async fn climbing_course(
    store: &Store,
    tenant: &TenantId,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let actor = Actor::system("demo");
    let products = store.list_products(tenant).await?;
    let Some(site) = products.first().map(|p| p.site_id) else {
        return Ok(());
    };
    if products.iter().any(|p| p.name == COURSE) {
        return Ok(());
    }
    let course = store
        .create_product(
            tenant,
            NewProduct {
                site_id: site,
                name: COURSE.into(),
                description: "An hour on the walls with an instructor, for ages 7 to 12.".into(),
                duration_mins: 60,
                capacity: 8,
                base_price: 1_500,
                price_type: kairos_domain::pricing::PriceType::PerPerson,
                tax_rate_bp: 1_000,
                prices_include_tax: true,
                slot_policy: kairos_domain::catalog::SlotPolicyKind::Fixed,
                slot_interval_min: 30,
                fixed_slot_times: ["10:00", "14:00", "17:00"].map(String::from).to_vec(),
                setup_time: 0,
                cleanup_time: 15,
                label_codes: vec!["beginner_friendly".into()],
                requires_waiver: true,
                waiver_check_in: kairos_domain::waivers::WaiverCheckIn::Warn,
                participant_types: Vec::new(),
            },
            &actor,
            now,
        )
        .await
        .context("adding the demo climbing course")?;
    let skill = store
        .create_skill(
            tenant,
            "Climbing instructor".into(),
            "Leads a group on the walls; level 2 and above may teach children".into(),
            &actor,
            now,
        )
        .await
        .context("adding the demo instructor skill")?;
    let mut grants = Vec::new();
    for (name, level, expires_at) in [
        ("Mia Virtanen", 3, None),
        ("Leo Nieminen", 2, Some(now + chrono::Duration::days(180))),
    ] {
        let staff = store
            .create_resource(
                tenant,
                NewResource {
                    site_id: site,
                    name: name.into(),
                    description: "Climbing instructor".into(),
                    resource_type: ResourceType::Staff,
                    shared_mode: SharedMode::Exclusive,
                    capacity: 1,
                    is_active: true,
                    policies: Default::default(),
                },
                &actor,
                now,
            )
            .await
            .context("adding a demo instructor")?;
        grants.push(SkillGrant {
            resource_id: staff.id,
            level,
            expires_at,
        });
    }
    store
        .grant_skill(tenant, skill.id, grants, &actor, now)
        .await
        .context("certifying the demo instructors")?;
    store
        .set_skill_requirements(tenant, course.id, vec![(skill.id, 2)], &actor, now)
        .await
        .context("requiring an instructor for the demo course")?;
    store
        .regenerate(
            tenant,
            ScopeType::Product,
            course.id,
            DateSpan::default(),
            now,
            false,
        )
        .await
        .context("generating the demo course's sessions")?;
    Ok(())
}

/// The demo course that needs an instructor.
const COURSE: &str = "Kids' climbing course";

/// Gives the demo tenant a sandbox cardpay account unless it has a cardpay account.
async fn sandbox_cardpay(
    store: &Store,
    secrets: &SecretBox,
    tenant: &TenantId,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let existing = store.list_payment_credentials(tenant).await?;
    if existing.iter().any(|c| c.provider == Provider::Cardpay) {
        return Ok(());
    }
    let key = format!("sk_sandbox_demo_{}", uuid::Uuid::new_v4().simple());
    store
        .put_payment_credentials(
            tenant,
            CredentialsInput {
                provider: Provider::Cardpay,
                site_id: None,
                secret_key: Some(secrets.seal(
                    &kairos_app::payments::credentials::seal_context(
                        tenant,
                        Provider::Cardpay,
                        None,
                        "secretKey",
                    ),
                    &key,
                )),
                webhook_secret: None,
                merchant_id: None,
                publishable_key: None,
                sandbox: true,
                enabled: true,
            },
            &Actor::system("demo"),
            now,
        )
        .await
        .context("giving the demo tenant a sandbox cardpay account")?;
    Ok(())
}

async fn create(
    store: &Store,
    tenant: &TenantId,
    now: DateTime<Utc>,
) -> anyhow::Result<DemoCreated> {
    let tenant = tenant.clone();
    let actor = Actor::system("demo");
    store
        .create_tenant(
            NewTenant {
                id: tenant.clone(),
                name: "Kairos Demo Venue".into(),
                currency: "EUR".into(),
                timezone: "Europe/Helsinki".into(),
            },
            now,
        )
        .await
        .context("creating the demo tenant")?;
    let site = store
        .create_site(
            &tenant,
            NewSite {
                name: "Helsinki Adventure Centre".into(),
                timezone: "Europe/Helsinki".into(),
                currency: "EUR".into(),
                locale: "en".into(),
                address: Some("Mannerheimintie 1, 00100 Helsinki".into()),
                contact_email: Some("hello@demo.kairos.test".into()),
                contact_phone: Some("+358401234567".into()),
                hold_ttl_minutes: Some(15),
                cancellation_policy: kairos_domain::catalog::CancellationPolicy::Standard,
                no_show_detection_minutes: None,
            },
            &actor,
            now,
        )
        .await?;
    let products = [
        NewProduct {
            site_id: site.id,
            name: "The Lost Temple escape room".into(),
            description: "Find the idol and get out within the hour. 2 to 6 players.".into(),
            duration_mins: 60,
            capacity: 6,
            base_price: 12_000,
            price_type: kairos_domain::pricing::PriceType::PerBooking,
            tax_rate_bp: 2_550,
            prices_include_tax: true,
            slot_policy: kairos_domain::catalog::SlotPolicyKind::Fixed,
            slot_interval_min: 30,
            fixed_slot_times: [
                "10:00", "11:30", "13:00", "14:30", "16:00", "17:30", "19:00",
            ]
            .map(String::from)
            .to_vec(),
            setup_time: 0,
            cleanup_time: 15,
            label_codes: vec!["adults_only".into()],
            requires_waiver: false,
            waiver_check_in: kairos_domain::waivers::WaiverCheckIn::Warn,
            participant_types: Vec::new(),
        },
        NewProduct {
            site_id: site.id,
            name: "Bouldering session".into(),
            description: "Ninety minutes on the walls with shoes and chalk included.".into(),
            duration_mins: 90,
            capacity: 20,
            base_price: 1_800,
            price_type: kairos_domain::pricing::PriceType::PerPerson,
            tax_rate_bp: 1_000,
            prices_include_tax: true,
            slot_policy: kairos_domain::catalog::SlotPolicyKind::Interval,
            slot_interval_min: 30,
            fixed_slot_times: Vec::new(),
            setup_time: 0,
            cleanup_time: 0,
            label_codes: vec!["beginner_friendly".into(), "toddler_friendly".into()],
            requires_waiver: true,
            waiver_check_in: kairos_domain::waivers::WaiverCheckIn::Warn,
            participant_types: vec![kairos_store::ParticipantTypePrice {
                key: "child".into(),
                name: "Child (under 12)".into(),
                price: 1_200,
            }],
        },
    ];
    let mut names = Vec::new();
    for product in products {
        names.push(
            store
                .create_product(&tenant, product, &actor, now)
                .await?
                .name,
        );
    }
    // Open every day 10:00-21:00, closed over Christmas every year. Creating the schedule
    // generates the slots, so the first availability query already finds some.
    store
        .create_template(
            &tenant,
            NewTemplate {
                scope_type: ScopeType::Site,
                scope_id: site.id,
                day_of_week: None,
                start_time: "10:00".into(),
                end_time: "21:00".into(),
                recurrence_kind: RecurrenceKind::Daily,
                by_day: None,
                by_month: None,
                by_month_day: None,
                exdates: Vec::new(),
                valid_from: None,
                valid_to: None,
            },
            &actor,
            now,
        )
        .await?;
    let christmas = |day: u32| NaiveDate::from_ymd_opt(2026, 12, day).context("date");
    store
        .create_date_rule(
            &tenant,
            DateRuleKind::Blackout,
            NewDateRule {
                scope_type: ScopeType::Site,
                scope_id: site.id,
                kind: Some(BlackoutKind::Holiday),
                date_from: christmas(24)?,
                date_to: christmas(26)?,
                start_time: None,
                end_time: None,
                recurrence: DateRecurrence::Annual,
                reason: Some("Christmas".into()),
            },
            &actor,
            now,
        )
        .await?;
    for (username, password, display, role) in [
        (ADMIN_USERNAME, ADMIN_PASSWORD, "Demo Owner", Role::Owner),
        (
            STAFF_USERNAME,
            STAFF_PASSWORD,
            "Demo Front Desk",
            Role::FrontDesk,
        ),
    ] {
        let hash = passwords::hash_blocking(password).map_err(|e| anyhow::anyhow!("{e}"))?;
        store
            .create_admin_user(
                &tenant,
                NewAdminUser {
                    username: username.into(),
                    display_name: display.into(),
                    email: None,
                    password_hash: hash,
                    roles: vec![role],
                },
                &actor,
                now,
            )
            .await?;
    }
    Ok(DemoCreated {
        site: site.name,
        products: names,
    })
}

/// The lines printed after the demo tenant is created.
pub fn describe(created: &DemoCreated) -> String {
    format!(
        "Demo tenant created (site: {}, open daily 10:00-21:00; products: {}):\n  \
         tenant id : {TENANT_ID}   (send it as the x-tenant-id header)\n  \
         owner     : {ADMIN_USERNAME} / {ADMIN_PASSWORD}\n  \
         front desk: {STAFF_USERNAME} / {STAFF_PASSWORD}\n  \
         try       : curl -s -X POST localhost:8080/api/auth/login -H 'content-type: application/json' \
         -d '{{\"username\":\"{ADMIN_USERNAME}\",\"password\":\"{ADMIN_PASSWORD}\",\"tenantId\":\"{TENANT_ID}\"}}'",
        created.site,
        created.products.join(", ")
    )
}

/// The demo's tenant id and sign-in credentials on one line, for the start banner.
pub fn credentials() -> String {
    format!(
        "x-tenant-id: {TENANT_ID}; owner {ADMIN_USERNAME} / {ADMIN_PASSWORD}; \
         front desk {STAFF_USERNAME} / {STAFF_PASSWORD}"
    )
}
