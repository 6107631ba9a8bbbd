-- A resource's own opening hours (Part B 4.12: resource-level schedules are independent
-- of product schedules): templates, overrides and blackouts may have the scope
-- `resource`. Outside its hours a resource gives nothing. SQLite cannot change a CHECK
-- constraint in place: each table is rebuilt with the wider one.

CREATE TABLE schedule_templates_next (
    tenant_id        TEXT NOT NULL,
    id               BLOB NOT NULL,
    scope_type       TEXT NOT NULL CHECK (scope_type IN ('site', 'product', 'resource')),
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
INSERT INTO schedule_templates_next (tenant_id, id, scope_type, scope_id, day_of_week, start_time, end_time, recurrence_kind, by_day, by_month, by_month_day, exdates, valid_from, valid_to, created_at, updated_at)
    SELECT tenant_id, id, scope_type, scope_id, day_of_week, start_time, end_time, recurrence_kind, by_day, by_month, by_month_day, exdates, valid_from, valid_to, created_at, updated_at FROM schedule_templates;
DROP TABLE schedule_templates;
ALTER TABLE schedule_templates_next RENAME TO schedule_templates;
CREATE INDEX schedule_templates_scope ON schedule_templates (tenant_id, scope_type, scope_id);

CREATE TABLE schedule_overrides_next (
    tenant_id    TEXT NOT NULL,
    id           BLOB NOT NULL,
    scope_type   TEXT NOT NULL CHECK (scope_type IN ('site', 'product', 'resource')),
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
INSERT INTO schedule_overrides_next (tenant_id, id, scope_type, scope_id, date_from, date_to, start_time, end_time, recurrence, reason, created_at, updated_at)
    SELECT tenant_id, id, scope_type, scope_id, date_from, date_to, start_time, end_time, recurrence, reason, created_at, updated_at FROM schedule_overrides;
DROP TABLE schedule_overrides;
ALTER TABLE schedule_overrides_next RENAME TO schedule_overrides;
CREATE INDEX schedule_overrides_scope ON schedule_overrides (tenant_id, scope_type, scope_id);

CREATE TABLE schedule_blackouts_next (
    tenant_id    TEXT NOT NULL,
    id           BLOB NOT NULL,
    scope_type   TEXT NOT NULL CHECK (scope_type IN ('site', 'product', 'resource')),
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
INSERT INTO schedule_blackouts_next (tenant_id, id, scope_type, scope_id, kind, date_from, date_to, start_time, end_time, recurrence, reason, created_at, updated_at)
    SELECT tenant_id, id, scope_type, scope_id, kind, date_from, date_to, start_time, end_time, recurrence, reason, created_at, updated_at FROM schedule_blackouts;
DROP TABLE schedule_blackouts;
ALTER TABLE schedule_blackouts_next RENAME TO schedule_blackouts;
CREATE INDEX schedule_blackouts_scope ON schedule_blackouts (tenant_id, scope_type, scope_id);
