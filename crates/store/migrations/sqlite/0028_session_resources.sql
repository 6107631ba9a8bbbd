-- What every session of a product needs (Part B 4.12: "a slot is generated only when …
-- resources and capacity are free"): resources named outright (a room, a track, a pool
-- of kayaks) beside the skills of product_skill_requirements (a marshal).
CREATE TABLE product_resources (
    tenant_id    TEXT NOT NULL,
    product_id   BLOB NOT NULL,
    resource_id  BLOB NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (tenant_id, product_id, resource_id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id),
    FOREIGN KEY (tenant_id, resource_id) REFERENCES resources (tenant_id, id)
);
CREATE INDEX product_resources_resource ON product_resources (tenant_id, resource_id);

-- The resources a session was given when its first booking took a seat: the product's
-- resources, and for each skill it needs the staff member chosen (skill_id set). A row
-- counts against its resource only while the session has a booking (slots.booked > 0),
-- over the session widened by the product's setup and cleanup; a session left empty
-- gives its resources back without a write, and its next first booking chooses again.
CREATE TABLE session_resources (
    tenant_id      TEXT NOT NULL,
    slot_id        BLOB NOT NULL,
    resource_id    BLOB NOT NULL,
    -- The skill this staff member was chosen for; null: a resource the product names.
    skill_id       BLOB,
    blocked_from   TEXT NOT NULL,
    blocked_until  TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    PRIMARY KEY (tenant_id, slot_id, resource_id),
    CHECK (blocked_from < blocked_until),
    FOREIGN KEY (tenant_id, resource_id) REFERENCES resources (tenant_id, id)
);
CREATE INDEX session_resources_in_use ON session_resources (tenant_id, resource_id, blocked_from);
