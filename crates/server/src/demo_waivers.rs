//! The demo's waiver: its climbing products need one from every climber, in English and
//! Finnish, so the signing page, the reminders and check-in can be tried at once.

use chrono::{DateTime, Utc};
use kairos_domain::TenantId;
use kairos_store::{Actor, NewWaiverTemplate, Store};

const NAME: &str = "Climbing waiver";

const ENGLISH: &str = "Climbing and bouldering carry a risk of injury, including from falls.\n\n\
I confirm that I (or the child I sign for) am in good health, will follow the instructors' \
directions and the safety rules posted at the wall, and will climb only with the equipment \
the venue provides or approves.\n\n\
I take part at my own risk and accept that the venue is not liable for injuries that do not \
result from its own negligence.";

const FINNISH: &str = "Kiipeilyyn ja boulderointiin liittyy loukkaantumisen vaara, myös \
putoamisesta.\n\n\
Vahvistan, että olen (tai lapsi, jonka puolesta allekirjoitan, on) terve, noudatan ohjaajien \
ohjeita ja seinällä olevia turvallisuusohjeita ja kiipeilen vain paikan tarjoamilla tai \
hyväksymillä varusteilla.\n\n\
Osallistun omalla vastuullani ja hyväksyn, ettei paikka vastaa vammoista, jotka eivät johdu \
sen omasta huolimattomuudesta.";

/// Publishes the demo's waiver in English and Finnish unless the demo has one.
pub async fn ensure(store: &Store, tenant: &TenantId, now: DateTime<Utc>) -> anyhow::Result<()> {
    if !store
        .waiver_templates(tenant, false, None)
        .await?
        .is_empty()
    {
        return Ok(());
    }
    let actor = Actor::system("demo");
    for (locale, content) in [("en", ENGLISH), ("fi", FINNISH)] {
        store
            .create_waiver_template(
                tenant,
                NewWaiverTemplate {
                    name: NAME.into(),
                    content: content.into(),
                    locale: locale.into(),
                    version: None,
                    product_ids: Vec::new(),
                    site_ids: Vec::new(),
                },
                &actor,
                now,
            )
            .await
            .map_err(|e| anyhow::anyhow!("publishing the demo waiver ({locale}): {e}"))?;
    }
    Ok(())
}
