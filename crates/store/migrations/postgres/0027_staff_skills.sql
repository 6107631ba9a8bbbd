-- Staff skills (Part A 4.11): what a STAFF resource is qualified for, at a level (1 to 5)
-- and until an expiry (a certification), and the skills a product's sessions need.
CREATE TABLE skills (
    tenant_id    TEXT NOT NULL,
    id           UUID NOT NULL,
    name         TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, name)
);

CREATE TABLE resource_skills (
    tenant_id    TEXT NOT NULL,
    resource_id  UUID NOT NULL,
    skill_id     UUID NOT NULL,
    level        INTEGER NOT NULL CHECK (level BETWEEN 1 AND 5),
    -- Null: does not expire.
    expires_at   TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, resource_id, skill_id),
    FOREIGN KEY (tenant_id, resource_id) REFERENCES resources (tenant_id, id),
    FOREIGN KEY (tenant_id, skill_id) REFERENCES skills (tenant_id, id)
);
CREATE INDEX resource_skills_skill ON resource_skills (tenant_id, skill_id);

CREATE TABLE product_skill_requirements (
    tenant_id    TEXT NOT NULL,
    product_id   UUID NOT NULL,
    skill_id     UUID NOT NULL,
    min_level    INTEGER NOT NULL CHECK (min_level BETWEEN 1 AND 5),
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, product_id, skill_id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id),
    FOREIGN KEY (tenant_id, skill_id) REFERENCES skills (tenant_id, id)
);
