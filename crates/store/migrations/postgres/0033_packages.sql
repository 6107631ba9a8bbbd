-- Packages (named by a booking group's packageId, groupType PACKAGE): a set of products
-- booked together at a package price per person, or at a percentage off the activities'
-- own prices. A package is deactivated, never deleted: the groups booked with it keep it.
CREATE TABLE packages (
    tenant_id         TEXT NOT NULL REFERENCES tenants (id),
    id                UUID NOT NULL,
    name              TEXT NOT NULL,
    description       TEXT NOT NULL DEFAULT '',
    -- the products a group of this package books, each once (2 to 20)
    product_ids       JSONB NOT NULL,
    price_type        TEXT NOT NULL CHECK (price_type IN ('PACKAGE_PRICE', 'PERCENT_OFF')),
    -- PACKAGE_PRICE: per person, minor units of the tenant's currency
    price_per_person  BIGINT CHECK (price_per_person >= 0),
    -- PERCENT_OFF: basis points (1500 = 15 %)
    percent_off_bp    INTEGER CHECK (percent_off_bp BETWEEN 1 AND 10000),
    is_active         BOOLEAN NOT NULL DEFAULT TRUE,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
