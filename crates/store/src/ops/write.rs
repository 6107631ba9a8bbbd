//! The one write path: every store operation that changes data runs as a [`Write`].
//!
//! `Repo::begin` opens the write transaction. The use case reads and changes rows through
//! `w.tx`, and states its audit rows ([`Write::audit`]) as it goes; messages to send go
//! into the outbox through `messaging::enqueue(w, …)`, in the same transaction.
//! [`Write::finish`] then writes the audit rows, stores the
//! idempotent response of a claimed key, and commits. On an error it rolls everything
//! back, unless the use case kept what it had done ([`Write::keep_on_refusal`], for an
//! overdue hold found expired on the way).
//!
//! Idempotency-Key (ARCHITECTURE section 5): [`Write::claim`] claims the key inside the
//! same transaction as the effect. A concurrent request with the same key waits on the
//! key's row (PostgreSQL) or on the write lock (SQLite) and then replays the answer, so a
//! key is completed exactly when its effect is committed.

use super::audit::Change;
use super::{Db, Repo, idempotency};
use crate::{Actor, Idempotency, IdempotencyError, Render, Replay, StoreError, Timestamp};
use kairos_domain::{TenantId, new_id};
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{QueryBuilder, Transaction};

/// A write in progress: its transaction and what it writes before committing.
pub(crate) struct Write {
    pub tx: Transaction<'static, Db>,
    pub tenant: TenantId,
    pub now: Timestamp,
    audit: Vec<AuditRow>,
    /// The Idempotency-Key this write claimed.
    key: Option<String>,
    keep_on_refusal: bool,
}

struct AuditRow {
    tenant: TenantId,
    actor: Actor,
    action: String,
    entity_type: String,
    entity_id: String,
    changes: Value,
}

impl Repo {
    /// Opens a write transaction for `tenant` (SQLite: `BEGIN IMMEDIATE` on the writer).
    pub(crate) async fn begin(
        &self,
        tenant: &TenantId,
        now: Timestamp,
    ) -> Result<Write, StoreError> {
        Ok(Write {
            tx: self.begin_write().await?,
            tenant: tenant.clone(),
            now,
            audit: Vec::new(),
            key: None,
            keep_on_refusal: false,
        })
    }
}

impl Write {
    /// Whether the transaction's tenant has the site `site`.
    pub(crate) async fn has_site(&mut self, site: uuid::Uuid) -> Result<bool, sqlx::Error> {
        let found: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM sites WHERE tenant_id = $1 AND id = $2")
                .bind(self.tenant.as_str())
                .bind(site)
                .fetch_optional(&mut *self.tx)
                .await?;
        Ok(found.is_some())
    }

    /// Claims the Idempotency-Key of `idem` (if any) inside this transaction. `Some` is
    /// the stored answer of the same request made before: answer it, nothing else runs.
    pub(crate) async fn claim<T, E>(
        &mut self,
        idem: Option<&Idempotency<'_, T>>,
    ) -> Result<Option<Replay>, E>
    where
        E: From<IdempotencyError> + From<StoreError>,
    {
        let Some(idem) = idem else {
            return Ok(None);
        };
        let found = idempotency::claim_in(
            &mut self.tx,
            &self.tenant,
            idem.key,
            idem.request_hash,
            self.now,
        )
        .await
        .map_err(StoreError::from)?;
        match found? {
            None => {
                self.key = Some(idem.key.to_owned());
                Ok(None)
            }
            Some(replay) => Ok(Some(replay)),
        }
    }

    /// Records an audit row for `actor`, written on commit.
    pub(crate) fn audit(&mut self, actor: &Actor, change: Change<'_>) {
        self.audit.push(AuditRow {
            tenant: self.tenant.clone(),
            actor: actor.clone(),
            action: change.action.to_owned(),
            entity_type: change.entity_type.to_owned(),
            entity_id: change.entity_id,
            changes: change.changes,
        });
    }

    /// Commits what was done so far even if the use case then refuses (an overdue hold
    /// expired on the way stays expired).
    pub(crate) fn keep_on_refusal(&mut self) {
        self.keep_on_refusal = true;
    }

    /// Ends the write with the use case's `result`: on success writes the audit rows and
    /// (for a claimed key) the response `render` gives, then commits;
    /// on an error rolls back (or commits what [`Write::keep_on_refusal`] kept).
    pub(crate) async fn finish<T, E>(
        self,
        result: Result<T, E>,
        render: Option<Render<'_, T>>,
    ) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        match result {
            Ok(value) => {
                let response = render.map(|r| r(&value));
                self.commit(response).await?;
                Ok(value)
            }
            Err(e) if self.keep_on_refusal => {
                // The claim goes (commit without a response): the refusal is the API's to
                // store.
                self.commit(None).await?;
                Err(e)
            }
            Err(e) => {
                // Rolled back now: a transaction that is only dropped is rolled back when
                // its connection is next used, and keeps its row locks until then (a
                // refused request would leave its booking locked while the connection
                // idles in the pool).
                if let Err(failed) = self.tx.rollback().await {
                    tracing::warn!(error = %failed, "rolling back a refused write failed; the connection is dropped");
                }
                Err(e)
            }
        }
    }

    /// Writes the audit rows recorded so far, now rather than at the
    /// commit. A use case that ends by locking a contended row (a hold taking a slot's
    /// seats) flushes first, so the lock is held only for its statement and the commit.
    pub(crate) async fn flush(&mut self) -> Result<(), StoreError> {
        if !self.audit.is_empty() {
            let mut q = QueryBuilder::<Db>::new(
                "INSERT INTO audit_log (tenant_id, id, occurred_at, actor_type, actor_id, \
                 actor_name, action, entity_type, entity_id, changes) ",
            );
            let now = self.now;
            q.push_values(self.audit.drain(..), |mut row, a| {
                row.push_bind(a.tenant.as_str().to_owned())
                    .push_bind(new_id())
                    .push_bind(now)
                    .push_bind(a.actor.kind.as_str())
                    .push_bind(a.actor.id)
                    .push_bind(a.actor.name)
                    .push_bind(a.action)
                    .push_bind(a.entity_type)
                    .push_bind(a.entity_id)
                    .push_bind(Json(a.changes));
            });
            q.build().execute(&mut *self.tx).await?;
        }
        Ok(())
    }

    /// Writes the audit rows and the claimed key's response (without one,
    /// the claim is dropped), and commits.
    pub(crate) async fn commit(
        mut self,
        response: Option<(u16, String)>,
    ) -> Result<(), StoreError> {
        self.flush().await?;
        if let Some(key) = &self.key {
            match &response {
                Some((status, body)) => {
                    idempotency::finish(&mut self.tx, &self.tenant, key, *status, body).await?;
                }
                None => idempotency::unclaim(&mut self.tx, &self.tenant, key).await?,
            }
        }
        self.tx.commit().await?;
        Ok(())
    }

    /// Makes the rows written from now on belong to `tenant` (the hold expiry sweep
    /// crosses tenants).
    pub(crate) fn switch_tenant(&mut self, tenant: TenantId) {
        self.tenant = tenant;
    }
}
