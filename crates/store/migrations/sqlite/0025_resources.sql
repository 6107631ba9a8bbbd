-- Resources (spec Part B 2.3, 2.4, 3.2): the rooms, equipment, vehicles and staff an
-- activity uses; a product's resource add-on configurations (how long, what price, where
-- around the activity); and the allocations of resources to bookings, HELD with a hold,
-- CONFIRMED with the booking, RELEASED when given back.
CREATE TABLE resources (
    tenant_id      TEXT NOT NULL,
    id             BLOB NOT NULL,
    site_id        BLOB NOT NULL,
    name           TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    resource_type  TEXT NOT NULL CHECK (resource_type IN ('ROOM', 'EQUIPMENT', 'VEHICLE', 'STAFF', 'OTHER')),
    shared_mode    TEXT NOT NULL CHECK (shared_mode IN ('EXCLUSIVE', 'SHARED', 'POOLED')),
    -- EXCLUSIVE: 1; SHARED: bookings at once; POOLED: units (people) at once.
    capacity       INTEGER NOT NULL CHECK (capacity >= 1),
    is_active      INTEGER NOT NULL DEFAULT 1,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, site_id) REFERENCES sites (tenant_id, id)
);
CREATE INDEX resources_site ON resources (tenant_id, site_id);

CREATE TABLE resource_addon_configs (
    tenant_id              TEXT NOT NULL,
    id                     BLOB NOT NULL,
    product_id             BLOB NOT NULL,
    addon_id               BLOB NOT NULL,
    resource_id            BLOB NOT NULL,
    duration_mode          TEXT NOT NULL CHECK (duration_mode IN ('FIXED', 'SELECTABLE', 'CUSTOM')),
    -- SELECTABLE: the minutes offered, a JSON array.
    duration_options       TEXT NOT NULL DEFAULT '[]',
    fixed_duration_mins    INTEGER CHECK (fixed_duration_mins IS NULL OR fixed_duration_mins >= 1),
    min_duration_mins      INTEGER CHECK (min_duration_mins IS NULL OR min_duration_mins >= 1),
    max_duration_mins      INTEGER CHECK (max_duration_mins IS NULL OR max_duration_mins >= 1),
    duration_step_mins     INTEGER NOT NULL DEFAULT 30 CHECK (duration_step_mins >= 1),
    default_duration_mins  INTEGER CHECK (default_duration_mins IS NULL OR default_duration_mins >= 1),
    pricing_mode           TEXT NOT NULL CHECK (pricing_mode IN ('FLAT', 'PER_HOUR', 'PER_PERSON', 'COMPOSITE')),
    -- Minor units of the tenant's currency.
    flat_price             INTEGER CHECK (flat_price IS NULL OR flat_price >= 0),
    per_hour_price         INTEGER CHECK (per_hour_price IS NULL OR per_hour_price >= 0),
    per_person_price       INTEGER CHECK (per_person_price IS NULL OR per_person_price >= 0),
    base_price             INTEGER CHECK (base_price IS NULL OR base_price >= 0),
    allow_before           INTEGER NOT NULL DEFAULT 1,
    allow_during           INTEGER NOT NULL DEFAULT 1,
    allow_after            INTEGER NOT NULL DEFAULT 1,
    buffer_before_mins     INTEGER NOT NULL DEFAULT 0 CHECK (buffer_before_mins >= 0),
    buffer_after_mins      INTEGER NOT NULL DEFAULT 0 CHECK (buffer_after_mins >= 0),
    -- The most people the add-on serves; null: no limit of its own.
    max_capacity           INTEGER CHECK (max_capacity IS NULL OR max_capacity >= 1),
    is_active              INTEGER NOT NULL DEFAULT 1,
    created_at             TEXT NOT NULL,
    updated_at             TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id),
    FOREIGN KEY (tenant_id, addon_id) REFERENCES product_addons (tenant_id, id),
    FOREIGN KEY (tenant_id, resource_id) REFERENCES resources (tenant_id, id)
);
CREATE INDEX resource_addon_configs_product ON resource_addon_configs (tenant_id, product_id);

CREATE TABLE resource_allocations (
    tenant_id      TEXT NOT NULL,
    id             BLOB NOT NULL,
    booking_id     BLOB NOT NULL,
    config_id      BLOB NOT NULL,
    resource_id    BLOB NOT NULL,
    position       TEXT NOT NULL CHECK (position IN ('BEFORE', 'DURING', 'AFTER')),
    starts_at      TEXT NOT NULL,
    ends_at        TEXT NOT NULL,
    -- The window widened by the configuration's buffers: what the resource cannot give
    -- to anyone else.
    blocked_from   TEXT NOT NULL,
    blocked_until  TEXT NOT NULL,
    duration_mins  INTEGER NOT NULL CHECK (duration_mins >= 1),
    -- What it takes of the resource: 1, or one per person of a POOLED resource.
    units          INTEGER NOT NULL CHECK (units >= 1),
    -- The resource was EXCLUSIVE when it was taken.
    exclusive      INTEGER NOT NULL,
    -- Minor units of the booking's currency.
    price          INTEGER NOT NULL CHECK (price >= 0),
    status         TEXT NOT NULL CHECK (status IN ('HELD', 'CONFIRMED', 'RELEASED')),
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CHECK (starts_at < ends_at AND blocked_from <= starts_at AND ends_at <= blocked_until),
    FOREIGN KEY (tenant_id, booking_id) REFERENCES bookings (tenant_id, id),
    FOREIGN KEY (tenant_id, config_id) REFERENCES resource_addon_configs (tenant_id, id),
    FOREIGN KEY (tenant_id, resource_id) REFERENCES resources (tenant_id, id)
);
CREATE INDEX resource_allocations_booking ON resource_allocations (tenant_id, booking_id);
CREATE INDEX resource_allocations_in_use ON resource_allocations (tenant_id, resource_id, blocked_from)
    WHERE status <> 'RELEASED';
