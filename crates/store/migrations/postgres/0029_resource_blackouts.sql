-- A resource's own time off (Part B 4.12: resource-level schedules are independent of
-- product schedules): maintenance, a holiday, a closure, an event. While one lasts the
-- resource gives nothing: no add-on window, no session.
CREATE TABLE resource_blackouts (
    tenant_id    TEXT NOT NULL,
    id           UUID NOT NULL,
    resource_id  UUID NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('maintenance', 'holiday', 'closure', 'event')),
    starts_at    TIMESTAMPTZ NOT NULL,
    ends_at      TIMESTAMPTZ NOT NULL,
    reason       TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CHECK (starts_at < ends_at),
    FOREIGN KEY (tenant_id, resource_id) REFERENCES resources (tenant_id, id)
);
CREATE INDEX resource_blackouts_resource ON resource_blackouts (tenant_id, resource_id, starts_at);
