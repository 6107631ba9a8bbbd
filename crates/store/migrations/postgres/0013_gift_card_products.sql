-- Gift card products (spec Part A 2.7, 4.10): what a venue sells as gift cards. Values
-- are minor units of the tenant's currency. Deleting deactivates: vouchers sold stay
-- valid.
CREATE TABLE gift_card_products (
    tenant_id         TEXT NOT NULL REFERENCES tenants (id),
    id                UUID NOT NULL,
    -- NULL: every site
    site_id           UUID,
    name              TEXT NOT NULL,
    description       TEXT NOT NULL DEFAULT '',
    value_type        TEXT NOT NULL CHECK (value_type IN ('fixed', 'custom_range')),
    fixed_value       BIGINT CHECK (fixed_value > 0),
    min_value         BIGINT CHECK (min_value > 0),
    max_value         BIGINT CHECK (max_value > 0),
    suggested_values  JSONB NOT NULL DEFAULT '[]',
    validity_days     INTEGER NOT NULL CHECK (validity_days > 0),
    image_url         TEXT,
    is_active         BOOLEAN NOT NULL,
    display_order     INTEGER NOT NULL DEFAULT 0,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, site_id) REFERENCES sites (tenant_id, id),
    CHECK ((value_type = 'fixed' AND fixed_value IS NOT NULL)
        OR (value_type = 'custom_range' AND min_value IS NOT NULL AND max_value >= min_value))
);
CREATE INDEX gift_card_products_list ON gift_card_products (tenant_id, display_order, created_at);
