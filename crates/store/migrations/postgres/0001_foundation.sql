-- Foundation: tenants, sites, products, staff, customers, audit log, idempotency, outbox.
-- Every tenant-owned table carries tenant_id first in its primary key and foreign keys,
-- so the schema can be distributed by tenant later.

CREATE TABLE server_secrets (
    name        TEXT PRIMARY KEY,
    value       TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE tenants (
    id                TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    currency          TEXT NOT NULL,
    timezone          TEXT NOT NULL,
    hold_ttl_minutes  INTEGER NOT NULL DEFAULT 15 CHECK (hold_ttl_minutes BETWEEN 1 AND 1440),
    is_active         BOOLEAN NOT NULL DEFAULT TRUE,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL
);

CREATE TABLE sites (
    tenant_id            TEXT NOT NULL REFERENCES tenants (id),
    id                   UUID NOT NULL,
    name                 TEXT NOT NULL,
    timezone             TEXT NOT NULL,
    currency             TEXT NOT NULL,
    locale               TEXT NOT NULL DEFAULT 'en',
    address              TEXT,
    contact_email        TEXT,
    contact_phone        TEXT,
    hold_ttl_minutes     INTEGER CHECK (hold_ttl_minutes BETWEEN 1 AND 1440),
    cancellation_policy  TEXT NOT NULL DEFAULT 'standard',
    is_active            BOOLEAN NOT NULL DEFAULT TRUE,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE products (
    tenant_id           TEXT NOT NULL,
    id                  UUID NOT NULL,
    site_id             UUID NOT NULL,
    name                TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    duration_mins       INTEGER NOT NULL CHECK (duration_mins > 0),
    capacity            INTEGER NOT NULL CHECK (capacity > 0),
    base_price          BIGINT NOT NULL CHECK (base_price >= 0),
    price_type          TEXT NOT NULL CHECK (price_type IN ('per_person', 'per_booking')),
    tax_rate_bp         INTEGER NOT NULL DEFAULT 0 CHECK (tax_rate_bp BETWEEN 0 AND 10000),
    prices_include_tax  BOOLEAN NOT NULL DEFAULT TRUE,
    slot_policy         TEXT NOT NULL DEFAULT 'interval' CHECK (slot_policy IN ('interval', 'fixed')),
    slot_interval_min   INTEGER NOT NULL DEFAULT 30 CHECK (slot_interval_min > 0),
    fixed_slot_times    JSONB NOT NULL DEFAULT '[]',
    setup_time          INTEGER NOT NULL DEFAULT 0 CHECK (setup_time >= 0),
    cleanup_time        INTEGER NOT NULL DEFAULT 0 CHECK (cleanup_time >= 0),
    label_codes         JSONB NOT NULL DEFAULT '[]',
    requires_waiver     BOOLEAN NOT NULL DEFAULT FALSE,
    is_active           BOOLEAN NOT NULL DEFAULT TRUE,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, site_id) REFERENCES sites (tenant_id, id)
);
CREATE INDEX products_site ON products (tenant_id, site_id);

CREATE TABLE admin_users (
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    id             UUID NOT NULL,
    username       TEXT NOT NULL,
    display_name   TEXT NOT NULL,
    email          TEXT,
    password_hash  TEXT NOT NULL,
    is_active      BOOLEAN NOT NULL DEFAULT TRUE,
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL,
    last_login_at  TIMESTAMPTZ,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT admin_users_username UNIQUE (tenant_id, username)
);

CREATE TABLE admin_user_roles (
    tenant_id  TEXT NOT NULL,
    user_id    UUID NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'manager', 'front_desk', 'viewer')),
    PRIMARY KEY (tenant_id, user_id, role),
    FOREIGN KEY (tenant_id, user_id) REFERENCES admin_users (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE customers (
    tenant_id            TEXT NOT NULL REFERENCES tenants (id),
    id                   UUID NOT NULL,
    email                TEXT NOT NULL,
    password_hash        TEXT,
    first_name           TEXT,
    last_name            TEXT,
    phone                TEXT,
    marketing_opt_in     BOOLEAN NOT NULL DEFAULT FALSE,
    sms_opt_in           BOOLEAN NOT NULL DEFAULT FALSE,
    terms_accepted_at    TIMESTAMPTZ,
    privacy_accepted_at  TIMESTAMPTZ,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT customers_email UNIQUE (tenant_id, email)
);

CREATE TABLE audit_log (
    tenant_id    TEXT NOT NULL,
    id           UUID NOT NULL,
    occurred_at  TIMESTAMPTZ NOT NULL,
    actor_type   TEXT NOT NULL CHECK (actor_type IN ('admin', 'customer', 'system')),
    actor_id     TEXT,
    actor_name   TEXT,
    action       TEXT NOT NULL,
    entity_type  TEXT NOT NULL,
    entity_id    TEXT NOT NULL,
    changes      JSONB NOT NULL DEFAULT '{}',
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX audit_log_entity ON audit_log (tenant_id, entity_type, entity_id, occurred_at);

CREATE TABLE idempotency_keys (
    tenant_id        TEXT NOT NULL,
    idem_key         TEXT NOT NULL,
    request_hash     TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('in_flight', 'completed')),
    response_status  INTEGER,
    response_body    TEXT,
    created_at       TIMESTAMPTZ NOT NULL,
    expires_at       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, idem_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

CREATE TABLE outbox (
    tenant_id        TEXT NOT NULL,
    id               UUID NOT NULL,
    kind             TEXT NOT NULL,
    payload          JSONB NOT NULL,
    status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TIMESTAMPTZ NOT NULL,
    last_error       TEXT,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL,
    delivered_at     TIMESTAMPTZ,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
