-- Resource groups (Part A 4.11): resources of a site gathered under one set of booking
-- policies. A resource is in at most one group; its own policies and its group's are
-- partial sets (JSON objects), read policy by policy: the resource's, else the group's,
-- else the defaults.
CREATE TABLE resource_groups (
    tenant_id    TEXT NOT NULL,
    id           BLOB NOT NULL,
    site_id      BLOB NOT NULL,
    name         TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    policies     TEXT NOT NULL DEFAULT '{}',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, site_id, name),
    FOREIGN KEY (tenant_id, site_id) REFERENCES sites (tenant_id, id)
);

ALTER TABLE resources ADD COLUMN group_id BLOB;
ALTER TABLE resources ADD COLUMN policies TEXT NOT NULL DEFAULT '{}';
CREATE INDEX resources_group ON resources (tenant_id, group_id);
