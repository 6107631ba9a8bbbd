-- Catalog (variants, add-ons), schedules (templates, overrides, blackouts) and slots.
-- SQLite twin of migrations/postgres (see 0001 for the type mapping; dates as YYYY-MM-DD TEXT).

CREATE TABLE product_variants (
    tenant_id         TEXT NOT NULL,
    id                BLOB NOT NULL,
    product_id        BLOB NOT NULL,
    name              TEXT NOT NULL,
    description       TEXT NOT NULL DEFAULT '',
    -- none: base price; adjustment: base + price_amount (may be negative); override: price_amount
    price_mode        TEXT NOT NULL DEFAULT 'none' CHECK (price_mode IN ('none', 'adjustment', 'override')),
    price_amount      INTEGER NOT NULL DEFAULT 0,
    capacity_share    INTEGER CHECK (capacity_share IS NULL OR capacity_share > 0),
    display_order     INTEGER NOT NULL DEFAULT 0,
    is_active         INTEGER NOT NULL DEFAULT 1,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id)
);
CREATE INDEX product_variants_product ON product_variants (tenant_id, product_id);

CREATE TABLE product_addons (
    tenant_id         TEXT NOT NULL,
    id                BLOB NOT NULL,
    product_id        BLOB NOT NULL,
    name              TEXT NOT NULL,
    description       TEXT NOT NULL DEFAULT '',
    addon_type        TEXT NOT NULL CHECK (addon_type IN ('item', 'service', 'upgrade', 'resource')),
    mode              TEXT NOT NULL CHECK (mode IN ('yesno', 'free_qty', 'per_participant')),
    price_type        TEXT NOT NULL CHECK (price_type IN ('fixed', 'per_person', 'percentage')),
    -- minor units for fixed and per_person; basis points for percentage
    amount            INTEGER NOT NULL CHECK (amount >= 0),
    max_quantity      INTEGER CHECK (max_quantity IS NULL OR max_quantity > 0),
    display_order     INTEGER NOT NULL DEFAULT 0,
    is_active         INTEGER NOT NULL DEFAULT 1,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id)
);
CREATE INDEX product_addons_product ON product_addons (tenant_id, product_id);

CREATE TABLE schedule_templates (
    tenant_id        TEXT NOT NULL,
    id               BLOB NOT NULL,
    scope_type       TEXT NOT NULL CHECK (scope_type IN ('site', 'product')),
    scope_id         BLOB NOT NULL,
    day_of_week      INTEGER CHECK (day_of_week BETWEEN 0 AND 6),
    start_time       TEXT NOT NULL,
    end_time         TEXT NOT NULL,
    recurrence_kind  TEXT NOT NULL CHECK (recurrence_kind IN ('none', 'daily', 'weekly', 'monthly', 'annual')),
    by_day           INTEGER CHECK (by_day BETWEEN 1 AND 127),
    by_month         INTEGER CHECK (by_month BETWEEN 1 AND 12),
    by_month_day     INTEGER CHECK (by_month_day BETWEEN 1 AND 31),
    exdates          TEXT NOT NULL DEFAULT '[]',
    valid_from       TEXT,
    valid_to         TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX schedule_templates_scope ON schedule_templates (tenant_id, scope_type, scope_id);

CREATE TABLE schedule_overrides (
    tenant_id    TEXT NOT NULL,
    id           BLOB NOT NULL,
    scope_type   TEXT NOT NULL CHECK (scope_type IN ('site', 'product')),
    scope_id     BLOB NOT NULL,
    date_from    TEXT NOT NULL,
    date_to      TEXT NOT NULL,
    start_time   TEXT NOT NULL,
    end_time     TEXT NOT NULL,
    recurrence   TEXT NOT NULL DEFAULT 'none' CHECK (recurrence IN ('none', 'annual')),
    reason       TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX schedule_overrides_scope ON schedule_overrides (tenant_id, scope_type, scope_id);

CREATE TABLE schedule_blackouts (
    tenant_id    TEXT NOT NULL,
    id           BLOB NOT NULL,
    scope_type   TEXT NOT NULL CHECK (scope_type IN ('site', 'product')),
    scope_id     BLOB NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('maintenance', 'holiday', 'closure', 'event')),
    date_from    TEXT NOT NULL,
    date_to      TEXT NOT NULL,
    start_time   TEXT,
    end_time     TEXT,
    recurrence   TEXT NOT NULL DEFAULT 'none' CHECK (recurrence IN ('none', 'annual')),
    reason       TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX schedule_blackouts_scope ON schedule_blackouts (tenant_id, scope_type, scope_id);

CREATE TABLE slots (
    tenant_id    TEXT NOT NULL,
    id           BLOB NOT NULL,
    product_id   BLOB NOT NULL,
    site_id      BLOB NOT NULL,
    starts_at    TEXT NOT NULL,
    ends_at      TEXT NOT NULL,
    capacity     INTEGER NOT NULL CHECK (capacity >= 0),
    booked       INTEGER NOT NULL DEFAULT 0 CHECK (booked >= 0),
    is_orphaned  INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT slots_product_start UNIQUE (tenant_id, product_id, starts_at),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id)
);
