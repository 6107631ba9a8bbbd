-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- Promotions (codes a venue hands out) and their uses by bookings.
--
-- discount_value by type: percentage, basis points of the subtotal (1000 = 10 %);
-- fixed_amount, minor units; buy_x_get_y, the people who go free of every
-- buy_quantity + discount_value; bundle, the price in minor units of every bundle_size
-- people. Amounts are in the tenant's currency.

CREATE TABLE promotions (
    tenant_id            TEXT NOT NULL REFERENCES tenants (id),
    id                   BLOB NOT NULL,
    code                 TEXT NOT NULL,
    -- the code in lower case: codes are unique per tenant whatever their case
    code_key             TEXT NOT NULL,
    name                 TEXT NOT NULL,
    -- the name in lower case (Unicode), for search on both databases alike
    name_key             TEXT NOT NULL,
    description          TEXT NOT NULL DEFAULT '',
    promotion_type       TEXT NOT NULL CHECK (promotion_type IN ('percentage', 'fixed_amount', 'buy_x_get_y', 'bundle')),
    discount_value       INTEGER NOT NULL CHECK (discount_value > 0),
    buy_quantity         INTEGER CHECK (buy_quantity IS NULL OR buy_quantity > 0),
    bundle_size          INTEGER CHECK (bundle_size IS NULL OR bundle_size > 0),
    min_spend            INTEGER CHECK (min_spend IS NULL OR min_spend >= 0),
    max_discount         INTEGER CHECK (max_discount IS NULL OR max_discount > 0),
    starts_at            TEXT NOT NULL,
    expires_at           TEXT,
    is_stackable         INTEGER NOT NULL DEFAULT 0,
    usage_limit          INTEGER CHECK (usage_limit IS NULL OR usage_limit > 0),
    per_customer_limit   INTEGER CHECK (per_customer_limit IS NULL OR per_customer_limit > 0),
    -- uses taken by holds and confirmed bookings (never above usage_limit)
    usage_count          INTEGER NOT NULL DEFAULT 0 CHECK (usage_count >= 0),
    applicable_sites     TEXT NOT NULL DEFAULT '[]',
    applicable_products  TEXT NOT NULL DEFAULT '[]',
    is_active            INTEGER NOT NULL DEFAULT 1,
    is_public            INTEGER NOT NULL DEFAULT 1,
    deleted_at           TEXT,
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CHECK (usage_limit IS NULL OR usage_count <= usage_limit),
    CHECK (expires_at IS NULL OR expires_at > starts_at)
);
-- A deleted promotion keeps its code in history; a new one may take the code again.
CREATE UNIQUE INDEX promotions_code ON promotions (tenant_id, code_key) WHERE deleted_at IS NULL;
